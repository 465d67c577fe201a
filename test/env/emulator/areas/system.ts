// The system area: /systeminfo (anonymous callers see a subset, as in Harbor), /users/current (401
// for anonymous callers, 412 for robots, which have no user record) and the read side of
// /configurations limited to the auth mode and the LDAP settings. The auth mode is the one the ldap
// area keeps, so systeminfo, configurations, LDAP ping and user groups always agree.
import { requireAuthenticated, requireSystem } from "../auth.ts";
import { precondition } from "../errors.ts";
import { ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { AuthMode } from "./ldap.ts";

interface SystemState {
  harborVersion: string;
  selfRegistration: boolean;
  readOnly: boolean;
}

// The World holds the stores of every area; this area's few settings hang off it here instead.
const states = new WeakMap<World, SystemState>();

function state(world: World): SystemState {
  let s = states.get(world);
  if (!s) {
    s = { harborVersion: world.version.display, selfRegistration: false, readOnly: false };
    states.set(world, s);
  }
  return s;
}

/** Harbor's names for the auth modes, as systeminfo and configurations print them. */
export function authModeName(mode: AuthMode): string {
  return `${mode}_auth`;
}

const routes: RouteSpec[] = [
  {
    op: "getSystemInfo",
    method: "GET",
    path: "/systeminfo",
    handle(ctx) {
      const s = state(ctx.world);
      const open = {
        auth_mode: authModeName(ctx.world.ldap.authMode),
        primary_auth_mode: false,
        self_registration: s.selfRegistration,
        harbor_version: s.harborVersion,
        banner_message: "",
        // A pointer Harbor always sets: "" when OIDC is not the auth mode or has no provider name.
        oidc_provider_name: "",
      };
      if (ctx.caller.kind === "anonymous") return ok(open);
      // The registry answers where Harbor does: its external URL without the scheme.
      const host = (Array.isArray(ctx.headers.host) ? ctx.headers.host[0] : ctx.headers.host) ?? ctx.url.host;
      return ok({
        ...open,
        current_time: ctx.world.nowText(),
        registry_url: host,
        external_url: `http://${host}`,
        project_creation_restriction: "everyone",
        has_ca_root: false,
        read_only: s.readOnly,
        registry_storage_provider_name: "filesystem",
        notification_enable: true,
      });
    },
  },
  {
    op: "getCurrentUserInfo",
    method: "GET",
    path: "/users/current",
    handle(ctx) {
      requireAuthenticated(ctx);
      const c = ctx.caller;
      if (c.kind !== "user") {
        throw precondition(`get current user not available for security context: ${c.kind}`);
      }
      const u = c.user;
      return ok({
        user_id: u.user_id,
        username: u.username,
        email: u.email,
        realname: u.realname,
        // Both flags are emitted even when false (x-omitempty: false).
        sysadmin_flag: u.sysadmin,
        admin_role_in_auth: false,
        creation_time: u.creation_time,
        update_time: u.creation_time,
      });
    },
  },
  {
    op: "getConfigurations",
    method: "GET",
    path: "/configurations",
    handle(ctx) {
      requireSystem(ctx, "configuration", "read");
      const ldap = ctx.world.ldap.config;
      const item = <T>(value: T) => ({ value, editable: true });
      return ok({
        auth_mode: item(authModeName(ctx.world.ldap.authMode)),
        self_registration: item(state(ctx.world).selfRegistration),
        ldap_url: item(ldap.url),
        ldap_search_dn: item(ldap.searchDn),
        ldap_base_dn: item(ldap.baseDn),
        ldap_group_base_dn: item(ldap.groupBaseDn),
        ldap_filter: item(""),
        ldap_uid: item("uid"),
        ldap_scope: item(2),
        ldap_timeout: item(5),
        ldap_verify_cert: item(ldap.verifyCert),
      });
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * The version systeminfo reports (only the text: what the emulator models is chosen at start,
     * see version.ts). Default "v<release>-emulator", e.g. "v2.12.4-emulator".
     */
    setVersion(version: string): void {
      state(world).harborVersion = version;
    },
    setSelfRegistration(enabled: boolean): void {
      state(world).selfRegistration = enabled;
    },
    setReadOnly(readOnly: boolean): void {
      state(world).readOnly = readOnly;
    },
  }),
});
