// Who is calling, and may they? Harbor's model, reduced to what the API surface needs:
// - basic auth: a username with the robot prefix is a robot, anything else a local user; wrong
//   credentials do not fail the request, they make the caller anonymous;
// - system-level resources need a sysadmin or a system robot holding the permission; refusal is
//   403 with the caller's username as the message;
// - project-level resources follow the built-in project roles, or the robot's own permissions;
//   refusal is 403 "forbidden"; an unknown project is 404 for admins and 403 for everyone else.
import type { IncomingHttpHeaders } from "node:http";
import type { ProjectRecord } from "./areas/projects.ts";
import type { RobotRecord } from "./areas/robots.ts";
import { forbidden, notFound, unauthorized } from "./errors.ts";
import type { UserRecord } from "./identities.ts";
import type { Ctx } from "./router.ts";
import type { World } from "./world.ts";

export const ROBOT_PREFIX = "robot$";

export type Caller =
  | { kind: "anonymous" }
  | { kind: "user"; user: UserRecord }
  | { kind: "robot"; robot: RobotRecord };

/**
 * Who the request's basic auth names, and how long Harbor takes to say so. As in Harbor's chain of
 * security generators, a robot name is tried as a robot first, without the login lock; a robot
 * that fails there (wrong secret, disabled, expired) falls through to the user login, which fails
 * too, locks the name and is answered after the freeze time.
 */
export function identify(world: World, headers: IncomingHttpHeaders): { caller: Caller; delayMs: number } {
  const anonymous = { caller: { kind: "anonymous" } as Caller, delayMs: 0 };
  const credentials = basicCredentials(headers);
  if (!credentials) return anonymous;
  const { name, secret } = credentials;
  if (name.startsWith(world.config.robotPrefix)) {
    const robot = world.robots.authenticate(name, secret);
    if (robot) return { caller: { kind: "robot", robot }, delayMs: 0 };
  }
  const login = world.identities.login(name, secret);
  return {
    caller: login.user ? { kind: "user", user: login.user } : { kind: "anonymous" },
    delayMs: login.delayMs,
  };
}

