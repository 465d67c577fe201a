// The system configuration (/configurations) and the system CVE allowlist (/system/CVEAllowlist).
//
// GET answers every user-scope setting of the release's ConfigurationsResponse as `{value,
// editable}`, defaults included, and never a password or client secret (ldap_search_password,
// oidc_client_secret); 2.13 adds disabled_audit_log_event_types and oidc_logout. PUT decodes the body
// into the release's Configurations model, as go-swagger does: a value of the wrong JSON type is a
// 422, a key outside the model is dropped without a word (scan_all_policy, and on 2.12 the 2.13 keys:
// the answer is 200 all the same), null leaves the setting as it is. It then checks the values as
// Harbor's config controller does:
// - the whole configuration is fixed when Harbor was started with CONFIG_OVERWRITE_JSON (control
//   `fixByEnvironment`): every item reads `editable: false` and a PUT is 403;
// - the auth mode cannot change once users other than admin exist (400; `editable` of auth_mode
//   says so beforehand);
// - values are checked by the item's type (auth modes, project creation restriction, LDAP scopes,
//   booleans, integers, quotas of -1 or more than 0, non-empty LDAP URL/base DN/uid);
// - token_expiration, robot_token_duration and session_timeout must be positive and at most
//   9999999999 (ten digits, the UI's limit);
// - skip_audit_log_database needs an audit_log_forward_endpoint, and a new endpoint must answer
//   (control `setAuditEndpointReachable`).
// The auth mode and the LDAP connection settings are the ldap area's (its directory follows them);
// robot_name_prefix renames every robot as Harbor shows them and logs them in.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireAuthenticated, requireSystem } from "../auth.ts";
import { badRequest, forbidden } from "../errors.ts";
import { ok, perRelease, type RouteSpec } from "../router.ts";
import type { Change, HarborVersion } from "../version.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { AuthMode } from "./ldap.ts";

type ItemType =
  | "string"
  | "nonEmpty"
  | "bool"
  | "int"
  | "authMode"
  | "restriction"
  | "ldapScope"
  | "quota"
  | "password"
  | "stringMap";

interface Item {
  type: ItemType;
  default: string | number | boolean;
  /** Only releases with this change have the item. */
  since?: Change;
}

const s = (d = ""): Item => ({ type: "string", default: d });
const b = (d: boolean): Item => ({ type: "bool", default: d });
const i = (d: number): Item => ({ type: "int", default: d });

/**
 * Every user-scope item of the modelled releases with its type and default, in
 * ConfigurationsResponse order; `configItems` gives a release's.
 */
export const CONFIG_ITEMS: Readonly<Record<string, Item>> = {
  auth_mode: { type: "authMode", default: "db_auth" },
  primary_auth_mode: b(false),
  ldap_base_dn: { type: "nonEmpty", default: "" },
  ldap_filter: s(),
  ldap_group_base_dn: s(),
  ldap_group_admin_dn: s(),
  ldap_group_attribute_name: s(),
  ldap_group_search_filter: s(),
  ldap_group_search_scope: { type: "ldapScope", default: 2 },
  ldap_group_attach_parallel: b(false),
  ldap_scope: { type: "ldapScope", default: 2 },
  ldap_search_dn: s(),
  ldap_search_password: { type: "password", default: "" },
  ldap_timeout: i(5),
  ldap_uid: { type: "nonEmpty", default: "cn" },
  ldap_url: { type: "nonEmpty", default: "" },
  ldap_verify_cert: b(true),
  ldap_group_membership_attribute: s("memberof"),
  project_creation_restriction: { type: "restriction", default: "everyone" },
  read_only: b(false),
  self_registration: b(false),
  token_expiration: i(30),
  uaa_client_id: s(),
  uaa_client_secret: s(),
  uaa_endpoint: s(),
  uaa_verify_cert: b(false),
  http_authproxy_endpoint: s(),
  http_authproxy_tokenreview_endpoint: s(),
  http_authproxy_admin_groups: s(),
  http_authproxy_admin_usernames: s(),
  http_authproxy_verify_cert: b(true),
  http_authproxy_skip_search: b(false),
  http_authproxy_server_certificate: s(),
  oidc_name: s(),
  oidc_endpoint: s(),
  oidc_client_id: s(),
  oidc_client_secret: { type: "password", default: "" },
  oidc_groups_claim: s(),
  oidc_admin_group: s(),
  oidc_group_filter: s(),
  oidc_scope: s(),
  oidc_user_claim: s(),
  oidc_verify_cert: b(true),
  oidc_auto_onboard: b(false),
  oidc_extra_redirect_parms: { type: "stringMap", default: "{}" },
  oidc_logout: { type: "bool", default: false, since: "auditLogConfiguration" },
  robot_token_duration: i(30),
  robot_name_prefix: s("robot$"),
  notification_enable: b(true),
  quota_per_project_enable: b(true),
  storage_per_project: { type: "quota", default: -1 },
  audit_log_forward_endpoint: s(),
  skip_audit_log_database: b(false),
  session_timeout: i(60),
  scanner_skip_update_pulltime: b(false),
  banner_message: s(),
  // A comma list of event types (GET /auditlog-exts/events); Harbor does not check the names.
  disabled_audit_log_event_types: { type: "string", default: "", since: "auditLogConfiguration" },
};

