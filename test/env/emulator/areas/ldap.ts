// A simulated LDAP directory behind ping, user and group search and user import, plus the system's
// authentication mode (db, ldap, http, oidc), which decides ping's password fallback and which user
// groups are listed and may be created.
//
// One configuration describes both the directory and Harbor's stored LDAP settings: the directory
// answers at its URL, and binds succeed only with its search DN and password. A ping against any
// other URL, or any call while the server is made unreachable, fails the way a dead network does.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { BareError, internal, notFound } from "../errors.ts";
import { ok, type Reply, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export type AuthMode = "db" | "ldap" | "http" | "oidc";

export interface LdapServerConfig {
  /** Where the directory answers, e.g. ldap://ldap.example.com (port 389 implied). */
  url: string;
  baseDn: string;
  searchDn: string;
  searchPassword: string;
  /** Where groups live; the base DN when empty. */
  groupBaseDn: string;
  verifyCert: boolean;
  /** False makes the server unreachable. */
  reachable: boolean;
  /** False makes TLS verification fail for ldaps URLs pinged with verify_cert. */
  certTrusted: boolean;
}

export interface LdapUserEntry {
  uid: string;
  dn: string;
  realname: string;
  email: string;
  /** The directory password, which the Harbor user created by an import gets. */
  password: string;
}

export interface LdapGroupEntry {
  name: string;
  dn: string;
}

/** The parts of LdapConf that ping uses. */
export interface LdapPingConf {
  ldap_url?: string | null;
  ldap_search_dn?: string | null;
  ldap_search_password?: string | null;
  ldap_verify_cert?: boolean | null;
}

/** A failed operation against the directory; Harbor turns these into 500s or ping messages. */
class DirectoryError extends Error {}

const DEFAULT_CONFIG: LdapServerConfig = {
  url: "ldap://ldap.example.com",
  baseDn: "dc=example,dc=com",
  searchDn: "cn=admin,dc=example,dc=com",
  searchPassword: "ldap-admin-password",
  groupBaseDn: "ou=groups,dc=example,dc=com",
  verifyCert: true,
  reachable: true,
  certTrusted: true,
};

/**
 * A DN in the canonical form used for comparisons (attribute types and values lower-cased, spaces
 * around separators dropped), or undefined when it is not valid DN syntax. "" is the valid root DN.
 */
export function canonicalDn(dn: string): string | undefined {
  if (dn.trim() === "") return "";
  const rdns = dn.split(/(?<!\\),/);
  const out: string[] = [];
  for (const rdn of rdns) {
    const eq = rdn.indexOf("=");
    if (eq < 0) return undefined;
    const type = rdn.slice(0, eq).trim();
    const value = rdn.slice(eq + 1).trim();
    if (!/^(?:[A-Za-z][\w-]*|\d+(?:\.\d+)*)$/.test(type) || value === "") return undefined;
    out.push(`${type.toLowerCase()}=${value.toLowerCase()}`);
  }
  return out.join(",");
}

/** True when `child` equals `base` or lies below it. */
function underDn(base: string, child: string): boolean {
  return child === base || (base === "" ? child !== "" : child.endsWith(`,${base}`));
}

/**
 * Harbor's formatURL: ldap[s]://host[:port], the port defaulting by scheme. It first runs Go's
 * url.Parse, which refuses a scheme-less "10.0.0.1:389" (a colon in the first path segment), while
 * "ldap.example.com:389" passes (as scheme "ldap.example.com").
 */
function endpoint(url: string): string | undefined {
  let scheme = "ldap";
  let hostport = url;
  const sep = url.indexOf("://");
  if (sep < 0 && goParseRefuses(url)) return undefined;
  if (sep >= 0) {
    scheme = url.slice(0, sep);
    hostport = url.slice(sep + 3);
    if (scheme !== "ldap" && scheme !== "ldaps") return undefined;
  }
  if (hostport.includes(":")) {
    const port = hostport.split(":")[1] ?? "";
    if (!/^\d+$/.test(port)) return undefined;
    if (port === "636") scheme = "ldaps";
  } else hostport += scheme === "ldaps" ? ":636" : ":389";
  return `${scheme}://${hostport.toLowerCase()}`;
}

/** Go's url.Parse error "first path segment in URL cannot contain colon", for scheme-less input. */
function goParseRefuses(url: string): boolean {
  const colon = url.indexOf(":");
  if (colon < 0) return false;
  const firstSegmentEnd = url.search(/[/?#]/);
  if (firstSegmentEnd >= 0 && firstSegmentEnd < colon) return false;
  // What precedes the colon is read as a scheme when it is one (a letter, then letters, digits, +-.).
  return !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(url.slice(0, colon));
}

export class LdapStore {
  readonly #world: World;
  #config: LdapServerConfig = { ...DEFAULT_CONFIG };
  #authMode: AuthMode = "db";
  readonly #users = new Map<string, LdapUserEntry>();
  readonly #groups = new Map<string, LdapGroupEntry>();
  /** Emails taken by Harbor users this store knows of (Harbor keeps user emails unique). */
  readonly #takenEmails: Set<string>;

  constructor(world: World) {
    this.#world = world;
    this.#takenEmails = new Set([world.identities.admin.email.toLowerCase()]);
  }

  get world(): World {
    return this.#world;
  }

  get authMode(): AuthMode {
    return this.#authMode;
  }

  set authMode(mode: AuthMode) {
    this.#authMode = mode;
  }

  get config(): LdapServerConfig {
    return { ...this.#config };
  }

  configure(change: Partial<LdapServerConfig>): void {
    this.#config = { ...this.#config, ...change };
  }

  addUser(u: {
    uid: string;
    realname?: string;
    email?: string;
    dn?: string;
    password?: string;
  }): LdapUserEntry {
    const entry: LdapUserEntry = {
      uid: u.uid,
      dn: u.dn ?? `uid=${u.uid},ou=people,${this.#config.baseDn}`,
      realname: u.realname ?? u.uid,
      email: u.email ?? "",
      password: u.password ?? "",
    };
    this.#users.set(u.uid.toLowerCase(), entry);
    return entry;
  }

  addGroup(g: { name: string; dn?: string }): LdapGroupEntry {
    const dn = g.dn ?? `cn=${g.name},${this.#config.groupBaseDn || this.#config.baseDn}`;
    if (canonicalDn(dn) === undefined) throw new Error(`invalid DN syntax: ${dn}`);
    const entry = { name: g.name, dn };
    this.#groups.set(canonicalDn(dn) as string, entry);
    return entry;
  }

  /**
   * Harbor's LDAP test: the result and, on failure, the error text that follows "error: ". An empty
   * search password falls back to the configured one, but only in LDAP auth mode.
   */
  ping(conf: LdapPingConf): { success: boolean; message?: string } {
    let password = conf.ldap_search_password ?? "";
    if (password === "") {
      if (this.#authMode !== "ldap" || this.#config.searchPassword === "") {
        return { success: false, message: "error: empty password" };
      }
      password = this.#config.searchPassword;
    }
    const url = conf.ldap_url ?? "";
    const target = endpoint(url);
    if (target === undefined) return { success: false, message: "error: fail to ping LDAP server" };
    if (!this.#answers(target, conf.ldap_verify_cert ?? false)) {
      return { success: false, message: "error: ldap server network timeout" };
    }
    const searchDn = conf.ldap_search_dn ?? "";
    if (searchDn === "") return { success: false, message: "error: empty base dn" };
    if (!this.#binds(searchDn, password)) return { success: false, message: "error: invalid credential" };
    return { success: true };
  }

  /** Users whose uid equals `username` (any case), or every user for "", per the server config. */
  searchUsers(username: string): LdapUserEntry[] {
    this.#openSession();
    if (username === "") return [...this.#users.values()];
    const u = this.#users.get(username.toLowerCase());
    return u ? [u] : [];
  }

  /**
   * The directory's entry for this uid (any case), as Harbor's LDAP authenticator searches it when
   * it onboards a user; a directory failure is Harbor's masked 500.
   */
  directoryUser(uid: string): LdapUserEntry | undefined {
    return directory(() => this.searchUsers(uid)[0]);
  }

  /**
   * Imports directory users as Harbor users (source "ldap"). Users who already exist count as
   * imported. Returns the failures: empty_uid, unknown_user, or "failed to import user: <uid>"
   * when the entry cannot be stored: outside LDAP auth mode (onboarding goes through the current
   * authenticator, and the database one refuses), or because its email belongs to another Harbor
   * user (the admin or an earlier import).
   */
  importUsers(uids: string[]): Array<{ uid: string; error: string }> {
    this.#openSession();
    const failures: Array<{ uid: string; error: string }> = [];
    for (const uid of uids) {
      if (uid === "") {
        failures.push({ uid, error: "empty_uid" });
        continue;
      }
      const entry = this.#users.get(uid.toLowerCase());
      if (!entry) {
        failures.push({ uid, error: "unknown_user" });
        continue;
      }
      const identities = this.#world.identities;
      if (this.#authMode !== "ldap") {
        failures.push({ uid, error: `failed to import user: ${uid}` });
        continue;
      }
      if (identities.byName(entry.uid)) continue;
      const email = entry.email.toLowerCase();
      if (email !== "" && this.#takenEmails.has(email)) {
        failures.push({ uid, error: `failed to import user: ${uid}` });
        continue;
      }
      if (email !== "") this.#takenEmails.add(email);
      identities.add({
        username: entry.uid,
        password: entry.password,
        realname: entry.realname,
        email: entry.email,
        source: "ldap",
      });
    }
    return failures;
  }

  /**
   * Harbor's group search: by name (exact, any case) when a name is given, else by DN. At most one
   * group comes back. A DN outside the group base finds nothing; a malformed DN, or one under the
   * base that does not exist, is an error (Harbor answers 500).
   */
  searchGroups(groupName: string, groupDn: string): LdapGroupEntry[] {
    this.#openSession();
    const base = canonicalDn(this.#config.groupBaseDn || this.#config.baseDn) ?? "";
    if (groupName !== "") {
      const g = [...this.#groups.values()].find(
        (x) => x.name.toLowerCase() === groupName.toLowerCase() && underDn(base, canonicalDn(x.dn) ?? ""),
      );
      return g ? [g] : [];
    }
    if (groupDn === "") return [];
    const dn = canonicalDn(groupDn);
    if (dn === undefined) throw new DirectoryError(`invalid DN: ${groupDn}`);
    if (!underDn(base, dn)) return [];
    const g = this.#groups.get(dn);
    if (!g) throw new DirectoryError("entity not found");
    return [g];
  }

  /**
   * The LDAP group a user group of type 1 refers to, looked up the way Harbor's authenticator does:
   * only in LDAP auth mode, and any failure (bad syntax, unreachable server, no such group) counts
   * as "not found".
   */
  groupForUserGroup(groupDn: string): LdapGroupEntry | undefined {
    if (this.#authMode !== "ldap") return undefined;
    try {
      return this.searchGroups("", groupDn)[0];
    } catch {
      return undefined;
    }
  }

  #answers(target: string, verifyCert: boolean): boolean {
    if (!this.#config.reachable || target !== endpoint(this.#config.url)) return false;
    return !(target.startsWith("ldaps:") && verifyCert && !this.#config.certTrusted);
  }

  #binds(dn: string, password: string): boolean {
    return canonicalDn(dn) === canonicalDn(this.#config.searchDn) && password === this.#config.searchPassword;
  }

  /**
   * A session with the stored configuration, as search and import open one. The configuration is
   * the directory's own, so only reachability can make it fail.
   */
  #openSession(): void {
    const c = this.#config;
    const target = endpoint(c.url);
    if (target === undefined || !this.#answers(target, c.verifyCert)) {
      throw new DirectoryError("failed to connect to the LDAP server");
    }
  }
}

/** Directory failures surface as Harbor's masked 500. */
function directory<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DirectoryError) throw internal(e.message);
    throw e;
  }
}

const LdapConf = z
  .object({
    ldap_url: z.string().nullish(),
    ldap_search_dn: z.string().nullish(),
    ldap_search_password: z.string().nullish(),
    ldap_base_dn: z.string().nullish(),
    ldap_filter: z.string().nullish(),
    ldap_uid: z.string().nullish(),
    ldap_scope: z.number().int().nullish(),
    ldap_connection_timeout: z.number().int().nullish(),
    ldap_verify_cert: z.boolean().nullish(),
  })
  .meta({ goType: "LdapConf" });

const LdapImportUsers = z
  .object({ ldap_uid_list: z.array(z.string()).nullish() })
  .meta({ goType: "LdapImportUsers" });

const routes: RouteSpec[] = [
  {
    op: "pingLdap",
    method: "POST",
    path: "/ldap/ping",
    body: { name: "ldapconf", schema: LdapConf, optional: true },
    handle(ctx): Reply {
      requireSystem(ctx, "configuration", "read");
      // The handler reads the body without a nil check: no body is a recovered panic, a 500 with
      // no body at all.
      if (ctx.body === undefined) throw new BareError(500);
      const result = ctx.world.ldap.ping(ctx.body as z.output<typeof LdapConf>);
      // success is omitempty: a failed ping carries only the message.
      return ok(result.success ? { success: true } : { message: result.message });
    },
  },
  {
    op: "searchLdapUser",
    method: "GET",
    path: "/ldap/users/search",
    query: { username: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "ldap-user", "list");
      const users = directory(() =>
        ctx.world.ldap.searchUsers((ctx.query.username as string | undefined) ?? ""),
      );
      return ok(users.map((u) => ({ username: u.uid, realname: u.realname, email: u.email || undefined })));
    },
  },
  {
    op: "importLdapUser",
    method: "POST",
    path: "/ldap/users/import",
    body: { name: "uid_list", schema: LdapImportUsers },
    handle(ctx) {
      requireSystem(ctx, "ldap-user", "create");
      const uids = (ctx.body as z.output<typeof LdapImportUsers>).ldap_uid_list ?? [];
      const failures = directory(() => ctx.world.ldap.importUsers(uids));
      for (const uid of uids.filter((u) => u !== "" && !failures.some((f) => f.uid === u))) {
        auditWrite(ctx, { project_id: 0, resource: uid, resource_type: "user", operation: "create" });
      }
      if (failures.length === 0) return ok();
      return { status: 404, json: failures.map((f) => ({ uid: f.uid || undefined, error: f.error })) };
    },
  },
  {
    op: "searchLdapGroup",
    method: "GET",
    path: "/ldap/groups/search",
    query: { groupname: { type: "string" }, groupdn: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "ldap-user", "list");
      const name = (ctx.query.groupname as string | undefined) ?? "";
      const dn = (ctx.query.groupdn as string | undefined) ?? "";
      const groups = directory(() => ctx.world.ldap.searchGroups(name, dn));
      if (groups.length === 0) throw notFound(`resource not found: group name:${name}, group DN:${dn}`);
      return ok(groups.map((g) => ({ group_name: g.name, ldap_group_dn: g.dn })));
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * Changes the simulated server: where it answers (`url`), the base and group base DNs, the
     * search DN and password a bind needs, whether it is reachable, and whether its TLS
     * certificate passes verification. Returns the resulting configuration without the password.
     */
    configure(change: Partial<LdapServerConfig>): Omit<LdapServerConfig, "searchPassword"> {
      world.ldap.configure(change);
      const { searchPassword: _hidden, ...rest } = world.ldap.config;
      return rest;
    },
    /**
     * The system's authentication mode. "ldap" enables ping's password fallback and LDAP user
     * groups; list of user groups shows only LDAP groups in "ldap" mode, only HTTP groups in
     * "http" mode, all of them otherwise. Default "db".
     */
    setAuthMode(mode: AuthMode): void {
      world.ldap.authMode = mode;
    },
    /** Adds a directory user; the DN defaults to uid=<uid>,ou=people,<base DN>. */
    addUser(u: { uid: string; realname?: string; email?: string; dn?: string; password?: string }): {
      dn: string;
    } {
      return { dn: world.ldap.addUser(u).dn };
    },
    /** Adds a directory group; the DN defaults to cn=<name>,<group base DN>. */
    addGroup(g: { name: string; dn?: string }): { dn: string } {
      return { dn: world.ldap.addGroup(g).dn };
    },
  }),
});
