// HarborRobot's ExternalClient: how a robot account is observed, created, updated and deleted in
// Harbor, and how its credentials reach Kubernetes and stay valid.
//
// The secret exists once, in Harbor's create (or refresh) response, so:
// - create() writes it to the robot's Secret right after POST /robots, before anything else can
//   fail (a Secret of that name that belongs to someone else is checked before the POST);
// - afterSync() carries out what secretDecision (mapping.ts) decides from the Secret, the rotation
//   schedule and the clock. It issues a new secret in place (PATCH /robots/{id}, same robot, same
//   id) whenever the Secret no longer holds credentials known to work: missing (deleted, adopted
//   robot, crash between create and write), changed by someone else, or left mid-rotation. A robot
//   is never deleted and recreated to get a secret;
// - rotation (rotation.intervalDays after the last issued secret, and/or the window before expiry)
//   issues a new secret the same way and renews the expiry with a PUT (see mapping.ts), records
//   status.lastRotation and an Event, and the reconcile is requeued for the next due rotation, so
//   rotation needs no other trigger. Before a rotation the intact Secret is marked pending, so a
//   crash between Harbor's refresh and the Secret write is noticed and repaired.
// - a changed durationDays is applied at once with a PUT (Harbor recomputes the expiry from the
//   creation time, see mapping.ts), without a new secret; status.nextRotation says when the next
//   secret is issued, which is when changed rotation settings take effect.
// Steady state costs one GET per reconcile and nothing else in Harbor; the drift sweep reads every
// robot with one list call per project plus one for system robots.
import { API_VERSION } from "../../api/common.ts";
import {
  type HarborRobotSpec,
  type HarborRobotStatus,
  harborRobot,
  MAX_COPY_FAILURES,
} from "../../api/robot.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import type { CreatedRobot, PersistedRobot, RobotCreate } from "../../harbor/robots.ts";
import type { EventRecorder } from "../../kube/events.ts";
import { SecretConflictError } from "../../kube/secrets.ts";
import type { KubeObject, SecretObject } from "../../kube/types.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import {
  type AfterSync,
  type ExternalClient,
  type Input,
  type ManagedObject,
  NotReady,
  Stalled,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import { INVALID_SPEC } from "../../runtime/invalid-spec.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { crashPoint } from "../shared/crash.ts";
import type { FreshProjects } from "../shared/fresh-projects.ts";
import { type Referenced, resolveReference } from "../shared/references.ts";
import { requireProjects, requireSystemRobots } from "../shared/tenancy.ts";
import {
  type CopyFailure,
  type Credentials,
  copyFailureReport,
  type Delivered,
  type RobotDelivery,
  type Target,
} from "./delivery.ts";
import {
  copyNotices,
  createRequest,
  diff,
  formatExpiry,
  isRobotNamed,
  nextLookMs,
  permittedProjects,
  type RobotProject,
  renewedDuration,
  rfc3339,
  rotationSchedule,
  secretDecision,
  secretNameOf,
  status,
  storedName,
  storedNameProblem,
  updateRequest,
} from "./mapping.ts";

export interface RobotExtra {
  /** The Harbor project of a project-level robot (absent for system robots, and while deleting). */
  project?: RobotProject;
}

type Client = ExternalClient<
  HarborRobotSpec,
  PersistedRobot,
  HarborConnectionHandle,
  RobotExtra,
  HarborRobotStatus
>;
type RobotInput = Input<HarborRobotSpec, HarborConnectionHandle, RobotExtra>;

/** The Namespace cache is still filling: copies wait this long. */
const NAMESPACES_SYNC_RETRY_MS = 1_000;

/** Ready's reason while some copy cannot be delivered. */
const COPY_FAILED = "SecretCopyFailed";
/** The Warning Event recorded for each copy that failed, by why. */
const COPY_EVENT: Record<CopyFailure["reason"], string> = {
  SecretConflict: "SecretCopyConflict",
  Forbidden: "SecretCopyForbidden",
};