/** The items of a release's Configurations model. */
export function configItems(version: HarborVersion): Readonly<Record<string, Item>> {
  return Object.fromEntries(
    Object.entries(CONFIG_ITEMS).filter(([, item]) => !item.since || version.has(item.since)),
  );
}

/** The Go type of each item's field in the Configurations model. */
function fieldSchema(item: Item): z.ZodType {
  switch (item.type) {
    case "bool":
      return z.boolean().nullish();
    case "int":
    case "quota":
    case "ldapScope":
      return z.number().int().nullish();
    default:
      return z.string().nullish();
  }
}

/** A release's Configurations model: its keys with their JSON types; any other key is dropped. */
const ConfigurationsBody = perRelease((version) =>
  z
    .object(
      Object.fromEntries(Object.entries(configItems(version)).map(([k, item]) => [k, fieldSchema(item)])),
    )
    .meta({ goType: "Configurations" }),
);

const AUTH_MODES = ["db_auth", "ldap_auth", "uaa_auth", "http_auth", "oidc_auth"];
/** Ten digits: the largest number Harbor's UI (and so its API) takes for the durations below. */
const MAX_DURATION = 9_999_999_999;
const DURATIONS = ["token_expiration", "robot_token_duration", "session_timeout"];

export type ConfigValue = string | number | boolean;

export class ConfigStore {
  readonly #world: World;
  readonly #values = new Map<string, ConfigValue>();
  /** Started with CONFIG_OVERWRITE_JSON: nothing is editable through the API. */
  fixed = false;
  auditEndpointReachable = true;
  allowlist: { id: number; items: Array<{ cve_id: string }>; expires_at?: number } = { id: 0, items: [] };

  constructor(world: World) {
    this.#world = world;
    for (const [k, item] of Object.entries(CONFIG_ITEMS)) this.#values.set(k, item.default);
    this.allowlist.id = world.ids.next("cve_allowlist");
  }

  get(key: string): ConfigValue {
    const ldap = this.#world.ldap;
    switch (key) {
      case "auth_mode":
        return `${ldap.authMode}_auth`;
      case "ldap_url":
        return ldap.config.url;
      case "ldap_base_dn":
        return ldap.config.baseDn;
      case "ldap_search_dn":
        return ldap.config.searchDn;
      case "ldap_group_base_dn":
        return ldap.config.groupBaseDn;
      case "ldap_verify_cert":
        return ldap.config.verifyCert;
      case "ldap_search_password":
        return ldap.config.searchPassword;
      default:
        return this.#values.get(key) ?? "";
    }
  }

  get robotPrefix(): string {
    return String(this.get("robot_name_prefix"));
  }

  /** Whether the auth mode may change: no user but admin exists. */
  authModeEditable(): boolean {
    return this.#world.identities.all().every((u) => u.user_id === 1);
  }

