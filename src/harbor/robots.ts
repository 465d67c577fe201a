// Robot accounts: v2 (/robots, system and project level) and v1 (/projects/{p}/robots).
//
// What callers must know about Harbor's robots:
// - the secret exists only in the create response and in a refresh response; GET never returns it;
// - names come back with the robot prefix: "robot$<name>" (system) or "robot$<project>+<name>"
//   (project), and that full name is the basic-auth username;
// - PUT replaces description, disable, permissions and duration, and must repeat the same full name
//   and level as GET returned them;
// - `duration` is in days, -1 for never; expires_at is unix seconds, -1 for never;
// - v1 robots exist up to Harbor 2.12 and v1 create only works up to 2.10: 2.11 gives the robot an
//   immediate expiry, and 2.12 also stores it without its project (name "robot$+<name>", a system
//   robot without permissions that only DELETE /robots/{id} removes); prefer v2 with level "project".
import { z } from "zod";
import { nullAsAbsent, type ProjectRef, projectHeaders, Timestamp } from "./common.ts";
import { HarborError } from "./errors.ts";
import { AccessEffect, RobotLevel } from "./model/enums.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const AccessInput = z.object({
  /** v2: a bare resource name such as "repository"; v1: "/project/<id>/<resource>". */
  resource: z.string(),
  action: z.string(),
  effect: AccessEffect.optional(),
});
export type AccessInput = z.input<typeof AccessInput>;

export const RobotPermissionInput = z.object({
  kind: RobotLevel,
  /** "/" for kind system; a project name, or "*" for every project, for kind project. */
  namespace: z.string(),
  access: z.array(AccessInput).min(1),
});
export type RobotPermissionInput = z.input<typeof RobotPermissionInput>;

export const RobotCreate = z.object({
  /** Lower case, digits and single . _ - separators. */
  name: z.string(),
  description: z.string().optional(),
  level: RobotLevel,
  /** Days; -1 for never. 0 is rejected by Harbor 2.11+. */
  duration: z.number().int(),
  /** A project robot has exactly one permission, whose namespace is its project's name. */
  permissions: z.array(RobotPermissionInput).min(1),
});
export type RobotCreate = z.input<typeof RobotCreate>;

export const RobotUpdate = z.object({
  /** The full name exactly as GET returns it (with the robot prefix). */
  name: z.string(),
  level: RobotLevel,
  description: z.string().optional(),
  disable: z.boolean().optional(),
  /** Omitted keeps the current duration; a change recomputes expires_at from the creation time. */
  duration: z.number().int().optional(),
  permissions: z.array(RobotPermissionInput).min(1),
});
export type RobotUpdate = z.input<typeof RobotUpdate>;

export const RobotCreateV1 = z.object({
  name: z.string(),
  description: z.string().optional(),
  access: z.array(AccessInput).min(1),
});
export type RobotCreateV1 = z.input<typeof RobotCreateV1>;

/** v1 update changes only these two fields. */
export const RobotUpdateV1 = z.object({
  disable: z.boolean(),
  description: z.string().optional(),
});
export type RobotUpdateV1 = z.input<typeof RobotUpdateV1>;

export const Access = z.object({
  resource: z.string().optional(),
  action: z.string().optional(),
  effect: z.string().optional(),
});
export type Access = z.output<typeof Access>;

export const RobotPermission = z.object({
  kind: z.string().optional(),
  namespace: z.string().optional(),
  access: nullAsAbsent(z.array(Access)),
});
export type RobotPermission = z.output<typeof RobotPermission>;

export const Robot = z.object({
  id: z.number().int().optional(),
  /** Full name, with the robot prefix (legacy v1 robots: as stored). */
  name: z.string().optional(),
  description: z.string().optional(),
  /** Never filled by GET. */
  secret: z.string().optional(),
  level: z.string().optional(),
  duration: z.number().int().nullish(),
  editable: z.boolean().optional(),
  disable: z.boolean().optional(),
  expires_at: z.number().int().optional(),
  permissions: nullAsAbsent(z.array(RobotPermission)),
  /** Harbor 2.12+: "local" (a user) or "robot". */
  creator_type: z.string().optional(),
  creator_ref: z.number().int().optional(),
  creation_time: Timestamp.optional(),
  update_time: Timestamp.optional(),
});
export type Robot = z.output<typeof Robot>;

/** A robot Harbor has stored, as get and list return it: its id is always there. */
export const PersistedRobot = Robot.extend({ id: z.number().int() });
export type PersistedRobot = z.output<typeof PersistedRobot>;

/** The create response: the only time Harbor hands out the generated secret. */
export const RobotCreated = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  secret: z.string().optional(),
  creation_time: Timestamp.optional(),
  /** Left out by v1 create. */
  expires_at: z.number().int().optional(),
});
export type RobotCreated = z.output<typeof RobotCreated>;

export const RobotSec = z.object({
  /** The generated secret; absent when the caller supplied its own. */
  secret: z.string().optional(),
});
export type RobotSec = z.output<typeof RobotSec>;

export interface RobotListParams extends ListFilter {
  /** List this project's robots (q=Level=project,ProjectID=<id>); otherwise system robots. */
  projectId?: number;
}

/** A created robot: its id (from Location), full name and one-time secret. */
export interface CreatedRobot {
  id: number;
  name: string;
  secret: string;
  creation_time?: string;
  expires_at?: number;
}

