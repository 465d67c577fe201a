// The system area: what Harbor says about itself (/systeminfo, open to anonymous callers), who the
// credentials log in as (/users/current), and the stored settings (/configurations) an LDAP check
// needs, since Harbor's LDAP ping only tests the configuration it is sent.
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** GeneralInfo. Anonymous callers get a subset (no registry_url, external_url, current_time, …). */
export const GeneralInfo = z.object({
  harbor_version: z.string().nullish(),
  auth_mode: z.string().nullish(),
  primary_auth_mode: z.boolean().nullish(),
  self_registration: z.boolean().nullish(),
  registry_url: z.string().nullish(),
  external_url: z.string().nullish(),
  current_time: z.string().nullish(),
  banner_message: z.string().nullish(),
  project_creation_restriction: z.string().nullish(),
  has_ca_root: z.boolean().nullish(),
  registry_storage_provider_name: z.string().nullish(),
  read_only: z.boolean().nullish(),
  notification_enable: z.boolean().nullish(),
  oidc_provider_name: z.string().nullish(),
  /** Older releases still send it; gone from 2.9 on. */
  with_notary: z.boolean().nullish(),
});
export type GeneralInfo = z.output<typeof GeneralInfo>;

/** UserResp. */
export const UserResp = z.object({
  user_id: z.number().int().optional(),
  username: z.string().optional(),
  email: z.string().optional(),
  realname: z.string().optional(),
  comment: z.string().optional(),
  sysadmin_flag: z.boolean().optional(),
  /** The admin privilege granted by the authenticator (an LDAP admin group). */
  admin_role_in_auth: z.boolean().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type UserResp = z.output<typeof UserResp>;

const StringItem = z.object({ value: z.string().nullish(), editable: z.boolean().optional() });
const IntegerItem = z.object({ value: z.number().int().nullish(), editable: z.boolean().optional() });
const BoolItem = z.object({ value: z.boolean().nullish(), editable: z.boolean().optional() });

/** ConfigurationsResponse: every user-scope setting as {value, editable}; passwords never come back. */
export const Configurations = z.object({
  auth_mode: nullAsAbsent(StringItem),
  primary_auth_mode: nullAsAbsent(BoolItem),
  ldap_url: nullAsAbsent(StringItem),
  ldap_search_dn: nullAsAbsent(StringItem),
  ldap_base_dn: nullAsAbsent(StringItem),
  ldap_filter: nullAsAbsent(StringItem),
  ldap_uid: nullAsAbsent(StringItem),
  ldap_scope: nullAsAbsent(IntegerItem),
  ldap_timeout: nullAsAbsent(IntegerItem),
  ldap_verify_cert: nullAsAbsent(BoolItem),
  ldap_group_base_dn: nullAsAbsent(StringItem),
  ldap_group_admin_dn: nullAsAbsent(StringItem),
  ldap_group_attribute_name: nullAsAbsent(StringItem),
  ldap_group_search_filter: nullAsAbsent(StringItem),
  ldap_group_search_scope: nullAsAbsent(IntegerItem),
  ldap_group_attach_parallel: nullAsAbsent(BoolItem),
  ldap_group_membership_attribute: nullAsAbsent(StringItem),
  project_creation_restriction: nullAsAbsent(StringItem),
  read_only: nullAsAbsent(BoolItem),
  self_registration: nullAsAbsent(BoolItem),
  token_expiration: nullAsAbsent(IntegerItem),
  uaa_client_id: nullAsAbsent(StringItem),
  uaa_endpoint: nullAsAbsent(StringItem),
  uaa_verify_cert: nullAsAbsent(BoolItem),
  http_authproxy_endpoint: nullAsAbsent(StringItem),
  http_authproxy_tokenreview_endpoint: nullAsAbsent(StringItem),
  http_authproxy_admin_groups: nullAsAbsent(StringItem),
  http_authproxy_admin_usernames: nullAsAbsent(StringItem),
  http_authproxy_verify_cert: nullAsAbsent(BoolItem),
  http_authproxy_skip_search: nullAsAbsent(BoolItem),
  http_authproxy_server_certificate: nullAsAbsent(StringItem),
  oidc_name: nullAsAbsent(StringItem),
  oidc_endpoint: nullAsAbsent(StringItem),
  oidc_client_id: nullAsAbsent(StringItem),
  oidc_groups_claim: nullAsAbsent(StringItem),
  oidc_admin_group: nullAsAbsent(StringItem),
  oidc_group_filter: nullAsAbsent(StringItem),
  oidc_scope: nullAsAbsent(StringItem),
  oidc_user_claim: nullAsAbsent(StringItem),
  oidc_verify_cert: nullAsAbsent(BoolItem),
  oidc_auto_onboard: nullAsAbsent(BoolItem),
  oidc_extra_redirect_parms: nullAsAbsent(StringItem),
  /** Harbor 2.13+. */
  oidc_logout: nullAsAbsent(BoolItem),
  robot_token_duration: nullAsAbsent(IntegerItem),
  robot_name_prefix: nullAsAbsent(StringItem),
  notification_enable: nullAsAbsent(BoolItem),
  quota_per_project_enable: nullAsAbsent(BoolItem),
  storage_per_project: nullAsAbsent(IntegerItem),
  audit_log_forward_endpoint: nullAsAbsent(StringItem),
  skip_audit_log_database: nullAsAbsent(BoolItem),
  /** Harbor 2.13+: a comma list of audit-log event types Harbor does not record. */
  disabled_audit_log_event_types: nullAsAbsent(StringItem),
  session_timeout: nullAsAbsent(IntegerItem),
  scanner_skip_update_pulltime: nullAsAbsent(BoolItem),
  banner_message: nullAsAbsent(StringItem),
});
export type Configurations = z.output<typeof Configurations>;

/** The body of PUT /configurations: plain values, only the keys to change (passwords included). */
export type ConfigurationsUpdate = Record<string, string | number | boolean>;

/** CVEAllowlist: the system's when project_id is 0. expires_at is Unix seconds; absent = never. */
export const CveAllowlist = z.object({
  id: z.number().int().optional(),
  project_id: z.number().int().optional(),
  expires_at: z.number().int().nullish(),
  items: nullAsAbsent(z.array(z.object({ cve_id: z.string().optional() }))),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type CveAllowlist = z.output<typeof CveAllowlist>;

export class SystemApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * getSystemInfo: answers anonymous callers too, so it tells "reachable" apart from "logged in".
   * `anonymous` leaves the credentials out: the auth mode and banner (and up to 2.12 the version),
   * and a wrong password is not sent (Harbor would answer late and freeze the user). From 2.13
   * harbor_version comes only to a caller that logged in.
   */
  getSystemInfo(opts?: CallOptions & { anonymous?: boolean }): Promise<GeneralInfo> {
    return this.#t.json(
      { ...opts, operation: "getSystemInfo", method: "GET", path: "/systeminfo" },
      GeneralInfo,
    );
  }

  /**
   * getCurrentUserInfo: 401 (kind "unauthorized") when the credentials do not log in. Robot accounts
   * log in but have no user record: Harbor answers them 412 (kind "precondition").
   */
  getCurrentUser(opts?: CallOptions): Promise<UserResp> {
    return this.#t.json(
      { ...opts, operation: "getCurrentUserInfo", method: "GET", path: "/users/current" },
      UserResp,
    );
  }

  /** getConfigurations: system administrators only (403 otherwise). Passwords are never returned. */
  getConfigurations(opts?: CallOptions): Promise<Configurations> {
    return this.#t.json(
      { ...opts, operation: "getConfigurations", method: "GET", path: "/configurations" },
      Configurations,
    );
  }

  /**
   * updateConfigurations: plain values of the keys to change (sysadmin only). Harbor answers 400
   * to a value its type refuses and to an auth-mode change once users other than admin exist, and
   * 403 when the configuration is fixed by the environment (CONFIG_OVERWRITE_JSON).
   */
  updateConfigurations(change: ConfigurationsUpdate, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "updateConfigurations",
      method: "PUT",
      path: "/configurations",
      body: change,
    });
  }

  /** getSystemCVEAllowlist */
  getCveAllowlist(opts?: CallOptions): Promise<CveAllowlist> {
    return this.#t.json(
      { ...opts, operation: "getSystemCVEAllowlist", method: "GET", path: "/system/CVEAllowlist" },
      CveAllowlist,
    );
  }

  /** putSystemCVEAllowlist: replaces the list (and its expiry; omitted = never expires). */
  putCveAllowlist(allowlist: { items: string[]; expiresAt?: number }, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "putSystemCVEAllowlist",
      method: "PUT",
      path: "/system/CVEAllowlist",
      body: {
        items: allowlist.items.map((cve_id) => ({ cve_id })),
        ...(allowlist.expiresAt === undefined ? {} : { expires_at: allowlist.expiresAt }),
      },
    });
  }
}