  /** GET's view: every item of the release but passwords, as {value, editable}. */
  view(): Record<string, { value: ConfigValue; editable: boolean }> {
    const out: Record<string, { value: ConfigValue; editable: boolean }> = {};
    for (const [k, item] of Object.entries(configItems(this.#world.version))) {
      if (item.type === "password") continue;
      out[k] = { value: this.get(k), editable: !this.fixed };
    }
    const auth = out.auth_mode;
    if (auth) auth.editable = !this.fixed && this.authModeEditable();
    return out;
  }

  /**
   * Harbor's PUT of a decoded Configurations model (keys outside it are gone, null ones are left
   * out): checks everything first, then stores all of it.
   */
  update(change: Record<string, unknown>): void {
    if (this.fixed) {
      throw forbidden("current config is init by env variable: CONFIG_OVERWRITE_JSON, it cannot be updated");
    }
    const items = configItems(this.#world.version);
    const parsed = new Map<string, ConfigValue>();
    for (const [k, raw] of Object.entries(change)) {
      if (raw === null || raw === undefined) continue;
      const item = items[k];
      // The control API's own callers pass plain maps: the model has no such field.
      if (!item) continue;
      parsed.set(k, parseValue(k, item, raw));
    }
    const mode = parsed.get("auth_mode");
    if (mode !== undefined && mode !== this.get("auth_mode") && !this.authModeEditable()) {
      throw badRequest("the auth mode cannot be modified as new users have been inserted into database");
    }
    for (const k of DURATIONS) {
      const v = parsed.get(k);
      if (v === undefined) continue;
      if (Number(v) <= 0) throw badRequest(`the ${k} value must be positive`);
      if (Number(v) > MAX_DURATION)
        throw badRequest(`the ${k} value is over the limit value: ${MAX_DURATION}`);
    }
    if (parsed.has("skip_audit_log_database") || parsed.has("audit_log_forward_endpoint")) {
      const skip = parsed.get("skip_audit_log_database") ?? this.get("skip_audit_log_database");
      const endpoint = parsed.get("audit_log_forward_endpoint") ?? this.get("audit_log_forward_endpoint");
      if (skip === true && endpoint === "") {
        throw badRequest(
          "audit log forward endpoint should be configured before enable skip audit log in database",
        );
      }
    }
    const endpoint = parsed.get("audit_log_forward_endpoint");
    for (const [k, v] of parsed) this.#set(k, v);
    if (typeof endpoint === "string" && endpoint !== "" && !this.auditEndpointReachable) {
      // Harbor stores the configuration first, then finds the endpoint dead.
      throw badRequest(`could not connect to the audit endpoint: ${endpoint}`);
    }
  }

  #set(key: string, value: ConfigValue): void {
    const ldap = this.#world.ldap;
    switch (key) {
      case "auth_mode":
        ldap.authMode = String(value).replace(/_auth$/, "") as AuthMode;
        return;
      case "ldap_url":
        ldap.configure({ url: String(value) });
        return;
      case "ldap_base_dn":
        ldap.configure({ baseDn: String(value) });
        return;
      case "ldap_search_dn":
        ldap.configure({ searchDn: String(value) });
        return;
      case "ldap_group_base_dn":
        ldap.configure({ groupBaseDn: String(value) });
        return;
      case "ldap_verify_cert":
        ldap.configure({ verifyCert: value === true });
        return;
      case "ldap_search_password":
        ldap.configure({ searchPassword: String(value) });
        return;
      case "robot_name_prefix":
        this.#values.set(key, value);
        this.#world.robots.renamePrefix(String(value));
        return;
      default:
        this.#values.set(key, value);
    }
  }
}

/** A value as Harbor reads it: Go's %v of the JSON value, checked by the item's type. */
function parseValue(key: string, item: Item, raw: unknown): ConfigValue {
  const text = typeof raw === "string" ? raw : raw === null ? "" : JSON.stringify(raw);
  const fail = (why: string) => badRequest(`${key}: ${why}`);
  switch (item.type) {
    case "bool":
      if (typeof raw === "boolean") return raw;
      if (["true", "1", "t", "T", "TRUE", "True"].includes(text)) return true;
      if (["false", "0", "f", "F", "FALSE", "False"].includes(text)) return false;
      throw fail(`strconv.ParseBool: parsing "${text}": invalid syntax`);
    case "int":
    case "quota":
    case "ldapScope": {
      if (!/^-?\d+(\.0+)?$/.test(text)) throw fail(`strconv.Atoi: parsing "${text}": invalid syntax`);
      const n = Math.trunc(Number(text));
      if (item.type === "ldapScope" && ![0, 1, 2].includes(n))
        throw fail("invalid scope, should be 0, 1 or 2");
      if (item.type === "quota" && n <= 0 && n !== -1)
        throw fail("quota value should be -1 or great than zero");
      return n;
    }
    case "authMode":
      if (!AUTH_MODES.includes(text))
        throw fail("invalid auth_mode, shoud be one of db_auth, ldap_auth, uaa_auth, http_auth, oidc_auth");
      return text;
    case "restriction":
      if (text !== "adminonly" && text !== "everyone")
        throw fail("invalid project_creation_restriction, should be adminonly or everyone");
      return text;
    case "nonEmpty":
      if (text.trim() === "") throw fail("string value is empty");
      return text;
    case "stringMap":
      try {
        const m = JSON.parse(text);
        if (typeof m !== "object" || m === null || Array.isArray(m)) throw new Error();
        if (Object.values(m).some((v) => typeof v !== "string")) throw new Error();
      } catch {
        throw fail("not a JSON object of strings");
      }
      return text;
    default:
      return text;
  }
}

const CVEAllowlistBody = z
  .object({
    id: z.number().int().nullish(),
    project_id: z.number().int().nullish(),
    expires_at: z.number().int().nullish(),
    items: z.array(z.object({ cve_id: z.string().nullish() }).meta({ goType: "CVEAllowlistItem" })).nullish(),
    creation_time: z.string().nullish(),
    update_time: z.string().nullish(),
  })
  .meta({ goType: "CVEAllowlist" });

const routes: RouteSpec[] = [
  {
    op: "getConfigurations",
    method: "GET",
    path: "/configurations",
    handle(ctx) {
      requireSystem(ctx, "configuration", "read");
      return ok(ctx.world.config.view());
    },
  },
  {
    op: "updateConfigurations",
    method: "PUT",
    path: "/configurations",
    body: { name: "configurations", schema: ConfigurationsBody },
    handle(ctx) {
      requireSystem(ctx, "configuration", "update");
      ctx.world.config.update(ctx.body as Record<string, unknown>);
      auditWrite(ctx, {
        project_id: 0,
        resource: "configuration",
        resource_type: "configuration",
        operation: "update",
      });
      return ok();
    },
  },
  {
    op: "getSystemCVEAllowlist",
    method: "GET",
    path: "/system/CVEAllowlist",
    handle(ctx) {
      requireAuthenticated(ctx);
      const a = ctx.world.config.allowlist;
      return ok({
        id: a.id,
        project_id: 0,
        items: a.items,
        ...(a.expires_at === undefined ? {} : { expires_at: a.expires_at }),
      });
    },
  },
  {
    op: "putSystemCVEAllowlist",
    method: "PUT",
    path: "/system/CVEAllowlist",
    body: { name: "allowlist", schema: CVEAllowlistBody },
    handle(ctx) {
      requireSystem(ctx, "configuration", "update");
      const body = ctx.body as z.output<typeof CVEAllowlistBody>;
      const items: Array<{ cve_id: string }> = [];
      for (const it of body.items ?? []) {
        const id = (it.cve_id ?? "").trim();
        if (id === "") continue;
        if (!items.some((x) => x.cve_id === id)) items.push({ cve_id: id });
      }
      const store = ctx.world.config;
      store.allowlist = {
        id: store.allowlist.id,
        items,
        ...(body.expires_at === undefined || body.expires_at === null ? {} : { expires_at: body.expires_at }),
      };
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** As if Harbor were started with CONFIG_OVERWRITE_JSON: every item not editable, PUT 403. */
    fixByEnvironment(fixed = true): void {
      world.config.fixed = fixed;
    },
    /** Whether a new audit-log forwarding endpoint answers (default true). */
    setAuditEndpointReachable(reachable: boolean): void {
      world.config.auditEndpointReachable = reachable;
    },
    /** A stored value (passwords included, for tests that check what was written). */
    get(key: string): ConfigValue {
      return world.config.get(key);
    },
  }),
});
