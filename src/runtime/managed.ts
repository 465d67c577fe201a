// The one lifecycle every Harbor-backed kind goes through. A kind supplies an ExternalClient
// (external-client.ts: how to observe, create, update and delete its Harbor object, and pure
// diff/status mappings); this reconciler supplies everything else, the same way for every kind:
// - the pause annotation, the connection, and references to other resources (which wait with
//   reason DependencyNotReady until their target is Ready);
// - one owner per Harbor object (claims.ts): a second resource claiming it gets Conflict and never
//   touches Harbor;
// - creationPolicy: Create refuses an object that already exists, Adopt only manages existing
//   objects, CreateOrAdopt does either;
// - the finalizer, added before the first create. A resource that carries it but has no recorded
//   Harbor id is mid-create: if the object turns up in Harbor, this resource created it before a
//   crash, so it is taken over instead of refused or duplicated. Where an admission policy sets the
//   finalizer with the object (annotated so), it marks nothing: this process remembers the creates
//   it sent until their id is recorded, and a resource deleted with no id and no such create goes
//   without a Harbor call;
// - drift written back and named in status and an Event; a batched sweep (sweep.ts) finds it;
// - deletionPolicy Delete / Orphan, a blocked deletion (a project that still holds repositories)
//   reported on the resource until it can proceed;
// - conditions Ready/Synced/Stalled at observedGeneration (managed-status.ts), written (writes.ts)
//   only when they changed, Events on transitions (a routine create or delete is a log line only).
import type { Logger } from "pino";
import type { z } from "zod";
import { FINALIZER, FINALIZER_SET_AT_ANNOTATION, PAUSED_ANNOTATION } from "../api/common.ts";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import type { EventRecorder } from "../kube/events.ts";
import { objectKey, type ResourceType } from "../kube/types.ts";
import { ResourceClaims } from "./claims.ts";
import { jsonEqual } from "./conditions.ts";
import {
  type ReconcileContext,
  type Reconciler,
  type Result,
  RetryAfter,
  TerminalError,
} from "./controller.ts";
import type {
  ConnectionResolver,
  DeleteOutcome,
  ErrorClassifier,
  ExternalClient,
  HarborId,
  Input,
  Kept,
  ManagedCache,
  ManagedObject,
  ManagedSpec,
} from "./external-client.ts";
import { DeletionBlocked, NotReady, Stalled } from "./external-client.ts";
import { describeIssues, INVALID_SPEC } from "./invalid-spec.ts";
import { nextStatus, type Ready, type StatusChange, type Wait, waitOf } from "./managed-status.ts";
import { OwnWrites } from "./own-writes.ts";
import { type SpecParse, specParser } from "./spec-parser.ts";
import { DriftSweep, harborMovedFrom } from "./sweep.ts";
import { ResourceWrites, statusPatch } from "./writes.ts";

export interface ManagedReconcilerOptions<S extends ManagedSpec, O, C, X, Id extends HarborId = number> {
  type: ResourceType;
  /** Parses the spec with defaults, as the CRD schema would. */
  specSchema: z.ZodType<S>;
  informer: ManagedCache;
  external: ExternalClient<S, O, C, X, Record<string, unknown>, Id>;
  connections: ConnectionResolver<C>;
  errors: ErrorClassifier;
  /**
   * Why Harbor would refuse the object's name (spec.name, or metadata.name by default), or
   * undefined; checked before any Harbor call. Kubernetes names allow what Harbor may not.
   */
  nameProblem?: (harborName: string) => string | undefined;
  kube: Pick<KubeClient, "mergePatch" | "patchStatus">;
  events: EventRecorder;
  /** Wait before retrying a dependency wait. Default 15 s. */
  dependencyRetryMs?: number;
  /**
   * How long a resource may wait on something it needs (a connection, a referenced resource, a
   * Secret) before it is reported Stalled as well; it keeps retrying and recovers by itself.
   * Default 2 min.
   */
  waitTimeoutMs?: number;
  /** First wait before retrying a blocked deletion; doubles up to 5 min. Default 5 s. */
  deletionRetryMs?: number;
  /** The one clock of the lifecycle, in epoch milliseconds (wait timeouts, condition times). */
  now: () => number;
}

