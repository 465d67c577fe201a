// HarborConfiguration's pure mappings: the settings a spec sets, as Harbor's configuration keys and
// values; which of them differ from Harbor's (field by field); which hold a value other than
// Harbor's default (someone's setting, until adopted); and what status shows.
import { createHash } from "node:crypto";
import { HarborConfigurationSpec, type HarborConfigurationStatus } from "../../api/configuration.ts";
import { formatStorage, storageBytes } from "../../api/quantity.ts";
import type { Configurations, CveAllowlist } from "../../harbor/system.ts";
import { safeText } from "../../kube/text.ts";
import type { ReleaseField } from "../shared/release-fields.ts";

export interface ObservedConfiguration {
  config: Configurations;
  allowlist: CveAllowlist;
}

/** The Secret-held values prepare read: Harbor never shows them back. */
/** A Secret-held setting's value and the resourceVersion of the Secret it was read from. */
export interface SecretSetting {
  value: string;
  version: string;
}

export interface ConfigurationSecrets {
  ldapBindPassword?: SecretSetting;
  oidcClientSecret?: SecretSetting;
}

type Value = string | number | boolean;
type Key = keyof Configurations;

/** One setting the spec sets: its spec field, Harbor's key, the value, and how values compare. */
export interface Setting {
  field: string;
  key: Key;
  value: Value;
  /** Harbor's default: a setting holding anything else was set by someone. */
  default: Value;
  /** Compares as JSON (banner, OIDC redirect parameters): key order and spacing do not count. */
  json?: boolean;
  /** Compares as a comma list: order, blanks and repeats do not count. */
  list?: boolean;
}

const SCOPES = { Base: 0, OneLevel: 1, Subtree: 2 } as const;

/** The banner as Harbor's UI stores it: a JSON object in a string. */
export function bannerText(b: NonNullable<HarborConfigurationSpec["banner"]>): string {
  return JSON.stringify({
    closable: b.closable,
    message: b.message,
    type: b.type,
    ...(b.fromDate === undefined ? {} : { fromDate: b.fromDate }),
    ...(b.toDate === undefined ? {} : { toDate: b.toDate }),
  });
}