/** The name and secret of the request's basic auth, if it has one. */
export function basicCredentials(headers: IncomingHttpHeaders): { name: string; secret: string } | undefined {
  const header = headers.authorization;
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { name: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function callerName(c: Caller): string {
  if (c.kind === "user") return c.user.username;
  if (c.kind === "robot") return c.robot.fullName;
  return "anonymous";
}

export function isSysAdmin(c: Caller): boolean {
  return c.kind === "user" && c.user.sysadmin;
}

export function requireAuthenticated(ctx: Ctx): void {
  if (ctx.caller.kind === "anonymous") throw unauthorized();
}

/** RequireSystemAccess(action, resource). */
export function requireSystem(ctx: Ctx, resource: string, action: string): void {
  requireAuthenticated(ctx);
  const c = ctx.caller;
  if (isSysAdmin(c)) return;
  if (c.kind === "robot" && robotAllows(c.robot, "system", "/", resource, action)) return;
  throw forbidden(callerName(c));
}

export function canSystem(c: Caller, resource: string, action: string): boolean {
  return isSysAdmin(c) || (c.kind === "robot" && robotAllows(c.robot, "system", "/", resource, action));
}

/** Project roles, by Harbor's role ids. */
export const ROLES = {
  projectAdmin: 1,
  developer: 2,
  guest: 3,
  maintainer: 4,
  limitedGuest: 5,
} as const;
export type RoleName = keyof typeof ROLES;

const CRUDL = ["create", "read", "update", "delete", "list"];
const READ = ["read", "list"];
const REPO_RW = ["create", "read", "update", "delete", "list", "pull", "push"];

/** What each built-in role may do per project resource (the resources this API surface touches). */
const ROLE_POLICY: Record<number, Record<string, readonly string[]>> = {
  [ROLES.projectAdmin]: {
    project: ["read", "update", "delete"],
    metadata: CRUDL,
    label: CRUDL,
    robot: CRUDL,
    "notification-policy": CRUDL,
    scanner: ["read", "create"],
    log: ["list"],
    member: CRUDL,
    repository: REPO_RW,
    artifact: CRUDL,
    tag: ["create", "delete", "list"],
    scan: ["create", "read", "stop"],
    quota: ["read"],
    "immutable-tag": CRUDL,
    "tag-retention": CRUDL,
    "preheat-policy": CRUDL,
  },
  [ROLES.maintainer]: {
    project: ["read"],
    metadata: READ,
    label: CRUDL,
    robot: READ,
    "notification-policy": ["list"],
    scanner: ["read"],
    log: ["list"],
    member: READ,
    repository: REPO_RW,
    artifact: CRUDL,
    tag: ["create", "delete", "list"],
    scan: ["create", "read", "stop"],
    quota: ["read"],
  },
  [ROLES.developer]: {
    project: ["read"],
    metadata: READ,
    label: READ,
    robot: READ,
    scanner: ["read"],
    log: ["list"],
    member: READ,
    repository: ["read", "list", "pull", "push"],
    artifact: ["create", "read", "list"],
    tag: ["create", "list"],
    scan: ["read"],
    quota: ["read"],
  },
  [ROLES.guest]: {
    project: ["read"],
    metadata: READ,
    label: READ,
    robot: READ,
    scanner: ["read"],
    log: ["list"],
    member: READ,
    repository: ["read", "list", "pull"],
    artifact: READ,
    tag: ["list"],
    scan: ["read"],
    quota: ["read"],
  },
  [ROLES.limitedGuest]: {
    project: ["read"],
    scanner: ["read"],
    repository: ["read", "list", "pull"],
    artifact: READ,
    tag: ["list"],
  },
};

/** Anonymous callers may read public projects and pull from them. */
const PUBLIC_POLICY: Record<string, readonly string[]> = {
  project: ["read"],
  repository: ["read", "list", "pull"],
  artifact: READ,
  tag: ["list"],
};

export function canProject(c: Caller, project: ProjectRecord, resource: string, action: string): boolean {
  if (isSysAdmin(c)) return true;
  if (project.metadata.public === "true" && PUBLIC_POLICY[resource]?.includes(action)) return true;
  if (c.kind === "user") {
    const role = project.members.get(c.user.user_id);
    return role !== undefined && (ROLE_POLICY[role]?.[resource]?.includes(action) ?? false);
  }
  if (c.kind === "robot") {
    return (
      robotAllows(c.robot, "project", project.name, resource, action) ||
      robotAllows(c.robot, "project", "*", resource, action)
    );
  }
  return false;
}

/** RequireProjectAccess: 401 for anonymous callers without public access, 403 otherwise. */
export function requireProject(ctx: Ctx, project: ProjectRecord, resource: string, action: string): void {
  if (canProject(ctx.caller, project, resource, action)) return;
  if (ctx.caller.kind === "anonymous") throw unauthorized();
  throw forbidden();
}

/**
 * Resolves `{project_name_or_id}` and checks access in Harbor's order: the permission check for an
 * unknown project runs against project 0, so non-admins get 403 where admins get 404.
 */
export function projectAccess(
  ctx: Ctx,
  ref: string | number,
  resource: string,
  action: string,
): ProjectRecord {
  const byName = ctx.query["X-Is-Resource-Name"] === true;
  const project = ctx.world.projects.resolve(String(ref), byName);
  if (!project) {
    if (ctx.caller.kind === "anonymous") throw unauthorized();
    if (!isSysAdmin(ctx.caller)) throw forbidden();
    throw notFound(`project ${ref} not found`);
  }
  requireProject(ctx, project, resource, action);
  return project;
}

function robotAllows(
  robot: RobotRecord,
  kind: string,
  namespace: string,
  resource: string,
  action: string,
): boolean {
  let allowed = false;
  for (const p of robot.permissions) {
    if (p.kind !== kind || p.namespace !== namespace) continue;
    for (const a of p.access) {
      const matches =
        (a.resource === resource || a.resource === "*") && (a.action === action || a.action === "*");
      if (!matches) continue;
      if ((a.effect ?? "allow") === "deny") return false;
      allowed = true;
    }
  }
  return allowed;
}
