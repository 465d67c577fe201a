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

/** The part of ConfigurationsResponse this project reads: the auth mode and the LDAP settings. */
export const Configurations = z.object({
  auth_mode: nullAsAbsent(StringItem),
  ldap_url: nullAsAbsent(StringItem),
  ldap_search_dn: nullAsAbsent(StringItem),
  ldap_base_dn: nullAsAbsent(StringItem),
  ldap_filter: nullAsAbsent(StringItem),
  ldap_uid: nullAsAbsent(StringItem),
  ldap_scope: nullAsAbsent(IntegerItem),
  ldap_timeout: nullAsAbsent(IntegerItem),
  ldap_verify_cert: nullAsAbsent(BoolItem),
});
export type Configurations = z.output<typeof Configurations>;

export class SystemApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * getSystemInfo: answers anonymous callers too, so it tells "reachable" apart from "logged in".
   * `anonymous` leaves the credentials out: the version and auth mode only, and a wrong password is
   * not sent (Harbor would answer late and freeze the user).
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
}