/** The reason of a wait on another resource of ours. */
export const DEPENDENCY_NOT_READY = "DependencyNotReady";
/** How long a new resource may wait on another before the wait shows in its status. */
const DEPENDENCY_GRACE_MS = 10_000;
/** How often a quiet wait looks again (what it waits on usually announces itself first). */
const QUIET_WAIT_RETRY_MS = 2_000;

export class ManagedReconciler<S extends ManagedSpec, O, C, X, Id extends HarborId = number>
  implements Reconciler
{
  readonly #o: ManagedReconcilerOptions<S, O, C, X, Id>;
  /** One owner per Harbor object, and one holder per setting, across every connection to a Harbor. */
  readonly #claims: ResourceClaims<S>;
  /** The kind's drift sweep, whose observations the reconciles it triggers start from. */
  readonly #sweep: DriftSweep<S, O, C, X, Id>;
  /** How often each blocked deletion has been tried, for its backoff. */
  readonly #blocked = new Map<string, number>();
  /** Our own writes, until the informer shows them. */
  readonly #written = new OwnWrites<ManagedObject>();
  /**
   * Resources (by uid) whose create this process sent and whose status does not record the id yet:
   * a create of ours that may have happened, where the finalizer came at admission and marks none.
   */
  readonly #unrecordedCreates = new Set<string>();
  /** When each resource's current wait on another resource of ours began, in this process. */
  readonly #waitingSince = new Map<string, number>();
  readonly #writes: ResourceWrites;
  readonly #parse: SpecParse<S>; // the spec, parsed once per version for claims, reconcile, sweep
  /** Called with resource keys to reconcile (set by the controller wiring). */
  enqueue: (key: string) => void = () => {};

  constructor(o: ManagedReconcilerOptions<S, O, C, X, Id>) {
    this.#o = o;
    this.#parse = specParser(o.specSchema);
    this.#writes = new ResourceWrites({ kube: o.kube, type: o.type, written: this.#written });
    this.#sweep = new DriftSweep({
      parse: this.#parse,
      list: () => o.informer.list(),
      external: o.external,
      connections: o.connections,
      enqueue: (key) => this.enqueue(key),
      now: o.now,
    });
    this.#claims = new ResourceClaims({
      parse: this.#parse,
      informer: o.informer,
      external: o.external,
      connections: o.connections,
      // Whoever waited on a released claim may own it now.
      released: (key) => this.enqueue(key),
    });
    o.informer.on({
      add: (obj) => this.#claims.set(obj),
      update: (_old, obj) => {
        this.#claims.set(obj);
        this.#written.caughtUp(obj);
      },
      delete: (obj) => this.#forget(obj),
    });
  }

  get kind(): string {
    return this.#o.type.kind;
  }

  async reconcile(ctx: ReconcileContext): Promise<Result> {
    const cached = this.#o.informer.get(ctx.key);
    if (!cached) return {}; // gone: the finalizer already let it go
    const resource = this.#written.current(ctx.key, cached);
    const log = ctx.logger;
    const parsed = this.#parse(resource.spec);
    if (!parsed.success) {
      // The CRD refuses most of this at admission; what reaches here was stored before a rule
      // existed, or is a value only the operator can judge. No retry can help: Stalled.
      const message = describeIssues(parsed.error.issues, resource.spec);
      if (resource.metadata.deletionTimestamp) return this.#releaseFinalizer(resource, log, "spec invalid");
      await this.#writeStatus(
        resource,
        { status: "False", reason: INVALID_SPEC, message },
        { stalled: true },
      );
      throw new TerminalError(message);
    }
    const spec = parsed.data;
    const harborName = spec.name ?? resource.metadata.name;
    const base = {
      resource,
      spec,
      harborName,
      // The CRD types status.harborId as the kind's ids are.
      knownId: resource.status?.harborId as Id | undefined,
      logger: log,
      signal: ctx.signal,
    };

    if (resource.metadata.annotations?.[PAUSED_ANNOTATION] === "true") {
      // Nothing of a spec changed while paused is applied, so that generation is not observed, and
      // Ready is no longer True: `kubectl wait`, Argo CD and Flux do not take it for done. After the
      // annotation goes, the change is applied as a spec change.
      const observed = resource.status?.observedGeneration;
      const changed = observed !== resource.metadata.generation;
      await this.#writeStatus(
        resource,
        {
          status: changed
            ? "False"
            : (resource.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown"),
          reason: "Paused",
          message: changed
            ? `the spec changed while reconciliation is paused by the ${PAUSED_ANNOTATION} annotation: nothing is applied until it is removed`
            : `reconciliation is paused by the ${PAUSED_ANNOTATION} annotation`,
        },
        { synced: false, generation: observed },
      );
      return {};
    }

    try {
      if (resource.metadata.deletionTimestamp) return await this.#delete(resource, spec, base);

      const nameProblem = this.#o.nameProblem?.(harborName);
      if (nameProblem !== undefined) {
        const field = spec.name === undefined ? "metadata.name" : "spec.name";
        throw new Stalled(INVALID_SPEC, `${field} ${nameProblem}; set spec.name to a name Harbor takes`);
      }

      const owner = this.#claims.objectOwner(resource, spec, harborName);
      if (owner !== undefined) {
        await this.#writeStatus(resource, {
          status: "False",
          reason: "Conflict",
          message: `${this.#o.type.kind} ${owner} already manages this Harbor object; only one resource may own it`,
        });
        return {};
      }
      const setting = this.#o.external.setting?.(spec);
      const holder = setting && this.#claims.settingHolder(resource, spec, setting.claim);
      if (setting && holder !== undefined) {
        await this.#writeStatus(resource, {
          status: "False",
          reason: "Conflict",
          message: `${this.#o.type.kind} ${holder} already holds ${setting.what} of this Harbor; only one resource may`,
        });
        return {};
      }

      const conn = await this.#o.connections.resolve(resource.metadata.namespace ?? "", spec.connectionRef);
      const harbor = this.#o.connections.harborOf(conn);
      const movedFrom = harborMovedFrom(resource, harbor);
      const extra = await this.#o.external.prepare({ ...base, conn });
      const input: Input<S, C, X, Id> = {
        ...base,
        conn,
        extra,
        ...(movedFrom === undefined ? {} : { knownId: undefined }),
      };
      const result = await this.#sync(resource, input, harbor, movedFrom);
      this.#waitingSince.delete(ctx.key);
      return result;
    } catch (e) {
      return this.#failed(resource, e, log);
    }
  }

  async #sync(
    resource: ManagedObject,
    input: Input<S, C, X, Id>,
    harbor: string,
    movedFrom: string | undefined,
  ): Promise<Result> {
    const ext = this.#o.external;
    const hint = movedFrom === undefined ? this.#sweep.takeHint(resource) : undefined;
    const policy = input.spec.creationPolicy;
    // The first object of a resource that may create it, of a kind whose create refuses a taken
    // name: created without a lookup (the usual case costs one call), looked up once refused.
    const createFirst =
      ext.refusedAsExisting !== undefined &&
      hint === undefined &&
      input.knownId === undefined &&
      movedFrom === undefined &&
      policy !== "Adopt";
    let observed = hint ?? (createFirst ? undefined : await ext.observe(input));
    let created = false;
    const hasFinalizer = resource.metadata.finalizers?.includes(FINALIZER) === true;
    const uid = uidOf(resource);
    const sentBefore = this.#unrecordedCreates.has(uid);
    // A create of ours may have happened (in the Harbor status names, or this one when it names
    // none yet) when there is no recorded id and the finalizer the operator writes before a create
    // is there, or this process sent one.
    let mayTakeOver =
      input.knownId === undefined &&
      movedFrom === undefined &&
      (sentBefore || (hasFinalizer && !finalizerSetAtAdmission(resource)));

    if (movedFrom !== undefined) {
      this.#o.events.record(
        resource,
        "Normal",
        "HarborChanged",
        `Now managed in Harbor ${harbor}: ${this.#what(input)} is looked up there by name; id ${resource.status?.harborId ?? "-"} in ${movedFrom} is left as it is`,
      );
    } else if (observed && input.knownId !== undefined && !(ext.identifies?.(input, observed) ?? true)) {
      this.#o.events.record(
        resource,
        "Warning",
        "HarborIdReused",
        `Harbor id ${input.knownId} now belongs to another object, which is left alone; ${this.#what(input)} is looked up by name`,
      );
      input.knownId = undefined;
      observed = await ext.observe(input);
      mayTakeOver = false;
    }

    if (!observed) {
      if (policy === "Adopt") {
        throw new NotReady(
          "NotFound",
          `${this.#what(input)} does not exist in Harbor; creationPolicy Adopt never creates it`,
        );
      }
      if (resource.status?.harborId !== undefined)
        input.logger.info({ harborId: resource.status.harborId }, "Harbor object not found; creating it");
      resource = await this.#writes.ensureFinalizer(resource);
      // A create must find no id in status, and no other Harbor: if it is interrupted, the next
      // reconcile then takes the new object over instead of refusing it as someone else's.
      const recorded = resource.status?.harborUrl;
      if (resource.status?.harborId !== undefined || (recorded !== undefined && recorded !== harbor))
        resource = await this.#writes.patchStatus(resource, { harborId: null, harborUrl: harbor });
      input.resource = resource;
      // An id looked up in this Harbor and not found: the object was deleted outside the operator.
      const lostId = input.knownId;
      this.#unrecordedCreates.add(uid);
      try {
        observed = await ext.create({ ...input, resource });
        created = true;
      } catch (e) {
        if (!createFirst || !ext.refusedAsExisting?.(e)) throw e;
        // Nothing was created: a finalizer written for this create goes again, or it would mark a
        // create of ours that never happened (mayTakeOver) and the next reconcile take the object.
        if (!sentBefore) this.#unrecordedCreates.delete(uid);
        if (!hasFinalizer) resource = await this.#writes.dropFinalizer(resource);
        input.resource = resource;
        observed = await ext.observe(input);
        if (!observed) throw e;
      }
      if (created) {
        if (lostId === undefined)
          this.#o.events.routine(
            resource,
            "Created",
            `Created ${this.#what(input)} (${this.#named(observed)})`,
          );
        else
          this.#o.events.record(
            resource,
            "Warning",
            "Recreated",
            `${this.#what(input)} (id ${lostId}) was deleted outside the operator; created it again (id ${ext.id(observed)})`,
          );
      }
    }
    if (!created && input.knownId === undefined) {
      // First sight of an existing object: ours after a crash mid-create, or someone else's.
      const ours = mayTakeOver;
      if (!ours && policy === "Create") {
        throw new Stalled(
          "AlreadyExists",
          `${this.#what(input)} already exists in Harbor ${harbor} (${this.#named(observed)}); set creationPolicy to Adopt or CreateOrAdopt to manage it`,
        );
      }
      if (!ours) {
        const adoption = this.#o.connections.mayAdopt(input.conn);
        if (!adoption.allowed)
          throw new Stalled(
            "NotAllowed",
            `${this.#what(input)} exists in Harbor (${this.#named(observed)}), but ${adoption.why}`,
          );
      }
      resource = await this.#writes.ensureFinalizer(resource);
      input.resource = resource;
      if (!ours)
        this.#o.events.record(
          resource,
          "Normal",
          "Adopted",
          `Adopted ${this.#what(input)} (${this.#named(observed)})`,
        );
    }

    let drift: string[] = [];
    if (!created) {
      drift = ext.diff(input, observed);
      if (drift.length) {
        observed = await ext.update(input, observed, drift);
        const specChanged = resource.metadata.generation !== resource.status?.observedGeneration;
        this.#o.events.record(
          resource,
          "Normal",
          specChanged ? "Updated" : "DriftCorrected",
          `${specChanged ? "Updated" : "Reverted changes made in Harbor to"} ${drift.join(", ")}`,
        );
      }
    }
    // What a sweep's hint brought was the sweep's read, not this reconcile's.
    if (hint === undefined) this.#sweep.readByReconcile(objectKey(resource));
    const after = ext.afterSync ? await ext.afterSync({ ...input, resource }, observed, created) : {};
    const specChanged = resource.metadata.generation !== resource.status?.observedGeneration;
    const fields: Record<string, unknown> = {
      harborId: ext.id(observed),
      harborUrl: harbor,
      ...ext.status?.(input, observed),
      ...after.status,
    };
    if (drift.length && !specChanged) fields.lastDriftCorrection = { time: this.#now(), fields: drift };
    if (after.notReady) {
      const wait = this.#waiting(resource);
      await this.#writeStatus(
        resource,
        { status: "False", ...after.notReady },
        { fields, synced: true, stalled: wait.stalled },
      );
      this.#unrecordedCreates.delete(uid);
      return { requeueAfterMs: Math.min(after.requeueAfterMs ?? wait.retryMs, wait.retryMs) };
    }
    const wasReady = resource.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    await this.#writeStatus(
      resource,
      { status: "True", reason: "Synced", message: `${this.#what(input)} matches the spec` },
      { fields },
    );
    this.#unrecordedCreates.delete(uid);
    if (!wasReady && !created)
      this.#o.events.record(resource, "Normal", "Ready", `${this.#what(input)} is in sync`);
    return after.requeueAfterMs === undefined ? {} : { requeueAfterMs: after.requeueAfterMs };
  }

  async #delete(
    resource: ManagedObject,
    spec: S,
    base: Omit<Input<S, C, X, Id>, "conn" | "extra">,
  ): Promise<Result> {
    if (!resource.metadata.finalizers?.includes(FINALIZER)) return {};
    const ext = this.#o.external;
    if (
      base.knownId === undefined &&
      finalizerSetAtAdmission(resource) &&
      !this.#unrecordedCreates.has(uidOf(resource))
    ) {
      // The finalizer came at admission, no id was recorded and this process sent no create:
      // nothing in Harbor is known to be this resource's, and a same-named object is left alone.
      await ext.finalize?.(base);
      return this.#releaseFinalizer(resource, base.logger, "nothing created");
    }
    if (
      spec.deletionPolicy === "Orphan" ||
      this.#claims.objectOwner(resource, spec, base.harborName) !== undefined
    ) {
      await ext.finalize?.(base);
      this.#o.events.record(
        resource,
        "Normal",
        "Orphaned",
        `Left ${this.#what(base)} in Harbor (deletionPolicy Orphan)`,
      );
      return this.#releaseFinalizer(resource, base.logger, "orphaned");
    }
    const conn = await this.#o.connections.resolve(resource.metadata.namespace ?? "", spec.connectionRef);
    const harbor = this.#o.connections.harborOf(conn);
    const movedFrom = harborMovedFrom(resource, harbor);
    if (movedFrom !== undefined) {
      // The recorded object is in a Harbor this resource no longer reaches; nothing of it is here.
      await ext.finalize?.({ ...base, conn });
      this.#o.events.record(
        resource,
        "Normal",
        "Orphaned",
        `Left ${this.#what(base)} (id ${base.knownId ?? "-"}) in Harbor ${movedFrom}: the resource now points at ${harbor}`,
      );
      return this.#releaseFinalizer(resource, base.logger, "recorded in another Harbor");
    }
    let extra: X;
    try {
      extra = await ext.prepare({ ...base, conn });
    } catch (e) {
      // A reference that is gone (e.g. the project was deleted first) means the object went with it.
      if (e instanceof NotReady && base.knownId === undefined) {
        await ext.finalize?.({ ...base, conn });
        return this.#releaseFinalizer(resource, base.logger, "nothing to delete");
      }
      throw e;
    }
    const input: Input<S, C, X, Id> = { ...base, conn, extra };
    const observed = await ext.observe(input);
    if (observed && base.knownId !== undefined && !(ext.identifies?.(input, observed) ?? true)) {
      await ext.finalize?.(input);
      this.#o.events.record(
        resource,
        "Warning",
        "HarborIdReused",
        `Harbor id ${base.knownId} now belongs to another object: nothing was deleted in Harbor`,
      );
      return this.#releaseFinalizer(resource, base.logger, "recorded id names another object");
    }
    if (observed) {
      let outcome: DeleteOutcome | Kept | undefined;
      try {
        outcome = (await ext.delete(input, observed)) ?? undefined;
      } catch (e) {
        if (e instanceof DeletionBlocked) {
          // The status write records the Warning Event when the resource first gets blocked.
          await this.#writeStatus(resource, {
            status: "False",
            reason: "DeletionBlocked",
            message: e.message,
          });
          // Emptying a project happens in Harbor, where no watch reaches: look again, less often.
          const key = objectKey(resource);
          const attempts = this.#blocked.get(key) ?? 0;
          this.#blocked.set(key, attempts + 1);
          return { requeueAfterMs: Math.min(300_000, (this.#o.deletionRetryMs ?? 5000) * 2 ** attempts) };
        }
        throw e;
      }
      if (outcome && "kept" in outcome) this.#o.events.record(resource, "Normal", "Orphaned", outcome.kept);
      else if (outcome?.note && !outcome.routine)
        // What Harbor removed with it (a label's place on artifacts, a group's memberships) is
        // worth an Event; a plain delete is routine.
        this.#o.events.record(resource, "Normal", "Deleted", `Deleted ${this.#what(input)}; ${outcome.note}`);
      else
        this.#o.events.routine(
          resource,
          "Deleted",
          `Deleted ${this.#what(input)}${outcome?.note ? `; ${outcome.note}` : ""}`,
        );
    }
    await ext.finalize?.(input);
    this.#blocked.delete(objectKey(resource));
    return this.#releaseFinalizer(resource, base.logger, "deleted");
  }

  async #failed(resource: ManagedObject, e: unknown, log: Logger): Promise<Result> {
    // A deletion that waits says so, on what, and how to let it go.
    if (resource.metadata.deletionTimestamp && (e instanceof NotReady || e instanceof Stalled))
      e.message = `deletion pending: ${e.message}. The resource goes once that is resolved; to let it go without deleting in Harbor, set spec.deletionPolicy: Orphan`;
    if (e instanceof NotReady) {
      log.debug({ reason: e.reason, message: e.message }, "waiting");
      if (e.quiet) return { requeueAfterMs: QUIET_WAIT_RETRY_MS };
      if (e.reason === DEPENDENCY_NOT_READY && this.#briefWait(resource)) return { requeueAfterMs: 2000 };
      const { stalled, waited, retryMs } = this.#waiting(resource);
      await this.#writeStatus(
        resource,
        {
          status: "False",
          reason: e.reason,
          message: stalled ? `${e.message} (waiting for ${Math.round(waited / 1000)} s)` : e.message,
        },
        { stalled },
      );
      return { requeueAfterMs: retryMs };
    }
    if (e instanceof Stalled) {
      await this.#writeStatus(
        resource,
        { status: "False", reason: e.reason, message: e.message },
        { stalled: true },
      );
      throw new TerminalError(e.message);
    }
    if (isKubeError(e, "conflict")) {
      // A stale write: retry with fresh state, which a copy of our own writes is not any more.
      this.#written.forget(objectKey(resource));
      throw e;
    }
    const c = this.#o.errors.classify(e);
    if (c) {
      await this.#writeStatus(
        resource,
        { status: "False", reason: c.reason, message: c.message },
        { stalled: c.terminal },
      );
      if (c.terminal) throw new TerminalError(c.message);
      throw c.retryAfterMs === undefined
        ? new Error(c.message, { cause: e })
        : new RetryAfter(c.message, c.retryAfterMs, { cause: e });
    }
    const message = e instanceof Error ? e.message : String(e);
    await this.#writeStatus(resource, { status: "False", reason: "Error", message }).catch(() => undefined);
    throw e;
  }

  /**
   * Whether a wait on another resource of ours is too young to report. Resources applied or deleted
   * together (a project and its robots) usually wait a moment for each other: a new resource says so
   * only once it has existed for DEPENDENCY_GRACE_MS, a Ready one once its wait has lasted as long
   * (a robot queued by its project's deletion just before its own deletion shows then writes
   * nothing). A resource being deleted says at once what its deletion waits for.
   */
  #briefWait(resource: ManagedObject): boolean {
    if (resource.metadata.deletionTimestamp) return false;
    const now = this.#o.now();
    const key = objectKey(resource);
    const began = this.#waitingSince.get(key) ?? now;
    this.#waitingSince.set(key, began);
    const conditions = resource.status?.conditions;
    if (!conditions?.length)
      return now - Date.parse(resource.metadata.creationTimestamp ?? "") < DEPENDENCY_GRACE_MS;
    const ready = conditions.find((c) => c.type === "Ready")?.status === "True";
    return ready && now - began < DEPENDENCY_GRACE_MS;
  }

  #waiting(resource: ManagedObject): Wait {
    const o = this.#o;
    return waitOf(resource, o.now(), o.waitTimeoutMs ?? 120_000, o.dependencyRetryMs ?? 15_000);
  }

  // -------------------------------------------------------------------------------------------
  // Kubernetes writes

  async #releaseFinalizer(resource: ManagedObject, log: Logger, why: string): Promise<Result> {
    if (await this.#writes.releaseFinalizer(resource)) log.info({ why }, "finalizer removed");
    return {};
  }

  /**
   * Computes the status from `ready` and the kind's fields and writes it through the status
   * subresource, only when it differs from what the resource already shows.
   */
  async #writeStatus(resource: ManagedObject, ready: Ready, o: StatusChange = {}): Promise<void> {
    const old = resource.status ?? {};
    const next = nextStatus(resource, ready, o, () => this.#now());
    if (jsonEqual(old, next)) return;
    const updated = await this.#writes.patchStatus(resource, statusPatch(old, next));
    resource.status = updated.status;
    resource.metadata.resourceVersion = updated.metadata.resourceVersion;
    // An Event when the resource turns not-Ready for a new reason. Waiting for another resource
    // is ordinary orchestration, not a warning.
    const was = old.conditions?.find((c) => c.type === "Ready");
    const newTrouble = ready.status === "False" && (was?.status !== "False" || was.reason !== ready.reason);
    if (newTrouble && ready.reason !== DEPENDENCY_NOT_READY) {
      this.#o.events.record(resource, "Warning", ready.reason, ready.message);
    }
  }

  /** The resource is gone: its claim, hint, backoff and written copy go with it. */
  #forget(obj: ManagedObject): void {
    const key = objectKey(obj);
    this.#claims.remove(key);
    this.#sweep.forget(key);
    this.#blocked.delete(key);
    this.#written.forget(key);
    this.#unrecordedCreates.delete(uidOf(obj));
    this.#waitingSince.delete(key);
  }

  /** One drift sweep of this kind (see DriftSweep.run); returns how many resources it queued. */
  sweep(
    logger: Logger,
    signal: AbortSignal,
    o: { hintAll?: boolean; skipReadWithinMs?: number } = {},
  ): Promise<number> {
    return this.#sweep.run(logger, signal, o);
  }

  /** How messages name the Harbor object: "id 12", or what the kind says (a per-Harbor setting has no id). */
  #named(observed: O): string {
    return this.#o.external.describe?.(observed) ?? `id ${this.#o.external.id(observed)}`;
  }

  #what(input: { harborName: string }): string {
    return `${this.#o.type.kind.replace(/^Harbor/, "")} "${input.harborName}"`;
  }

  /** The clock's time as Kubernetes writes it: RFC 3339, whole seconds. */
  #now(): string {
    return new Date(this.#o.now()).toISOString().replace(/\.\d+Z$/, "Z");
  }
}

/** The resource's uid: a create belongs to this object, not to a later one of the same name. */
function uidOf(resource: ManagedObject): string {
  return resource.metadata.uid ?? objectKey(resource);
}

/** Whether the resource's finalizer was set by the admission policy, with the object. */
function finalizerSetAtAdmission(resource: ManagedObject): boolean {
  return resource.metadata.annotations?.[FINALIZER_SET_AT_ANNOTATION] === "admission";
}
