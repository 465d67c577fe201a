// Robot accounts (v2 /robots and v1 /projects/{p}/robots, the latter up to 2.12: from 2.13 its
// routes are not found), their names, secrets and permissions.
//
// Harbor v2.12 behaviour:
// - names: v2 create checks the name pattern; stored as "<name>" (system) or "<project>+<name>"
//   (project) and exposed with the prefix "robot$"; (stored name, project) is unique;
// - secrets: 32 random [A-Za-z0-9] characters with an upper, a lower and a digit, shown only in the
//   create and refresh responses and kept here only as a salted SHA-256;
// - duration -1 (never) or 1..2^31-2 days (0 is rejected since 2.11; the 2.10 model takes 0 as the
//   default of 30 days); expires_at is creation plus the duration, and a changed duration on PUT is
//   recomputed from the creation time; creator_type/creator_ref exist from 2.12 on;
// - permissions must come from Harbor's robot permission lists for their scope (the 2.12 lists,
//   including the robot/member/user/user-group extras); a robot creating or updating a robot may
//   only hand out permissions it holds itself;
// - v1 create is broken as in Harbor 2.12.4: after validating "/project/<id>/<resource>" against
//   the path's project it answers 201 with the name "robot$+<name>", but stores the robot without a
//   project (a system-level robot with no permissions) that expired at creation; the v1 routes of
//   the project do not find it, only DELETE /robots/{id} removes it. The release it models is a
//   switch (`RobotStore.v1Create`, control `robots.setV1Create`): "2.11" keeps the project but
//   expires the robot at creation; "2.10" (2.8-2.10) works, with the system default of 30 days.
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { type Caller, isSysAdmin, projectAccess, requireAuthenticated, requireSystem } from "../auth.ts";
import { badRequest, conflict, denied, notFound } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply, parseQ } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";

export interface RobotAccess {
  resource: string;
  action: string;
  effect?: string;
}

export interface RobotPermission {
  kind: string;
  namespace: string;
  access: RobotAccess[];
}

export interface RobotRecord {
  id: number;
  /** As stored: "<name>" for system robots, "<project>+<name>" for project robots. */
  name: string;
  /** As exposed and used for basic auth: the robot prefix plus the stored name. */
  fullName: string;
  level: "system" | "project";
  project_id: number;
  permissions: RobotPermission[];
  description: string;
  /** Days; -1 is never. */
  duration: number;
  /** Unix seconds; -1 is never. */
  expires_at: number;
  disable: boolean;
  /** False only for legacy robots (from before robot accounts v2): no secret, no permissions. */
  editable: boolean;
  /** "local" when a user created the robot, "robot" when another robot did. */
  creator_type: string;
  creator_ref: number;
  creation_time: string;
  update_time: string;
}

/** Which release's v1 create to model (see the header); the default is 2.12.4's. */
export type V1CreateModel = "2.10" | "2.11" | "2.12";

/** The v1 create model of a Harbor version such as "v2.10.3" or "2.12.4". */
export function v1CreateModelFor(version: string): V1CreateModel {
  const minor = Number(/^v?2\.(\d+)/.exec(version)?.[1] ?? Number.NaN);
  if (minor <= 10) return "2.10";
  return minor === 11 ? "2.11" : "2.12";
}

/** Days a robot lives when Harbor picks the duration (robot_token_duration). */
export const DEFAULT_ROBOT_DAYS = 30;
const DAY_SECONDS = 86_400;
const MAX_INT32 = 2 ** 31 - 1;
export const ROBOT_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

const SECRET_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A secret a user may set: 8-128 characters with an upper, a lower and a digit. */
export function isValidSecret(s: string): boolean {
  return s.length >= 8 && s.length <= 128 && /[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s);
}

function generateSecret(): string {
  for (;;) {
    let s = "";
    for (let i = 0; i < 32; i++) s += SECRET_CHARS[randomInt(SECRET_CHARS.length)];
    if (isValidSecret(s)) return s;
  }
}

interface StoredSecret {
  salt: string;
  hash: Buffer;
}

function hashSecret(secret: string, salt: string): Buffer {
  return createHash("sha256").update(salt).update(secret).digest();
}

