// Harbor's authentication mode, read when a failure depends on it: Harbor creates LDAP user groups
// and imports LDAP users only in LDAP auth mode, and answers otherwise as if the group or user did
// not exist (HARBOR-API.md §6.10, §10). One read of /systeminfo, only on those failure paths.
import type { HarborConnectionHandle } from "../connection/handle.ts";

/** "db_auth", "ldap_auth", "oidc_auth", "http_auth", …, or undefined when Harbor does not say. */
export async function authMode(
  conn: HarborConnectionHandle,
  signal: AbortSignal,
): Promise<string | undefined> {
  return (await conn.client.system.getSystemInfo({ signal })).auth_mode ?? undefined;
}

export const LDAP_AUTH = "ldap_auth";