function created(id: string, body: RobotCreated): CreatedRobot {
  return {
    ...body,
    id: Number(id),
    name: body.name ?? "",
    secret: body.secret ?? "",
  };
}

export class RobotsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** CreateRobot: the new robot with its one-time secret. */
  async create(robot: RobotCreate, opts?: CallOptions): Promise<CreatedRobot> {
    const body = RobotCreate.parse(robot);
    const res = await this.#t.createdJson(
      { ...opts, operation: "CreateRobot", method: "POST", path: "/robots", body },
      RobotCreated,
    );
    return created(res.id, res.body);
  }

  /** ListRobot: every page; system robots, or one project's robots with `projectId`. */
  list(params: RobotListParams = {}, opts?: CallOptions): Promise<PersistedRobot[]> {
    const { q, sort } = listQuery(params);
    // Harbor reads the level and project from q; the caller's own terms follow them.
    const scope = params.projectId === undefined ? "" : `Level=project,ProjectID=${params.projectId}`;
    const fullQ = [scope, q ?? ""].filter(Boolean).join(",");
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListRobot",
        method: "GET",
        path: "/robots",
        query: { q: fullQ || undefined, sort },
      },
      PersistedRobot,
    );
  }

  /** GetRobotByID */
  get(id: number, opts?: CallOptions): Promise<PersistedRobot> {
    return this.#t.json(
      { ...opts, operation: "GetRobotByID", method: "GET", path: path`/robots/${id}` },
      PersistedRobot,
    );
  }

  /** UpdateRobot: the body must repeat the robot's full name and level. */
  update(id: number, robot: RobotUpdate, opts?: CallOptions): Promise<void> {
    const body = RobotUpdate.parse(robot);
    return this.#t.noContent({
      ...opts,
      operation: "UpdateRobot",
      method: "PUT",
      path: path`/robots/${id}`,
      body,
    });
  }

  /** DeleteRobot */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteRobot",
      method: "DELETE",
      path: path`/robots/${id}`,
    });
  }

  /**
   * RefreshSec: without `secret` Harbor generates a new one and returns it; with `secret` (8-128
   * characters, upper, lower and digit) Harbor sets it and returns no secret.
   */
  refreshSecret(id: number, secret?: string, opts?: CallOptions): Promise<RobotSec> {
    return this.#t.json(
      {
        ...opts,
        operation: "RefreshSec",
        method: "PATCH",
        path: path`/robots/${id}`,
        body: secret === undefined ? {} : { secret },
      },
      RobotSec,
    );
  }
}

export class RobotsV1Api {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * CreateRobotV1: resources in the form "/project/<id>/<resource>"; Harbor up to 2.10 sets a 30-day
   * expiry. Harbor 2.12's answer for a robot it stored without its project (no project between the
   * prefix's "$" and the "+") is refused with invalidResponse, naming the robot left behind.
   */
  async create(project: ProjectRef, robot: RobotCreateV1, opts?: CallOptions): Promise<CreatedRobot> {
    const body = RobotCreateV1.parse(robot);
    const res = await this.#t.createdJson(
      {
        ...opts,
        operation: "CreateRobotV1",
        method: "POST",
        path: path`/projects/${project}/robots`,
        headers: projectHeaders(project),
        body,
      },
      RobotCreated,
    );
    const result = created(res.id, res.body);
    if (result.name.includes("$+")) {
      throw new HarborError(
        { operation: "CreateRobotV1", kind: "invalidResponse", status: 201, requestId: res.requestId },
        `CreateRobotV1: v1 robot creation is broken on this Harbor (2.12 stores the robot without its project, expired, as a system robot): it created ${result.name} (id ${result.id}), which cannot log in; delete it with robots.delete(${result.id}) and create a v2 project robot instead (request ${res.requestId})`,
      );
    }
    return result;
  }

  /** ListRobotV1: every page. */
  list(project: ProjectRef, filter: ListFilter = {}, opts?: CallOptions): Promise<PersistedRobot[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListRobotV1",
        method: "GET",
        path: path`/projects/${project}/robots`,
        headers: projectHeaders(project),
        query: listQuery(filter),
      },
      PersistedRobot,
    );
  }

  /** GetRobotByIDV1 */
  get(project: ProjectRef, id: number, opts?: CallOptions): Promise<PersistedRobot> {
    return this.#t.json(
      {
        ...opts,
        operation: "GetRobotByIDV1",
        method: "GET",
        path: path`/projects/${project}/robots/${id}`,
        headers: projectHeaders(project),
      },
      PersistedRobot,
    );
  }

  /** UpdateRobotV1: sets `disable` and the description (an omitted description clears it). */
  update(project: ProjectRef, id: number, robot: RobotUpdateV1, opts?: CallOptions): Promise<void> {
    const body = RobotUpdateV1.parse(robot);
    return this.#t.noContent({
      ...opts,
      operation: "UpdateRobotV1",
      method: "PUT",
      path: path`/projects/${project}/robots/${id}`,
      headers: projectHeaders(project),
      body,
    });
  }

  /** DeleteRobotV1 */
  delete(project: ProjectRef, id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteRobotV1",
      method: "DELETE",
      path: path`/projects/${project}/robots/${id}`,
      headers: projectHeaders(project),
    });
  }
}
