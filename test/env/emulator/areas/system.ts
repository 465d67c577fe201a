// The system area: /systeminfo (anonymous callers see a subset, as in Harbor: up to 2.12 with the
// version, from 2.13 without it: only auth mode, banner and self-registration) and /users/current
// (401 for anonymous callers, 412 for robots, which have no user record). The settings systeminfo
// shows are the configurations area's, so systeminfo, configurations, LDAP ping and user groups
// always agree.
import { requireAuthenticated } from "../auth.ts";
import { precondition } from "../errors.ts";
import { ok, type RouteSpec } from "../router.ts";
import { refusalPatchDisplay } from "../version.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { AuthMode } from "./ldap.ts";

interface SystemState {
  harborVersion: string;
}

// The World holds the stores of every area; this area's few settings hang off it here instead.
const states = new WeakMap<World, SystemState>();

function state(world: World): SystemState {
  let s = states.get(world);
  if (!s) {
    s = {
      harborVersion:
        world.settings.webhookPrivateAddresses === "refuse"
          ? refusalPatchDisplay(world.version)
          : world.version.display,
    };
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
      const config = ctx.world.config;
      const open = {
        auth_mode: authModeName(ctx.world.ldap.authMode),
        primary_auth_mode: config.get("primary_auth_mode"),
        self_registration: config.get("self_registration"),
        harbor_version: s.harborVersion,
        banner_message: config.get("banner_message"),
        // A pointer Harbor always sets: "" when OIDC is not the auth mode or has no provider name.
        oidc_provider_name: "",
      };
      if (ctx.caller.kind === "anonymous") {
        if (!ctx.world.version.has("systemInfoVersionAuthenticated")) return ok(open);
        const { harbor_version: _hidden, ...anonymous } = open;
        return ok(anonymous);
      }
      // The registry answers where Harbor does: its external URL without the scheme.
      const host = (Array.isArray(ctx.headers.host) ? ctx.headers.host[0] : ctx.headers.host) ?? ctx.url.host;
      return ok({
        ...open,
        current_time: ctx.world.nowText(),
        registry_url: host,
        external_url: `http://${host}`,
        project_creation_restriction: config.get("project_creation_restriction"),
        has_ca_root: false,
        read_only: config.get("read_only"),
        registry_storage_provider_name: "filesystem",
        notification_enable: config.get("notification_enable"),
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
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * The version systeminfo reports (only the text: what the emulator models is chosen at start,
     * see version.ts). Default "v<release>-<8 hex>", e.g. "v2.15.2-e15a2c0e".
     */
    setVersion(version: string): void {
      state(world).harborVersion = version;
    },
    setSelfRegistration(enabled: boolean): void {
      world.config.update({ self_registration: enabled });
    },
    setReadOnly(readOnly: boolean): void {
      world.config.update({ read_only: readOnly });
    },
  }),
});