/** Every setting the spec sets (Secret-held ones aside), in a stable order. */
export function settings(spec: HarborConfigurationSpec): Setting[] {
  const out: Setting[] = [];
  const add = (
    field: string,
    key: Key,
    value: Value | undefined,
    dflt: Value,
    compare?: { json?: true; list?: true },
  ) => {
    if (value !== undefined) out.push({ field, key, value, default: dflt, ...compare });
  };
  const a = spec.auth;
  add("auth.mode", "auth_mode", a?.mode, "db_auth");
  const l = a?.ldap;
  add("auth.ldap.url", "ldap_url", l?.url, "");
  add("auth.ldap.searchDn", "ldap_search_dn", l?.searchDn, "");
  add("auth.ldap.baseDn", "ldap_base_dn", l?.baseDn, "");
  add("auth.ldap.filter", "ldap_filter", l?.filter, "");
  add("auth.ldap.uid", "ldap_uid", l?.uid, "cn");
  add("auth.ldap.scope", "ldap_scope", l?.scope === undefined ? undefined : SCOPES[l.scope], 2);
  add("auth.ldap.timeoutSeconds", "ldap_timeout", l?.timeoutSeconds, 5);
  add("auth.ldap.verifyCert", "ldap_verify_cert", l?.verifyCert, true);
  add("auth.ldap.groupBaseDn", "ldap_group_base_dn", l?.groupBaseDn, "");
  add("auth.ldap.groupSearchFilter", "ldap_group_search_filter", l?.groupSearchFilter, "");
  add("auth.ldap.groupAttributeName", "ldap_group_attribute_name", l?.groupAttributeName, "");
  add(
    "auth.ldap.groupSearchScope",
    "ldap_group_search_scope",
    l?.groupSearchScope === undefined ? undefined : SCOPES[l.groupSearchScope],
    2,
  );
  add("auth.ldap.groupAdminDn", "ldap_group_admin_dn", l?.groupAdminDn, "");
  add(
    "auth.ldap.groupMembershipAttribute",
    "ldap_group_membership_attribute",
    l?.groupMembershipAttribute,
    "memberof",
  );
  const o = a?.oidc;
  add("auth.oidc.name", "oidc_name", o?.name, "");
  add("auth.oidc.endpoint", "oidc_endpoint", o?.endpoint, "");
  add("auth.oidc.clientId", "oidc_client_id", o?.clientId, "");
  add("auth.oidc.groupsClaim", "oidc_groups_claim", o?.groupsClaim, "");
  add("auth.oidc.adminGroup", "oidc_admin_group", o?.adminGroup, "");
  add("auth.oidc.groupFilter", "oidc_group_filter", o?.groupFilter, "");
  add("auth.oidc.scope", "oidc_scope", o?.scope, "");
  add("auth.oidc.userClaim", "oidc_user_claim", o?.userClaim, "");
  add("auth.oidc.verifyCert", "oidc_verify_cert", o?.verifyCert, true);
  add("auth.oidc.autoOnboard", "oidc_auto_onboard", o?.autoOnboard, false);
  add("auth.oidc.logout", "oidc_logout", o?.logout, false);
  add(
    "auth.oidc.extraRedirectParams",
    "oidc_extra_redirect_parms",
    o?.extraRedirectParams === undefined ? undefined : JSON.stringify(o.extraRedirectParams),
    "{}",
    { json: true },
  );
  const u = a?.uaa;
  add("auth.uaa.endpoint", "uaa_endpoint", u?.endpoint, "");
  add("auth.uaa.clientId", "uaa_client_id", u?.clientId, "");
  add("auth.uaa.verifyCert", "uaa_verify_cert", u?.verifyCert, false);
  const h = a?.http;
  add("auth.http.endpoint", "http_authproxy_endpoint", h?.endpoint, "");
  add("auth.http.tokenReviewEndpoint", "http_authproxy_tokenreview_endpoint", h?.tokenReviewEndpoint, "");
  add("auth.http.adminGroups", "http_authproxy_admin_groups", h?.adminGroups?.join(","), "");
  add("auth.http.adminUsernames", "http_authproxy_admin_usernames", h?.adminUsernames?.join(","), "");
  add("auth.http.verifyCert", "http_authproxy_verify_cert", h?.verifyCert, true);
  add("auth.http.skipSearch", "http_authproxy_skip_search", h?.skipSearch, false);
  add("auth.http.serverCertificate", "http_authproxy_server_certificate", h?.serverCertificate, "");
  add("robotNamePrefix", "robot_name_prefix", spec.robotNamePrefix, "robot$");
  add("robotTokenDurationDays", "robot_token_duration", spec.robotTokenDurationDays, 30);
  add("tokenExpirationMinutes", "token_expiration", spec.tokenExpirationMinutes, 30);
  add(
    "projectCreationRestriction",
    "project_creation_restriction",
    spec.projectCreationRestriction,
    "everyone",
  );
  add("readOnly", "read_only", spec.readOnly, false);
  add(
    "storagePerProject",
    "storage_per_project",
    spec.storagePerProject === undefined ? undefined : storageBytes(spec.storagePerProject),
    -1,
  );
  add("auditLog.forwardEndpoint", "audit_log_forward_endpoint", spec.auditLog?.forwardEndpoint, "");
  add("auditLog.skipDatabase", "skip_audit_log_database", spec.auditLog?.skipDatabase, false);
  add(
    "auditLog.disabledEventTypes",
    "disabled_audit_log_event_types",
    spec.auditLog?.disabledEventTypes === undefined ? undefined : listText(spec.auditLog.disabledEventTypes),
    "",
    { list: true },
  );
  add("banner", "banner_message", spec.banner === undefined ? undefined : bannerText(spec.banner), "", {
    json: true,
  });
  return out;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every(
      (k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** A comma list as compared and sent: sorted, without blanks or repeats. */
function listText(items: readonly string[]): string {
  return [...new Set(items.map((i) => i.trim()).filter((i) => i !== ""))].sort().join(",");
}

function equal(s: Setting, current: Value | null | undefined): boolean {
  // A key the release does not have holds its default: a spec asking for that is met (the value a
  // release without the key behaves by), and anything else is refused before (release-fields.ts).
  if (current === undefined) return s.value === s.default;
  if (s.json) return sameJson(parsed(String(s.value)), parsed(String(current ?? "")));
  if (s.list) return listText(String(s.value).split(",")) === listText(String(current ?? "").split(","));
  return current === s.value;
}

/**
 * Spec fields only some Harbor releases have; false and [] are what an older Harbor does anyway
 * (see shared/release-fields.ts).
 */
export const CONFIGURATION_RELEASE_FIELDS: readonly ReleaseField<HarborConfigurationSpec>[] = [
  { field: "auth.oidc.logout", change: "auditLogConfiguration", uses: (s) => s.auth?.oidc?.logout === true },
  {
    field: "auditLog.disabledEventTypes",
    change: "auditLogConfiguration",
    uses: (s) => (s.auditLog?.disabledEventTypes?.length ?? 0) > 0,
  },
];

const itemOf = (observed: ObservedConfiguration, key: Key) =>
  observed.config[key] as { value?: Value | null; editable?: boolean } | undefined;

/** The settings whose Harbor value differs from the spec's. */
export function changedSettings(spec: HarborConfigurationSpec, observed: ObservedConfiguration): Setting[] {
  return settings(spec).filter((s) => !equal(s, itemOf(observed, s.key)?.value));
}

/** Of the changed settings, those Harbor reports as not editable. */
export function notEditable(changed: Setting[], observed: ObservedConfiguration): Setting[] {
  return changed.filter((s) => itemOf(observed, s.key)?.editable === false);
}

/** Expiry as Harbor keeps it: Unix seconds, or undefined for never. */
export function expirySeconds(expiresAt: string | undefined): number | undefined {
  return expiresAt === undefined ? undefined : Math.floor(Date.parse(expiresAt) / 1000);
}

function allowlistItems(a: CveAllowlist): string[] {
  return (a.items ?? []).map((i) => i.cve_id ?? "").filter((x) => x !== "");
}

/** Whether the system CVE allowlist differs from the spec's (order of ids does not count). */
export function allowlistDiffers(spec: HarborConfigurationSpec, observed: ObservedConfiguration): boolean {
  const want = spec.cveAllowlist;
  if (!want) return false;
  const have = allowlistItems(observed.allowlist);
  const wantItems = [...new Set(want.items)];
  const sameItems = have.length === wantItems.length && wantItems.every((i) => have.includes(i));
  const haveExpiry = observed.allowlist.expires_at ?? undefined;
  return !sameItems || (haveExpiry || undefined) !== expirySeconds(want.expiresAt);
}

/** The spec fields of Secret-held settings and their Harbor keys. */
export const SECRET_SETTINGS = [
  { name: "ldapBindPassword", field: "auth.ldap.bindPasswordSecretRef", key: "ldap_search_password" },
  { name: "oidcClientSecret", field: "auth.oidc.clientSecretSecretRef", key: "oidc_client_secret" },
] as const;

/**
 * What earlier releases recorded in status.writtenSecrets: a hash of the value, bound to the
 * resource. Read once more to take such a record as written (no write after an upgrade), then
 * replaced by the Secret's resourceVersion: nothing derived from a secret value stays in status.
 */
export function legacySecretHash(uid: string, name: string, value: string): string {
  return createHash("sha256").update(`${uid}\0${name}\0${value}`).digest("hex").slice(0, 32);
}

/** Whether the recorded entry says this value was written: the Secret's version, or the legacy hash. */
function recorded(uid: string, name: string, got: SecretSetting, entry: string | undefined): boolean {
  return entry !== undefined && (entry === got.version || entry === legacySecretHash(uid, name, got.value));
}

/** The Secret-held settings whose Secret was not written from yet (or has changed since). */
export function changedSecrets(
  uid: string,
  secrets: ConfigurationSecrets,
  written: Record<string, string> | undefined,
): Array<(typeof SECRET_SETTINGS)[number] & { value: string }> {
  return SECRET_SETTINGS.flatMap((s) => {
    const got = secrets[s.name];
    if (got === undefined || recorded(uid, s.name, got, written?.[s.name])) return [];
    return [{ ...s, value: got.value }];
  });
}

/** The spec fields that differ, e.g. "robotNamePrefix", "cveAllowlist", "auth.ldap.bindPasswordSecretRef". */
export function diff(
  spec: HarborConfigurationSpec,
  observed: ObservedConfiguration,
  uid: string,
  secrets: ConfigurationSecrets,
  written: Record<string, string> | undefined,
): string[] {
  return [
    ...changedSettings(spec, observed).map((s) => s.field),
    ...(allowlistDiffers(spec, observed) ? ["cveAllowlist"] : []),
    ...changedSecrets(uid, secrets, written).map((s) => s.field),
  ];
}

/** The settings the spec sets that Harbor holds at other than its default: someone's, until adopted. */
export function heldSettings(spec: HarborConfigurationSpec, observed: ObservedConfiguration): string[] {
  const held = settings(spec)
    .filter((s) => !equal({ ...s, value: s.default }, itemOf(observed, s.key)?.value))
    .map((s) => s.field);
  if (spec.cveAllowlist && (allowlistItems(observed.allowlist).length > 0 || observed.allowlist.expires_at))
    held.push("cveAllowlist");
  return held;
}

/** The PUT that puts the system settings the spec sets back to Harbor's defaults (deletion). */
export function resetChange(spec: HarborConfigurationSpec): Record<string, Value> {
  return Object.fromEntries(
    settings(spec)
      .filter((s) => !s.field.startsWith("auth."))
      .map((s) => [s.key, s.default]),
  );
}

export function status(
  observed: ObservedConfiguration,
  secrets: ConfigurationSecrets,
  previous: Record<string, string> | undefined,
  /** Which Secret-held settings the spec still sets: the others' records go. */
  referenced: ReadonlySet<string>,
): Partial<HarborConfigurationStatus> {
  const c = observed.config;
  // A value prepare did not read (a drift sweep) keeps the record written before; one read (the
  // Harbor was just written from it, or holds it already) records its Secret's version.
  const written = Object.fromEntries(
    SECRET_SETTINGS.flatMap((s) => {
      if (!referenced.has(s.name)) return [];
      const got = secrets[s.name];
      if (got !== undefined) return [[s.name, got.version]];
      const before = previous?.[s.name];
      return before === undefined ? [] : [[s.name, before]];
    }),
  );
  return {
    authMode: c.auth_mode?.value ? safeText(c.auth_mode.value, 64) : undefined,
    authModeEditable: c.auth_mode?.editable,
    robotNamePrefix: c.robot_name_prefix?.value ? safeText(c.robot_name_prefix.value, 64) : undefined,
    readOnly: c.read_only?.value ?? undefined,
    writtenSecrets: Object.keys(written).length ? written : undefined,
  };
}

export function describe(observed: ObservedConfiguration): string {
  const c = observed.config;
  return `auth ${c.auth_mode?.value ?? "?"}, robot prefix ${c.robot_name_prefix?.value ?? "?"}`;
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec, the inverse of `settings`

/** Spec field → its spec value for Harbor's value (the inverse of each setting's mapping). */
const INVERSE: Record<string, (v: Value) => unknown> = {
  "auth.ldap.scope": (v) => (["Base", "OneLevel", "Subtree"] as const)[Number(v)],
  "auth.ldap.groupSearchScope": (v) => (["Base", "OneLevel", "Subtree"] as const)[Number(v)],
  "auth.oidc.extraRedirectParams": (v) => JSON.parse(String(v)),
  "auth.http.adminGroups": (v) => String(v).split(",").filter(Boolean),
  "auth.http.adminUsernames": (v) => String(v).split(",").filter(Boolean),
  "auditLog.disabledEventTypes": (v) => listText(String(v).split(",")).split(",").filter(Boolean),
  storagePerProject: (v) => formatStorage(Number(v)),
  banner: (v) => JSON.parse(String(v)),
};

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let at = target;
  for (const p of parts.slice(0, -1)) {
    at[p] ??= {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1] as string] = value;
}

/** A spec that sets every field of all settings, to learn each one's key and default. */
const EVERY_FIELD = HarborConfigurationSpec.parse({
  connectionRef: { name: "x" },
  auth: {
    mode: "db_auth",
    ldap: {
      url: "x",
      searchDn: "x",
      baseDn: "x",
      filter: "x",
      uid: "x",
      scope: "Base",
      timeoutSeconds: 1,
      verifyCert: true,
      groupBaseDn: "x",
      groupSearchFilter: "x",
      groupAttributeName: "x",
      groupSearchScope: "Base",
      groupAdminDn: "x",
      groupMembershipAttribute: "x",
    },
    oidc: {
      name: "x",
      endpoint: "https://x",
      clientId: "x",
      groupsClaim: "x",
      adminGroup: "x",
      groupFilter: "x",
      scope: "x",
      userClaim: "x",
      verifyCert: true,
      autoOnboard: true,
      logout: true,
      extraRedirectParams: {},
    },
    uaa: { endpoint: "https://x", clientId: "x", verifyCert: true },
    http: {
      endpoint: "https://x",
      tokenReviewEndpoint: "https://x",
      adminGroups: ["x"],
      adminUsernames: ["x"],
      verifyCert: true,
      skipSearch: true,
      serverCertificate: "x",
    },
  },
  robotNamePrefix: "x$",
  robotTokenDurationDays: 1,
  tokenExpirationMinutes: 1,
  projectCreationRestriction: "everyone",
  readOnly: true,
  storagePerProject: "1",
  auditLog: { forwardEndpoint: "x", skipDatabase: false, disabledEventTypes: ["x"] },
  banner: { message: "x" },
});

/**
 * The spec that reproduces Harbor's configuration: every setting Harbor holds at other than its
 * default (the rest is left unmanaged), and the system CVE allowlist when it holds anything.
 * Undefined when everything is at Harbor's defaults. Secret-held settings are never shown by
 * Harbor: they are left out, with a note.
 */
export function specFromConfiguration(
  observed: ObservedConfiguration,
): { spec: Record<string, unknown>; notes: string[] } | undefined {
  const spec: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const s of settings(EVERY_FIELD)) {
    const current = itemOf(observed, s.key)?.value;
    if (current === undefined || current === null || equal({ ...s, value: s.default }, current)) continue;
    let value: unknown = current;
    try {
      value = INVERSE[s.field]?.(current) ?? current;
    } catch {
      notes.push(`${s.field} is left unmanaged: Harbor holds a value the spec cannot express`);
      continue;
    }
    const candidate = {};
    setPath(candidate, s.field, value);
    const parsed = HarborConfigurationSpec.safeParse({ connectionRef: { name: "x" }, ...candidate });
    const back = parsed.success ? settings(parsed.data).find((x) => x.key === s.key) : undefined;
    if (!back || !equal(back, current)) {
      notes.push(`${s.field} is left unmanaged: Harbor holds a value the spec cannot express`);
      continue;
    }
    setPath(spec, s.field, value);
  }
  const items = allowlistItems(observed.allowlist);
  const expires = observed.allowlist.expires_at;
  if (items.length || expires) {
    spec.cveAllowlist = {
      items: [...new Set(items)].sort(),
      ...(expires ? { expiresAt: new Date(expires * 1000).toISOString().replace(/\.\d+Z$/, "Z") } : {}),
    };
  }
  if (Object.keys(spec).length === 0) return undefined;
  const auth = spec.auth as { mode?: string; ldap?: object; oidc?: object } | undefined;
  if (auth?.ldap || auth?.mode === "ldap_auth")
    notes.push(
      "the LDAP bind password is not exported (Harbor never shows it): add auth.ldap.bindPasswordSecretRef to manage it",
    );
  if (auth?.oidc || auth?.mode === "oidc_auth")
    notes.push(
      "the OIDC client secret is not exported (Harbor never shows it): add auth.oidc.clientSecretSecretRef to manage it",
    );
  return { spec, notes };
}