// Harbor's robot permission lists (rbac.PoliciesMap plus the 2.12 additions), by scope.
const CRUDL = ["create", "read", "update", "delete", "list"];
const SYSTEM_POLICIES: Record<string, readonly string[]> = {
  "audit-log": ["list"],
  "preheat-instance": CRUDL,
  project: ["list", "create"],
  "replication-policy": CRUDL,
  replication: ["read", "create", "list"],
  "replication-adapter": ["list"],
  registry: CRUDL,
  "scan-all": ["read", "update", "stop", "create"],
  "system-volumes": ["read"],
  "garbage-collection": ["read", "create", "list", "update", "stop"],
  "purge-audit": ["read", "create", "list", "update", "stop"],
  "jobservice-monitor": ["list", "stop"],
  scanner: CRUDL,
  label: ["read", "create", "delete", "update"],
  "security-hub": ["read", "list"],
  catalog: ["read"],
  quota: ["read", "list", "update"],
  robot: ["create", "read", "delete", "list"],
  user: CRUDL,
  "user-group": CRUDL,
  "ldap-user": ["create", "list"],
  "export-cve": ["create", "read"],
};
const PROJECT_POLICIES: Record<string, readonly string[]> = {
  log: ["list"],
  project: ["read", "delete", "update"],
  metadata: CRUDL,
  repository: ["read", "update", "delete", "list", "pull", "push"],
  artifact: ["read", "create", "list", "delete"],
  scan: ["create", "read", "stop"],
  sbom: ["create", "read", "stop"],
  tag: ["create", "list", "delete"],
  accessory: ["list"],
  "artifact-addition": ["read"],
  "artifact-label": ["create", "delete"],
  scanner: ["create", "read"],
  "preheat-policy": CRUDL,
  "immutable-tag": ["create", "delete", "list", "update"],
  "notification-policy": CRUDL,
  "tag-retention": CRUDL,
  label: CRUDL,
  quota: ["read"],
  robot: ["create", "read", "delete", "list"],
  member: CRUDL,
};
/** What a v1 robot may hold: every policy of the built-in project roles (Harbor 2.10). */
const V1_POLICIES: Record<string, readonly string[]> = {
  "": ["read", "update", "delete"],
  member: CRUDL,
  metadata: CRUDL,
  log: ["list"],
  label: CRUDL,
  quota: ["read"],
  repository: ["create", "read", "update", "delete", "list", "pull", "push"],
  "tag-retention": [...CRUDL, "operate"],
  "immutable-tag": ["create", "update", "delete", "list"],
  configuration: ["read", "update"],
  robot: CRUDL,
  "notification-policy": CRUDL,
  scan: ["create", "read", "stop"],
  scanner: ["read", "create"],
  artifact: ["create", "read", "delete", "list"],
  "artifact-addition": ["read"],
  tag: ["list", "create", "delete"],
  accessory: ["list"],
  "artifact-label": ["create", "delete"],
  "preheat-policy": CRUDL,
};

export class RobotStore {
  readonly #world: World;
  readonly #robots = new Map<number, RobotRecord>();
  readonly #secrets = new Map<number, StoredSecret>();
  /** How POST /projects/{p}/robots behaves. */
  v1Create: V1CreateModel;

  constructor(world: World) {
    this.#world = world;
    this.v1Create = v1CreateModelFor(world.version.name);
  }

  get world(): World {
    return this.#world;
  }

  get(id: number): RobotRecord | undefined {
    return this.#robots.get(id);
  }