export function robotExternal(deps: {
  projects: Informer<ManagedObject>;
  delivery: RobotDelivery;
  events: EventRecorder;
  metrics: Metrics;
  now?: () => number;
  /** Projects just created: their first robot lookup needs no list. */
  fresh?: FreshProjects;
}): Client {
  const now = deps.now ?? Date.now;
  const { delivery, events, metrics } = deps;

  const get = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    try {
      return await conn.client.robots.get(id, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };
  const reread = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    const robot = await get(conn, id, signal);
    if (!robot) throw new Error(`robot ${id} vanished from Harbor while it was being written`);
    return robot;
  };
  /** A permission only Harbor can judge (a project that does not exist) stalls the resource. */
  const judged = (e: unknown): never => {
    if (isHarborError(e, "notFound") && /project/i.test(e.harborMessage ?? "")) {
      throw new Stalled("HarborRejected", `Harbor rejected the robot's permissions: ${e.harborMessage}`);
    }
    throw e;
  };
  const targetOf = (input: Pick<RobotInput, "spec" | "resource" | "conn">): Target => ({
    namespace: input.resource.metadata.namespace ?? "",
    name: secretNameOf(input.spec, input.resource.metadata.name),
    type: input.spec.secret.type,
    hosts: [input.conn.registryHost, ...input.spec.secret.extraRegistryHosts],
  });

  /** The credentials of the robot's earlier Secret, written to the new one; the earlier one goes. */
  const movedCredentials = async (
    owner: KubeObject,
    target: Target,
    previousName: string,
    username: string,
  ): Promise<Delivered> => {
    let previous: Delivered;
    try {
      previous = await delivery.read(owner, target.namespace, previousName, username);
    } catch (e) {
      if (e instanceof SecretConflictError) return { state: "missing" }; // not ours any more
      throw e;
    }
    if (previous.state === "intact") await delivery.write(owner, target, previous.credentials);
    await delivery.remove(owner, target.namespace, previousName);
    return previous.state === "intact" ? previous : { state: "missing" };
  };

  /** Issues a new secret in place and delivers it at once. */
  const reissue = async (input: RobotInput, robot: PersistedRobot, target: Target): Promise<Credentials> => {
    const { secret } = await input.conn.client.robots.refreshSecret(robot.id, undefined, {
      signal: input.signal,
    });
    if (!secret) throw new Error(`Harbor returned no secret when refreshing robot ${robot.id}`);
    const credentials = { username: robot.name ?? "", password: secret };
    await delivery.write(ownerOf(input.resource), target, credentials);
    return credentials;
  };

  /**
   * secret.deliver false: the robot is managed in Harbor, its secret left to whoever holds it. No
   * secret is issued and no Secret read or written; what was delivered before goes (it would only
   * go stale), and the status names no Secret and no next rotation.
   */
  const undelivered = async (
    input: RobotInput,
    robot: PersistedRobot,
  ): Promise<AfterSync<HarborRobotStatus>> => {
    const { resource, spec } = input;
    if (deliveredBefore(resource)) {
      const recorded = resource.status?.secretName;
      const names = [secretNameOf(spec, resource.metadata.name)];
      if (typeof recorded === "string" && !names.includes(recorded)) names.push(recorded);
      await delivery.removeAll(ownerOf(resource), spec, names, copiedTo(resource));
    }
    const labels = { namespace: resource.metadata.namespace ?? "", name: resource.metadata.name };
    if (robot.expires_at === undefined || robot.expires_at === -1) metrics.robotSecretExpiry.remove(labels);
    else metrics.robotSecretExpiry.set(labels, robot.expires_at);
    return {
      status: {
        ...status(spec, robot, resource.metadata.name),
        secretName: undefined,
        nextRotation: undefined,
        copiedTo: undefined,
        copyFailures: undefined,
        copiesRefused: undefined,
        copiesWithoutConsent: undefined,
      },
    };
  };

  return {
    async prepare({ resource, spec, harborName, conn }) {
      if (spec.level === "system") requireSystemRobots(conn);
      requireProjects(conn, permittedProjects(spec));
      if (spec.level === "system" || !spec.projectRef) return {};
      const deleting = Boolean(resource.metadata.deletionTimestamp);
      let p: Referenced;
      try {
        p = resolveReference(deps.projects, resource, spec.projectRef, spec.connectionRef, conn.harbor);
      } catch (e) {
        // Deleting: the project may be gone already (and its robots with it); a robot known by id
        // can still be looked up and deleted without it.
        if (deleting && e instanceof NotReady) return {};
        throw e;
      }
      requireProjects(conn, [p.harborName]);
      const project = { id: p.harborId, name: p.harborName };
      // Whether the robot's name fits depends on the project's name, which only the operator knows.
      const problem = storedNameProblem(harborName, project);
      if (problem && !deleting) {
        const field = spec.name === undefined ? "metadata.name" : "spec.name";
        throw new Stalled(INVALID_SPEC, `${field} "${harborName}" is too long: ${problem}`);
      }
      return { project };
    },

    async observe({ conn, spec, knownId, harborName, extra, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      if (spec.level === "project" && !extra.project) return undefined;
      if (extra.project && deps.fresh?.firstLookup(conn.harbor, extra.project.id, "robot")) return undefined;
      const stored = storedName(harborName, extra.project);
      const candidates = await conn.client.robots.list(
        { q: q().exact("name", stored), ...(extra.project ? { projectId: extra.project.id } : {}) },
        { signal },
      );
      const found = candidates.find((r) => isRobotNamed(r.name, stored));
      if (found && found.editable === false) {
        throw new Stalled(
          "LegacyRobot",
          `robot ${found.name} (id ${found.id}) is a legacy robot account, which Harbor does not let anyone edit; delete it in Harbor or choose another name`,
        );
      }
      return found;
    },

    async create(input) {
      const { conn, spec, harborName, extra, signal, resource } = input;
      const target = targetOf(input);
      const owner = ownerOf(resource);
      // Nothing is created that could not be delivered.
      const seen = spec.secret.deliver
        ? (await delivery.read(owner, target.namespace, target.name, "")).seen
        : undefined;
      const request = createRequest(spec, harborName, extra.project);
      const created = await conn.client.robots.create(request, { signal }).catch(judged);
      crashPoint("after-robot-create");
      // Without delivery the secret goes nowhere: nobody knows it until delivery is turned on.
      if (spec.secret.deliver) {
        if (!created.secret) throw new Error(`Harbor returned no secret for the new robot ${created.name}`);
        await delivery.write(owner, target, { username: created.name, password: created.secret }, { seen });
      }
      // Harbor's answer (id, full name, creation time, expiry) and the request are the robot as
      // status and the secret schedule need it: no read-back. A v1 create leaves the expiry out,
      // and a disabled robot is written again below: those are read back.
      let robot =
        created.expires_at !== undefined && created.creation_time !== undefined && !spec.disabled
          ? asCreated(request, created)
          : await reread(conn, created.id, signal);
      if (spec.disabled) {
        // Harbor ignores `disable` on create.
        await conn.client.robots.update(created.id, updateRequest(spec, robot, extra.project, undefined), {
          signal,
        });
        robot = await reread(conn, created.id, signal);
      }
      return robot;
    },

    async update({ conn, spec, extra, signal }, current, drift) {
      const id = current.id;
      const duration = drift.includes("durationDays")
        ? renewedDuration(spec.durationDays, current.creation_time, now())
        : undefined;
      await conn.client.robots
        .update(id, updateRequest(spec, current, extra.project, duration), { signal })
        .catch(judged);
      return reread(conn, id, signal);
    },

    async delete({ conn, signal }, current) {
      try {
        await conn.client.robots.delete(current.id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    diff: ({ spec, extra, resource }, observed) =>
      diff(spec, observed, extra.project, now(), appliedDurationDays(resource)),
    id: (observed) => observed.id,
    identifies: ({ spec, harborName, extra }, observed) =>
      isRobotNamed(observed.name, storedName(harborName, extra.project)) ||
      // Deleting without its project at hand: the project part of the name cannot be checked.
      (spec.level === "project" && !extra.project && (observed.name ?? "").endsWith(`+${harborName}`)),
    status: ({ spec, resource }, observed) => status(spec, observed, resource.metadata.name),

    // Carries out secretDecision (mapping.ts): Harbor refresh and renewal, Secret writes, Events,
    // copies, the expiry metric and the requeue for the next rotation. The return type is declared
    // so that the status literal is checked field by field.
    async afterSync(input, observed, created): Promise<AfterSync<HarborRobotStatus>> {
      const { resource, spec, conn, extra, signal } = input;
      const owner = ownerOf(resource);
      const target = targetOf(input);
      const at = now();
      if (!spec.secret.deliver) return undelivered(input, observed);
      let robot = observed;
      let lastIssued = created ? at : parseTime(resource.status?.lastRotation);
      const username = robot.name ?? "";

      const recorded = resource.status?.secretName;
      const decide = (delivered: Delivered, recordedSecretName: string | undefined) =>
        secretDecision({
          delivered,
          secretName: target.name,
          recordedSecretName,
          schedule: rotationSchedule(spec, robot, lastIssued),
          now: at,
          durationDays: spec.durationDays,
          robot,
        });
      const delivered = await delivery.read(owner, target.namespace, target.name, username);
      // The Secret as read, while no write since has changed it (a move writes it).
      let seen: { seen?: SecretObject | null } = { seen: delivered.seen };
      let decision = decide(delivered, typeof recorded === "string" ? recorded : undefined);
      if (decision.action === "move") {
        // What the new Secret holds once the earlier one's credentials moved: decided again.
        decision = decide(await movedCredentials(owner, target, decision.from, username), undefined);
        seen = {};
      }

      let credentials: Credentials;
      switch (decision.action) {
        case "keep":
          credentials = decision.credentials;
          await delivery.write(owner, target, credentials, seen); // no write unless the rendering changed
          break;
        case "restore":
          credentials = await reissue(input, robot, target);
          lastIssued = at;
          events.record(
            resource,
            "Normal",
            "SecretRestored",
            `Issued a new secret for ${robot.name} (same robot, id ${robot.id}) because ${decision.why}`,
          );
          break;
        case "rotate": {
          const { why, markPending, renewTo } = decision;
          if (markPending) await delivery.markPending(owner, target, markPending);
          credentials = await reissue(input, robot, target);
          lastIssued = at;
          if (renewTo !== undefined) {
            await conn.client.robots.update(robot.id, updateRequest(spec, robot, extra.project, renewTo), {
              signal,
            });
            robot = await reread(conn, robot.id, signal);
          }
          events.record(
            resource,
            "Normal",
            "SecretRotated",
            `Issued a new secret for ${robot.name} because ${why}; it expires ${formatExpiry(robot.expires_at) ?? "as before"}`,
          );
          break;
        }
        case "move":
          throw new Error(`the credentials of Secret ${decision.from} were moved already`);
      }

      const previousCopies = Array.isArray(resource.status?.copiedTo)
        ? (resource.status.copiedTo as string[])
        : [];
      const copies = await delivery.syncCopies(owner, spec, target, credentials, previousCopies);
      for (const f of copies?.failures ?? [])
        events.record(
          resource,
          "Warning",
          COPY_EVENT[f.reason],
          `Not copied into namespace ${f.namespace}: ${f.message}`,
        );
      if (copies)
        for (const n of copyNotices(resource.status, copies, target.namespace))
          events.record(resource, "Warning", n.reason, n.message);
      const failed = copies?.failures.length ? copyFailureReport(copies.failures) : undefined;

      const labels = { namespace: target.namespace, name: resource.metadata.name };
      if (robot.expires_at === undefined || robot.expires_at === -1) metrics.robotSecretExpiry.remove(labels);
      else metrics.robotSecretExpiry.set(labels, robot.expires_at);

      const next = rotationSchedule(spec, robot, lastIssued).dueAt;
      return {
        // The Namespace cache is still filling while copies is undefined: look again soon.
        requeueAfterMs: copies ? nextLookMs(next, at) : NAMESPACES_SYNC_RETRY_MS,
        status: {
          ...status(spec, robot, resource.metadata.name),
          ...(lastIssued === undefined ? {} : { lastRotation: rfc3339(lastIssued) }),
          // When rotation settings take effect: the next secret is issued then.
          nextRotation: next === undefined ? undefined : rfc3339(Math.max(next, at)),
          copiedTo: copies ? copies.copiedTo : previousCopies,
          // Cleared (undefined removes the field) once every copy is delivered.
          ...(copies
            ? {
                copyFailures: failed?.listed,
                copiesRefused: listed(copies.refused),
                copiesWithoutConsent: listed(copies.withoutConsent),
              }
            : {}),
        },
        // The robot works, but not everywhere its spec says: not Ready until the copies are made
        // (retried like any wait; a foreign Secret's removal is not watched, so it is polled).
        ...(failed ? { notReady: { reason: COPY_FAILED, message: failed.message } } : {}),
      };
    },

    async finalize({ resource, spec }) {
      // A robot that never delivered anything has nothing in Kubernetes to remove.
      if (spec.secret.deliver || deliveredBefore(resource)) {
        const owner = ownerOf(resource);
        const previousName = resource.status?.secretName;
        const names = [secretNameOf(spec, resource.metadata.name)];
        if (typeof previousName === "string" && !names.includes(previousName)) names.push(previousName);
        await delivery.removeAll(owner, spec, names, copiedTo(resource));
      }
      metrics.robotSecretExpiry.remove({
        namespace: resource.metadata.namespace ?? "",
        name: resource.metadata.name,
      });
    },

    async observeMany(conn, inputs) {
      const wanted = new Set(inputs.map((i) => i.knownId));
      // One list per project, plus one for the system robots.
      const scopes = new Map<string, number | undefined>();
      for (const i of inputs) scopes.set(String(i.extra.project?.id ?? "system"), i.extra.project?.id);
      const found = new Map<number, PersistedRobot>();
      await forEachBounded(scopes.values(), SWEEP_CONCURRENCY, async (projectId) => {
        const robots = await conn.client.robots.list(projectId === undefined ? {} : { projectId });
        for (const r of robots) if (wanted.has(r.id)) found.set(r.id, r);
      });
      return found;
    },

    // Project robots live in the project a reference of this namespace names.
    claim: (spec, harborName, namespace) =>
      spec.level === "project"
        ? `robot:project:${namespace}/${spec.projectRef?.name ?? ""}/${harborName}`
        : `robot:system:${harborName}`,
  };
}

/** Whether the status shows a Secret or copies delivered (earlier, while delivery was on). */
function deliveredBefore(resource: ManagedObject): boolean {
  return typeof resource.status?.secretName === "string" || copiedTo(resource).length > 0;
}

/** A list as the status keeps it: the first MAX_COPY_FAILURES, or no field when empty. */
function listed(names: readonly string[]): string[] | undefined {
  return names.length ? names.slice(0, MAX_COPY_FAILURES) : undefined;
}

function copiedTo(resource: ManagedObject): string[] {
  return Array.isArray(resource.status?.copiedTo) ? (resource.status.copiedTo as string[]) : [];
}

/** A robot just created, from the create request and Harbor's answer to it. */
function asCreated(request: RobotCreate, created: CreatedRobot): PersistedRobot {
  return {
    id: created.id,
    name: created.name,
    ...(request.description === undefined ? {} : { description: request.description }),
    level: request.level,
    duration: request.duration,
    editable: true,
    disable: false,
    ...(created.expires_at === undefined ? {} : { expires_at: created.expires_at }),
    permissions: request.permissions,
    ...(created.creation_time === undefined
      ? {}
      : { creation_time: created.creation_time, update_time: created.creation_time }),
  };
}

/** The durationDays the status says the robot's expiry was set for, if it says. */
function appliedDurationDays(resource: ManagedObject): number | undefined {
  const v = resource.status?.durationDays;
  return typeof v === "number" ? v : undefined;
}

function parseTime(value: unknown): number | undefined {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** The resource as the owner of its Secrets (list items may lack apiVersion and kind). */
function ownerOf(resource: ManagedObject): KubeObject {
  return { ...resource, apiVersion: API_VERSION, kind: harborRobot.kind };
}