  all(): RobotRecord[] {
    return [...this.#robots.values()];
  }

  /** Creates a robot; returns it with its one-time secret. */
  insert(r: {
    name: string;
    description: string;
    level: "system" | "project";
    project?: ProjectRecord;
    duration: number;
    permissions: RobotPermission[];
    creator: Caller;
    /** Set by Harbor 2.12's v1 create, which loses the project: stored as "+<name>". */
    projectless?: boolean;
  }): { robot: RobotRecord; secret: string } {
    const projectId = r.projectless ? 0 : (r.project?.project_id ?? 0);
    const stored =
      r.level === "project" ? `${r.projectless ? "" : (r.project?.name ?? "")}+${r.name}` : r.name;
    for (const other of this.#robots.values()) {
      if (other.name === stored && other.project_id === projectId) {
        throw conflict(`robot account ${projectId}:${stored} already exists`);
      }
    }
    const nowMs = this.#world.now();
    const now = this.#world.nowText();
    const rec: RobotRecord = {
      id: this.#world.ids.next("robot"),
      name: stored,
      fullName: this.#world.config.robotPrefix + stored,
      // Harbor derives the level from the project id.
      level: projectId === 0 ? "system" : "project",
      project_id: projectId,
      permissions: r.projectless ? [] : structuredClone(r.permissions),
      description: r.description,
      duration: r.duration,
      expires_at: expiresAt(nowMs, r.duration),
      disable: false,
      editable: true,
      // Who created a robot is recorded from 2.12 on; before, the fields do not exist.
      creator_type: !this.#world.version.has("robotCreator")
        ? ""
        : r.creator.kind === "robot"
          ? "robot"
          : "local",
      creator_ref: !this.#world.version.has("robotCreator")
        ? 0
        : r.creator.kind === "robot"
          ? r.creator.robot.id
          : r.creator.kind === "user"
            ? r.creator.user.user_id
            : 0,
      creation_time: now,
      update_time: now,
    };
    this.#robots.set(rec.id, rec);
    const secret = generateSecret();
    this.#setSecret(rec.id, secret);
    return { robot: rec, secret };
  }

  /**
   * A robot from before robot accounts v2: no secret (it cannot log in with basic auth), no
   * permissions, not editable, shown under its stored name.
   */
  insertLegacy(name: string, projectId: number): RobotRecord {
    const now = this.#world.nowText();
    const rec: RobotRecord = {
      id: this.#world.ids.next("robot"),
      name,
      fullName: name,
      level: projectId === 0 ? "system" : "project",
      project_id: projectId,
      permissions: [],
      description: "",
      duration: 0,
      expires_at: Math.floor(this.#world.now() / 1000) + DEFAULT_ROBOT_DAYS * DAY_SECONDS,
      disable: false,
      editable: false,
      creator_type: "",
      creator_ref: 0,
      creation_time: now,
      update_time: now,
    };
    this.#robots.set(rec.id, rec);
    return rec;
  }

  /** PUT: description, disable, permissions and duration (expiry recomputed from creation time). */
  update(
    rec: RobotRecord,
    change: { description: string; disable: boolean; duration: number; permissions?: RobotPermission[] },
  ): void {
    if (change.duration !== rec.duration) {
      rec.duration = change.duration;
      rec.expires_at = expiresAt(Date.parse(rec.creation_time), change.duration);
    }
    rec.description = change.description;
    rec.disable = change.disable;
    if (change.permissions) rec.permissions = structuredClone(change.permissions);
    rec.update_time = this.#world.nowText();
  }

  /** Refresh: a generated secret (returned) or the caller's own (returns undefined). */
  refreshSecret(rec: RobotRecord, own?: string): string | undefined {
    const secret = own ?? generateSecret();
    this.#setSecret(rec.id, secret);
    rec.update_time = this.#world.nowText();
    return own === undefined ? secret : undefined;
  }

  delete(id: number): void {
    this.#robots.delete(id);
    this.#secrets.delete(id);
  }

  /**
   * A new robot_name_prefix: Harbor stores robots without it and adds the current one when it shows
   * a robot or logs one in, so every robot (but legacy ones, shown as stored) takes the new prefix.
   */
  renamePrefix(prefix: string): void {
    for (const r of this.#robots.values())
      if (r.editable || this.#secrets.has(r.id)) r.fullName = prefix + r.name;
  }

  /** The robot for basic-auth credentials, or undefined (wrong secret, disabled, expired). */
  authenticate(fullName: string, secret: string): RobotRecord | undefined {
    for (const r of this.#robots.values()) {
      if (r.fullName !== fullName) continue;
      const stored = this.#secrets.get(r.id);
      if (!stored || !timingSafeEqual(stored.hash, hashSecret(secret, stored.salt))) return undefined;
      if (r.disable || this.expired(r)) return undefined;
      return r;
    }
    return undefined;
  }

  expired(r: RobotRecord): boolean {
    return r.expires_at !== -1 && r.expires_at <= Math.floor(this.#world.now() / 1000);
  }

  /**
   * Project deletion: removes the project's robots, and from system robots the permissions scoped to
   * that project (Harbor keeps them by project id, so they no longer show and no longer match).
   */
  deleteByProject(projectId: number): void {
    const name = this.#world.projects.byId(projectId)?.name;
    for (const r of [...this.#robots.values()]) {
      if (r.project_id === projectId) this.delete(r.id);
      else if (name !== undefined) {
        r.permissions = r.permissions.filter((p) => !(p.kind === "project" && p.namespace === name));
      }
    }
  }

  #setSecret(id: number, secret: string): void {
    const salt = randomBytes(16).toString("hex");
    this.#secrets.set(id, { salt, hash: hashSecret(secret, salt) });
  }
}

function expiresAt(fromMs: number, days: number): number {
  return days === -1 ? -1 : Math.floor(fromMs / 1000) + days * DAY_SECONDS;
}

// ---------------------------------------------------------------------------------------------
// Wire models (swagger-level constraints only: types; Go accepts null for every optional field)

const AccessBody = z
  .object({
    resource: z.string().nullish(),
    action: z.string().nullish(),
    effect: z.string().nullish(),
  })
  .meta({ goType: "Access" });
const PermissionBody = z
  .object({
    kind: z.string().nullish(),
    namespace: z.string().nullish(),
    access: z.array(AccessBody).nullish(),
  })
  .meta({ goType: "RobotPermission" });
const RobotCreateBody = z
  .object({
    name: z.string().nullish(),
    description: z.string().nullish(),
    secret: z.string().nullish(),
    level: z.string().nullish(),
    disable: z.boolean().nullish(),
    duration: z.number().int().nullish(),
    permissions: z.array(PermissionBody).nullish(),
  })
  .meta({ goType: "RobotCreate" });
const RobotBody = z
  .object({
    id: z.number().int().nullish(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    secret: z.string().nullish(),
    level: z.string().nullish(),
    duration: z.number().int().nullish(),
    editable: z.boolean().nullish(),
    disable: z.boolean().nullish(),
    expires_at: z.number().int().nullish(),
    permissions: z.array(PermissionBody).nullish(),
    creator_type: z.string().nullish(),
    creator_ref: z.number().int().nullish(),
    creation_time: z.string().nullish(),
    update_time: z.string().nullish(),
  })
  .meta({ goType: "Robot" });
const RobotCreateV1Body = z.object({
  name: z.string().nullish(),
  description: z.string().nullish(),
  expires_at: z.number().int().nullish(),
  access: z.array(AccessBody).nullish(),
});
const RobotSecBody = z.object({ secret: z.string().nullish() }).meta({ goType: "RobotSec" });

function toPermissions(body: z.output<typeof PermissionBody>[] | null | undefined): RobotPermission[] {
  return (body ?? []).map((p) => ({
    kind: p.kind ?? "",
    namespace: p.namespace ?? "",
    access: (p.access ?? []).map((a) => ({
      resource: a.resource ?? "",
      action: a.action ?? "",
      ...(a.effect ? { effect: a.effect } : {}),
    })),
  }));
}

const render = (r: RobotRecord) =>
  omitEmpty(
    {
      id: r.id,
      name: r.fullName,
      description: r.description,
      level: r.level,
      duration: r.duration,
      editable: r.editable,
      disable: r.disable,
      expires_at: r.expires_at,
      permissions: r.permissions.map((p) => ({ ...p, access: p.access.map((a) => omitEmpty(a)) })),
      creator_type: r.creator_type,
      creator_ref: r.creator_ref,
      creation_time: r.creation_time,
      update_time: r.update_time,
    },
    ["editable", "disable", "duration"],
  );

const fields: Fields<RobotRecord> = {
  id: (r) => r.id,
  name: (r) => r.name,
  description: (r) => r.description,
  project_id: (r) => r.project_id,
  duration: (r) => r.duration,
  expires_at: (r) => r.expires_at,
  disabled: (r) => r.disable,
  creation_time: (r) => r.creation_time,
  update_time: (r) => r.update_time,
};

const byName = (a: RobotRecord, b: RobotRecord) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

// ---------------------------------------------------------------------------------------------
// Checks

/** Harbor's create/update validation of duration, level and permissions (400 with its messages). */
function validate(duration: number, level: string, permissions: RobotPermission[]): void {
  if (!(duration === -1 || (duration > 0 && duration < MAX_INT32))) {
    throw badRequest(
      `bad request error duration input: ${duration}, duration must be either -1(Never) or a positive integer`,
    );
  }
  if (level !== "system" && level !== "project") throw badRequest(`bad request error level input: ${level}`);
  if (permissions.length === 0) throw badRequest("bad request empty permission");
  if (permissions.some((p) => p.access.length === 0)) throw badRequest("bad request empty access");
  // A project robot holds exactly one permission: the one of its project.
  if (level === "project" && permissions.length > 1) throw badRequest("bad request permission");
  for (const p of permissions) {
    const allowed =
      p.kind === "system" ? SYSTEM_POLICIES : p.kind === "project" ? PROJECT_POLICIES : undefined;
    if (!allowed) throw badRequest(`bad request permission level: ${p.kind}`);
    for (const a of p.access) {
      if (!allowed[a.resource]?.includes(a.action)) {
        throw badRequest(`bad request permission: ${a.resource}:${a.action}`);
      }
    }
  }
}

/** Namespaces must name something: "/" for system permissions, an existing project (or "*"). */
function checkNamespaces(world: World, permissions: RobotPermission[]): void {
  for (const p of permissions) {
    if (p.kind === "system" && p.namespace !== "/") throw badRequest("unknown namespace");
    if (p.kind === "project" && p.namespace !== "*" && !world.projects.byName(p.namespace)) {
      throw notFound(`project ${p.namespace} not found`);
    }
  }
}

/** A robot may hand out only what it holds itself (Harbor 2.12). */
function requireNarrowerThanCaller(ctx: Ctx, permissions: RobotPermission[]): void {
  const c = ctx.caller;
  if (c.kind !== "robot") return;
  const holds = (kind: string, namespace: string, a: RobotAccess) =>
    c.robot.permissions.some(
      (p) =>
        p.kind === kind &&
        (p.namespace === namespace || (kind === "project" && p.namespace === "*")) &&
        p.access.some(
          (h) => h.resource === a.resource && h.action === a.action && (h.effect ?? "allow") !== "deny",
        ),
    );
  const covered = permissions.every((p) =>
    p.access.every((a) => a.effect === "deny" || holds(p.kind, p.namespace, a)),
  );
  if (!covered) {
    throw denied(
      `permission scope is invalid. It must be equal to or more restrictive than the creator robot's permissions: ${c.robot.fullName}`,
    );
  }
}

/** A `{project}` given by name only (robot permission namespaces), with Harbor's 403/404 rules. */
function projectByName(ctx: Ctx, name: string, action: string): ProjectRecord {
  return projectAccess(
    { ...ctx, query: { ...ctx.query, "X-Is-Resource-Name": true } },
    name,
    "robot",
    action,
  );
}

/**
 * The permission check of a robot operation (the level is already validated): system access, or
 * access to the project, given by id (stored robots) or by name (permission namespaces).
 */
function requireRobotAccess(ctx: Ctx, level: string, project: string | number, action: string): void {
  if (level === "system") requireSystem(ctx, "robot", action);
  else if (typeof project === "number") projectAccess(ctx, project, "robot", action);
  else projectByName(ctx, project, action);
}

function existing(ctx: Ctx): RobotRecord {
  const id = ctx.params.robot_id as number;
  const robot = ctx.world.robots.get(id);
  if (!robot) throw notFound(`robot ${id} not found`);
  return robot;
}

function audit(ctx: Ctx, r: RobotRecord, operation: "create" | "update" | "delete"): void {
  auditWrite(ctx, { project_id: r.project_id, resource: r.fullName, resource_type: "robot", operation });
}

// ---------------------------------------------------------------------------------------------
// v1 helpers

/** v1 access: "/project/<id>/<resource>" of the path's project, from the built-in role policies. */
function v1Permission(ctx: Ctx, project: ProjectRecord, access: RobotAccess[]): RobotPermission {
  const ref = String(ctx.params.project_name_or_id);
  const prefix = `/project/${project.project_id}`;
  for (const a of access) {
    const effect = a.effect || "allow";
    const sub =
      a.resource === prefix
        ? ""
        : a.resource.startsWith(`${prefix}/`)
          ? a.resource.slice(prefix.length + 1)
          : undefined;
    if (effect !== "allow" || sub === undefined || !V1_POLICIES[sub]?.includes(a.action)) {
      throw badRequest(`${a.action} action of ${a.resource} resource not exist in project ${ref}`);
    }
  }
  return {
    kind: "project",
    namespace: project.name,
    access: access.map((a) => {
      const m = /^\/project\/[0-9]+\/([a-z-]+)$/.exec(a.resource);
      if (!m) throw badRequest(`bad resource ${a.resource}`);
      return { resource: m[1] as string, action: a.action, ...(a.effect ? { effect: a.effect } : {}) };
    }),
  };
}

function existingInProject(ctx: Ctx, project: ProjectRecord): RobotRecord {
  const id = ctx.params.robot_id as number;
  const robot = ctx.world.robots.get(id);
  if (!robot || robot.project_id !== project.project_id) {
    throw notFound(
      `resource not found: cannot find robot with project id: ${project.project_id} and id: ${id}`,
    );
  }
  return robot;
}

const projectHeader = { "X-Is-Resource-Name": { type: "bool", default: false } } as const;
const listQueryParams = { q: { type: "string" }, sort: { type: "string" } } as const;

const routes: RouteSpec[] = [
  {
    op: "CreateRobot",
    method: "POST",
    path: "/robots",
    body: { name: "robot", schema: RobotCreateBody },
    handle(ctx) {
      const b = ctx.body as z.output<typeof RobotCreateBody>;
      const name = b.name ?? "";
      if (!ROBOT_NAME.test(name))
        throw badRequest("robot name is not in lower case or contains illegal characters");
      const level = b.level ?? "";
      const permissions = toPermissions(b.permissions);
      // Up to 2.10, duration 0 (or none) means the system default; 2.11 rejects it.
      const asked = b.duration ?? 0;
      const duration =
        asked === 0 && !ctx.world.version.has("robotZeroDurationRefused") ? DEFAULT_ROBOT_DAYS : asked;
      validate(duration, level, permissions);
      const namespace = (permissions[0] as RobotPermission).namespace;
      requireRobotAccess(ctx, level, namespace, "create");
      requireNarrowerThanCaller(ctx, permissions);
      const project = level === "project" ? ctx.world.projects.byName(namespace) : undefined;
      if (level === "project" && !project) throw notFound(`project ${namespace} not found`);
      checkNamespaces(ctx.world, permissions);
      const { robot, secret } = ctx.world.robots.insert({
        name,
        description: b.description ?? "",
        level: level as RobotRecord["level"],
        ...(project ? { project } : {}),
        duration,
        permissions,
        creator: ctx.caller,
      });
      audit(ctx, robot, "create");
      return {
        ...createdAt(ctx, robot.id),
        json: omitEmpty({
          id: robot.id,
          name: robot.fullName,
          secret,
          creation_time: robot.creation_time,
          expires_at: robot.expires_at,
        }),
      };
    },
  },
  {
    op: "ListRobot",
    method: "GET",
    path: "/robots",
    paged: true,
    query: listQueryParams,
    handle(ctx) {
      requireAuthenticated(ctx);
      const keywords = parseQ(ctx.rawQuery.get("q") ?? undefined);
      const levelQ = keywords.get("Level");
      let items = ctx.world.robots.all();
      if (levelQ) {
        const level = levelQ.kind === "exact" ? levelQ.value : "";
        if (level !== "system" && level !== "project") throw badRequest("bad request error level input");
        if (level === "project") {
          const pidQ = keywords.get("ProjectID");
          if (!pidQ) throw badRequest("must with project ID when to query project robots");
          const projectId =
            pidQ.kind === "exact" && /^[+-]?\d+$/.test(pidQ.value) ? Number(pidQ.value) : Number.NaN;
          if (!Number.isSafeInteger(projectId)) throw badRequest("Project ID must be int type.");
          // Harbor checks the permission on the id alone: an admin listing an unknown project gets [].
          if (ctx.world.projects.byId(projectId) || !isSysAdmin(ctx.caller)) {
            projectAccess(ctx, projectId, "robot", "list");
          }
        } else requireSystem(ctx, "robot", "list");
        // Level=system without ProjectID does not narrow the list: Harbor has no level column.
      } else {
        requireSystem(ctx, "robot", "list");
        items = items.filter((r) => r.project_id === 0);
      }
      return listReply(ctx, items, fields, { render, defaultOrder: byName });
    },
  },
  {
    op: "GetRobotByID",
    method: "GET",
    path: "/robots/{robot_id}",
    params: { robot_id: "int" },
    handle(ctx) {
      requireAuthenticated(ctx);
      const robot = existing(ctx);
      requireRobotAccess(ctx, robot.level, robot.project_id, "read");
      return ok(render(robot));
    },
  },
  {
    op: "UpdateRobot",
    method: "PUT",
    path: "/robots/{robot_id}",
    params: { robot_id: "int" },
    body: { name: "robot", schema: RobotBody },
    handle(ctx) {
      requireAuthenticated(ctx);
      const robot = existing(ctx);
      if (!robot.editable) throw denied("editing of legacy robot is not allowed");
      const b = ctx.body as z.output<typeof RobotBody>;
      const duration = b.duration ?? robot.duration;
      const level = b.level ?? "";
      const permissions = toPermissions(b.permissions);
      validate(duration, level, permissions);
      const namespace = (permissions[0] as RobotPermission).namespace;
      if (robot.level !== "system") {
        const target = ctx.world.projects.byName(namespace);
        if (!target) throw notFound(`project ${namespace} not found`);
        if (target.project_id !== robot.project_id) throw badRequest("cannot update the project id of robot");
      }
      requireRobotAccess(ctx, level, namespace, "update");
      if (level !== robot.level || (b.name ?? "") !== robot.fullName) {
        throw badRequest("cannot update the level or name of robot");
      }
      requireNarrowerThanCaller(ctx, permissions);
      checkNamespaces(ctx.world, permissions);
      ctx.world.robots.update(robot, {
        description: b.description ?? "",
        disable: b.disable ?? false,
        duration,
        permissions,
      });
      audit(ctx, robot, "update");
      return ok();
    },
  },
  {
    op: "DeleteRobot",
    method: "DELETE",
    path: "/robots/{robot_id}",
    params: { robot_id: "int" },
    handle(ctx) {
      requireAuthenticated(ctx);
      const robot = existing(ctx);
      requireRobotAccess(ctx, robot.level, robot.project_id, "delete");
      ctx.world.robots.delete(robot.id);
      audit(ctx, robot, "delete");
      return ok();
    },
  },
  {
    op: "RefreshSec",
    method: "PATCH",
    path: "/robots/{robot_id}",
    params: { robot_id: "int" },
    body: { name: "robotSec", schema: RobotSecBody },
    handle(ctx) {
      requireAuthenticated(ctx);
      const robot = existing(ctx);
      requireRobotAccess(ctx, robot.level, robot.project_id, "update");
      const own = (ctx.body as z.output<typeof RobotSecBody>).secret ?? "";
      if (own !== "" && !isValidSecret(own)) {
        throw badRequest(
          "the secret must be 8-128, inclusively, characters long with at least 1 uppercase letter, 1 lowercase letter and 1 number",
        );
      }
      const secret = ctx.world.robots.refreshSecret(robot, own === "" ? undefined : own);
      audit(ctx, robot, "update");
      return ok(secret === undefined ? {} : { secret });
    },
  },
  // v1: /projects/{project_name_or_id}/robots
  {
    op: "CreateRobotV1",
    until: "robotsV1Removed",
    method: "POST",
    path: "/projects/{project_name_or_id}/robots",
    headers: projectHeader,
    body: { name: "robot", schema: RobotCreateV1Body },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "robot", "create");
      const b = ctx.body as z.output<typeof RobotCreateV1Body>;
      const access = toPermissions([{ access: b.access ?? [] }])[0]?.access ?? [];
      if (access.length === 0) throw badRequest("bad request no access");
      const permission = v1Permission(ctx, project, access);
      const model = ctx.world.robots.v1Create;
      // From 2.11 the v1 handler leaves the duration at 0, so the robot expires at creation; in
      // 2.12 it also no longer resolves the project.
      const { robot, secret } = ctx.world.robots.insert({
        name: b.name ?? "",
        description: b.description ?? "",
        level: "project",
        project,
        duration: model === "2.10" ? DEFAULT_ROBOT_DAYS : 0,
        permissions: [permission],
        creator: ctx.caller,
        projectless: model === "2.12",
      });
      audit(ctx, robot, "create");
      return {
        ...createdAt(ctx, robot.id),
        json: omitEmpty({ id: robot.id, name: robot.fullName, secret, creation_time: robot.creation_time }),
      };
    },
  },
  {
    op: "ListRobotV1",
    until: "robotsV1Removed",
    method: "GET",
    path: "/projects/{project_name_or_id}/robots",
    headers: projectHeader,
    paged: true,
    query: listQueryParams,
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "robot", "list");
      const items = ctx.world.robots.all().filter((r) => r.project_id === project.project_id);
      return listReply(ctx, items, fields, { render, defaultOrder: byName });
    },
  },
  {
    op: "GetRobotByIDV1",
    until: "robotsV1Removed",
    method: "GET",
    path: "/projects/{project_name_or_id}/robots/{robot_id}",
    params: { robot_id: "int" },
    headers: projectHeader,
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "robot", "read");
      return ok(render(existingInProject(ctx, project)));
    },
  },
  {
    op: "UpdateRobotV1",
    until: "robotsV1Removed",
    method: "PUT",
    path: "/projects/{project_name_or_id}/robots/{robot_id}",
    params: { robot_id: "int" },
    headers: projectHeader,
    body: { name: "robot", schema: RobotBody },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "robot", "update");
      const robot = existingInProject(ctx, project);
      const b = ctx.body as z.output<typeof RobotBody>;
      // v1 changes only these two; an omitted description clears it, as Harbor's handler does.
      robot.disable = b.disable ?? false;
      robot.description = b.description ?? "";
      robot.update_time = ctx.world.nowText();
      audit(ctx, robot, "update");
      return ok();
    },
  },
  {
    op: "DeleteRobotV1",
    until: "robotsV1Removed",
    method: "DELETE",
    path: "/projects/{project_name_or_id}/robots/{robot_id}",
    params: { robot_id: "int" },
    headers: projectHeader,
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "robot", "delete");
      const robot = existingInProject(ctx, project);
      ctx.world.robots.delete(robot.id);
      audit(ctx, robot, "delete");
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Which release's v1 robot create to model: "2.12" (the default, broken), "2.11" or "2.10". */
    setV1Create(model: V1CreateModel): void {
      if (!["2.10", "2.11", "2.12"].includes(model)) throw new Error(`unknown v1 create model ${model}`);
      world.robots.v1Create = model;
    },
    /** Every robot as GET shows it (never a secret). */
    list: () => world.robots.all().map(render),
    /** Makes the robot expire now: its secret stops working, as Harbor's expiry check does. */
    expire(id: number): void {
      const r = world.robots.get(id);
      if (!r) throw new Error(`no robot ${id}`);
      r.expires_at = Math.floor(world.now() / 1000);
    },
    /** Disables (or re-enables) the robot, as an admin would in the UI. */
    disable(id: number, disabled = true): void {
      const r = world.robots.get(id);
      if (!r) throw new Error(`no robot ${id}`);
      r.disable = disabled;
    },
    /** Whether these credentials would authenticate right now (right secret, enabled, not expired). */
    verify: (fullName: string, secret: string): boolean =>
      world.robots.authenticate(fullName, secret) !== undefined,
    /**
     * Adds a legacy robot (from before robot accounts v2: no secret, no permissions, not editable),
     * as an upgraded Harbor may still hold. `project` empty for a system-level one.
     */
    addLegacy(name: string, project = ""): { id: number; name: string } {
      const p = project ? world.projects.byName(project) : undefined;
      if (project && !p) throw new Error(`no project ${project}`);
      const r = world.robots.insertLegacy(name, p?.project_id ?? 0);
      return { id: r.id, name: r.fullName };
    },
  }),
});
