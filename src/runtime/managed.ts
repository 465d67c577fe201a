// The one lifecycle every Harbor-backed kind goes through. A kind supplies an ExternalClient (how to
// observe, create, update and delete its Harbor object, plus pure diff/status mappings); this
// reconciler supplies everything else, the same way for every kind:
// - the pause annotation, the connection, and references to other resources (which wait with
//   reason DependencyNotReady until their target is Ready);
// - one owner per Harbor object: a second resource claiming the same object gets Ready=False,
//   reason Conflict, and never touches Harbor;
// - creationPolicy: Create refuses an object that already exists, Adopt only manages existing
//   objects, CreateOrAdopt does either;
// - the finalizer, added before the first create. A resource that carries it but has no recorded
//   Harbor id is mid-create: if the object turns up in Harbor, this resource created it before a
//   crash, so it is taken over instead of refused or duplicated;
// - drift: what differs from the spec is written back and the fields are named in status and in an
//   Event; a periodic batched sweep finds drift without one read per object;
// - deletionPolicy Delete / Orphan, with a blocked deletion (e.g. a project that still holds
//   repositories) reported on the resource until it can proceed;
// - conditions Ready/Synced/Stalled with observedGeneration, status written only when it changed,
//   and Events on transitions.
import type { Logger } from "pino";
import type { z } from "zod";
import { FINALIZER, PAUSED_ANNOTATION } from "../api/common.ts";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import type { EventRecorder } from "../kube/events.ts";
import { safeText } from "../kube/text.ts";
import { type Condition, type KubeObject, objectKey, type ResourceType } from "../kube/types.ts";
import { type Claimant, ClaimIndex } from "./claims.ts";
import { jsonEqual, setCondition, withReconciling } from "./conditions.ts";
import {
  type ReconcileContext,
  type Reconciler,
  type Result,
  RetryAfter,
  TerminalError,
} from "./controller.ts";
import type { Informer } from "./informer.ts";
import { describeIssues, INVALID_SPEC } from "./invalid-spec.ts";
import { OwnWrites } from "./own-writes.ts";

export interface ManagedSpec {
  connectionRef: { kind: "HarborConnection" | "ClusterHarborConnection"; name: string };
  creationPolicy: "Create" | "Adopt" | "CreateOrAdopt";
  deletionPolicy: "Delete" | "Orphan";
  name?: string;
}

/**
 * The id Harbor gives an object: a number for most, a UUID for a scanner registration. A kind's id
 * type is a parameter of its ExternalClient (number unless it says otherwise), and its status
 * schema types status.harborId the same way.
 */
export type HarborId = number | string;

export interface ManagedStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  harborId?: HarborId;
  /** The Harbor harborId belongs to (ConnectionResolver.harborOf). */
  harborUrl?: string;
  /** The object's name in Harbor (spec.name, or metadata.name). */
  harborName?: string;
  lastDriftCorrection?: { time: string; fields: string[] };
  [field: string]: unknown;
}

export interface ManagedObject extends KubeObject {
  spec?: unknown;
  status?: ManagedStatus;
}

/** Everything a kind's external client gets for one resource. */
export interface Input<S, C, X, Id extends HarborId = number> {
  resource: ManagedObject;
  spec: S;
  /** The object's name in Harbor (spec.name, defaulting to metadata.name). */
  harborName: string;
  /** The Harbor id recorded in status, if any. */
  knownId: Id | undefined;
  conn: C;
  /** What `prepare` resolved (referenced objects, credentials). */
  extra: X;
  logger: Logger;
  signal: AbortSignal;
}

/**
 * A wait on something outside this resource: reported as Ready=False with the reason, retried; a
 * wait that outlasts the wait timeout is also reported Stalled, and retried on. A `quiet` wait is
 * one whose end announces itself at once (a connection not checked yet): it writes no status and
 * no Event, so a restart or a new connection never turns a Ready resource not-Ready.
 */
export class NotReady extends Error {
  override readonly name = "NotReady";
  readonly reason: string;
  readonly quiet: boolean;
  constructor(reason: string, message: string, opts: { quiet?: boolean } = {}) {
    super(message);
    this.reason = reason;
    this.quiet = opts.quiet ?? false;
  }
}

/** Something only a change of the resource can fix: Stalled=True, no retry until the next change. */
export class Stalled extends Error {
  override readonly name = "Stalled";
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** What a delete did besides deleting the object, for the Deleted Event. */
export interface DeleteOutcome {
  /** E.g. "Harbor also removed its memberships in every project". */
  note?: string;
}

/** Harbor refuses the deletion for now (e.g. the project holds repositories). */
export class DeletionBlocked extends Error {
  override readonly name = "DeletionBlocked";
}

export interface AfterSync<St = Record<string, unknown>> {
  requeueAfterMs?: number;
  /**
   * Kind-specific status fields that come from outside Harbor's object (e.g. Secrets); a field set
   * to undefined is removed from status.
   */
  status?: Partial<St>;
  /**
   * Harbor matches the spec but what the kind delivers outside Harbor does not yet (a robot's
   * Secret copy refused in some namespace): Ready=False with this reason and message, Synced=True.
   * It is a wait like any other: retried, and past the wait timeout reported Stalled as well.
   */
  notReady?: { reason: string; message: string };
}

/**
 * What `delete` returns when Harbor keeps the object by design (the built-in Trivy scanner, which
 * nobody may delete): the resource goes as with deletionPolicy Orphan, and `kept` is the message of
 * its Orphaned Event, saying why.
 */
export interface Kept {
  kept: string;
}

/**
 * A kind's Harbor side. `St` is the kind's status type (its API schema's output): what `status` and
 * `afterSync` report is checked against it, so a misspelt field does not compile. `Id` is the type
 * of the ids Harbor gives its objects.
 */
export interface ExternalClient<S, O, C, X, St = Record<string, unknown>, Id extends HarborId = number> {
  /**
   * Resolves references and credentials; throw NotReady to wait or Stalled for a spec error.
   * While the resource is being deleted (metadata.deletionTimestamp), a reference that is already
   * gone must not block: fall back to what status recorded, so the Harbor object can still go.
   */
  prepare(input: Omit<Input<S, C, X, Id>, "extra">): Promise<X>;
  /** The Harbor object: by knownId when set, else by name. Never writes. */
  observe(input: Input<S, C, X, Id>): Promise<O | undefined>;
  create(input: Input<S, C, X, Id>): Promise<O>;
  update(input: Input<S, C, X, Id>, current: O, drift: string[]): Promise<O>;
  /**
   * Deletes; a missing object is success. Throw DeletionBlocked to keep the finalizer for now. The
   * outcome says what Harbor removed along with the object (a note for the Deleted Event), or that
   * Harbor keeps the object by design (Kept: the resource goes as with Orphan).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most kinds' delete resolves with nothing
  delete(input: Input<S, C, X, Id>, current: O): Promise<void | DeleteOutcome | Kept>;
  /** Pure: the spec fields whose Harbor value differs. Empty means up to date. */
  diff(input: Input<S, C, X, Id>, observed: O): string[];
  id(observed: O): Id;
  /**
   * How Events and messages name the observed object instead of "id N": for a setting a Harbor has
   * once (id 0), what it is now, e.g. "Daily, 0 0 0 * * *".
   */
  describe?(observed: O): string;
  /**
   * Pure: whether the observed object carries the name this resource manages. An object found by
   * a recorded id that does not is another object now: it is never updated or deleted.
   */
  identifies(input: Input<S, C, X, Id>, observed: O): boolean;
  /** Pure: the kind's own status fields for what Harbor has. */
  status(input: Input<S, C, X, Id>, observed: O): Partial<St>;
  /** Runs after Harbor matches the spec (robots deliver and rotate secrets here). */
  afterSync?(input: Input<S, C, X, Id>, observed: O, created: boolean): Promise<AfterSync<St>>;
  /** Runs when the resource goes away, after Harbor was handled (removes Secret copies). */
  finalize?(input: Omit<Input<S, C, X, Id>, "extra" | "conn"> & { conn?: C }): Promise<void>;
  /**
   * Batched reads for the drift sweep: Harbor's current objects for these resources, by id, in as
   * few calls as the API allows (one list, or one per project).
   */
  observeMany?(conn: C, inputs: Input<S, C, X, Id>[]): Promise<Map<Id, O>>;
  /**
   * Identity of the Harbor object within its Harbor, e.g. "project:team-a": one resource owns it
   * in each Harbor, whichever connection object reaches that Harbor (see claims.ts). Kinds whose
   * objects live inside another resource name it with the namespace of the reference. A kind whose
   * object a Harbor has once (its GC schedule, its default scanner) returns a constant such as
   * "gc-schedule": a singleton claim, so that two resources for one Harbor conflict.
   */
  claim(spec: S, harborName: string, namespace: string): string;
  /**
   * A per-Harbor setting the spec takes besides its object (Harbor's default scanner), as a
   * singleton claim of its own ("scanner-default") and what it is in words: a second resource
   * taking it in the same Harbor gets Conflict naming the holder, and never reaches Harbor. The
   * holder is the resource whose status shows it holds the setting (holdsSetting), else the oldest,
   * so that neither a restart nor a resource asking later moves it.
   */
  setting?(spec: S): { claim: string; what: string } | undefined;
  /** Pure: the status shows that the resource holds its setting in Harbor (e.g. status.isDefault). */
  holdsSetting?(status: ManagedStatus): boolean;
}

/** How the composition root reaches a connection; the runtime knows nothing about Harbor. */
export interface ConnectionResolver<C> {
  /** Throws NotReady when the connection is missing, not Ready, or not allowed for the namespace. */
  resolve(namespace: string, ref: ManagedSpec["connectionRef"]): Promise<C>;
  /** Which external system a resolved connection reaches: recorded ids belong to it. */
  harborOf(conn: C): string;
  /**
   * Which external system a reference points at now, without resolving it: claims are keyed by
   * it, so that one object has one owner whichever connection object reaches it.
   */
  harborKey(namespace: string, ref: ManagedSpec["connectionRef"]): string;
  /** Whether resources may adopt objects that exist already through this connection. */
  mayAdopt(conn: C): { allowed: true } | { allowed: false; why: string };
}

/** How errors of the external system become conditions. */
export interface ErrorClassifier {
  classify(
    e: unknown,
  ): { reason: string; message: string; terminal: boolean; retryAfterMs?: number } | undefined;
}

/** What the reconciler reads of its informer: the cache and its change handlers. */
export type ManagedCache = Pick<Informer<ManagedObject>, "get" | "list" | "on">;

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

type Ready = { status: Condition["status"]; reason: string; message: string };

/** The reason of a wait on another resource of ours. */
export const DEPENDENCY_NOT_READY = "DependencyNotReady";
/** How long a new resource may wait on another before the wait shows in its status. */
const DEPENDENCY_GRACE_MS = 10_000;
/** How often a wait that is reported Stalled is retried (events of what it waits on come sooner). */
const STALLED_WAIT_RETRY_MS = 60_000;
/** How often a quiet wait looks again (what it waits on usually announces itself first). */
const QUIET_WAIT_RETRY_MS = 2_000;
/** How long an observation of the drift sweep may stand in for the reconcile's own read. */
const HINT_TTL_MS = 10_000;

export class ManagedReconciler<S extends ManagedSpec, O, C, X, Id extends HarborId = number>
  implements Reconciler
{
  readonly #o: ManagedReconcilerOptions<S, O, C, X, Id>;
  /** One owner per Harbor object, across every connection that reaches the same Harbor. */
  readonly #claims: ClaimIndex;
  /** One holder per per-Harbor setting a spec takes besides its object (ExternalClient.setting). */
  readonly #settings: ClaimIndex;
  /** Observations from the drift sweep, reused by the reconcile they trigger. */
  readonly #hints = new Map<string, { observed: O; at: number; generation: number | undefined }>();
  /** How often each blocked deletion has been tried, for its backoff. */
  readonly #blocked = new Map<string, number>();
  /** Our own writes, until the informer shows them. */
  readonly #written = new OwnWrites<ManagedObject>();
  /** Called with resource keys to reconcile (set by the controller wiring). */
  enqueue: (key: string) => void = () => {};

  constructor(o: ManagedReconcilerOptions<S, O, C, X, Id>) {
    this.#o = o;
    this.#claims = new ClaimIndex({
      claimant: (key) => this.#claimant(key),
      // Whoever waited on a released claim may own it now.
      released: (key) => this.enqueue(key),
    });
    this.#settings = new ClaimIndex({
      claimant: (key) => this.#claimant(key, true),
      released: (key) => this.enqueue(key),
    });
    o.informer.on({
      add: (obj) => this.#setClaims(obj),
      update: (_old, obj) => {
        this.#setClaims(obj);
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
    const parsed = this.#o.specSchema.safeParse(resource.spec ?? {});
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

      const owner = this.#claimOwner(resource, spec, harborName);
      if (owner !== undefined) {
        await this.#writeStatus(resource, {
          status: "False",
          reason: "Conflict",
          message: `${this.#o.type.kind} ${owner} already manages this Harbor object; only one resource may own it`,
        });
        return {};
      }
      const setting = this.#o.external.setting?.(spec);
      const holder = setting && this.#settingHolder(resource, spec, setting.claim);
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
      const movedFrom = this.#movedFrom(resource, harbor);
      const extra = await this.#o.external.prepare({ ...base, conn });
      const input: Input<S, C, X, Id> = {
        ...base,
        conn,
        extra,
        ...(movedFrom === undefined ? {} : { knownId: undefined }),
      };
      return await this.#sync(resource, input, harbor, movedFrom);
    } catch (e) {
      return this.#failed(resource, e, log);
    }
  }

  /**
   * The Harbor the recorded id belongs to, when the connection now reaches another one. The id is
   * then never used: nothing is read, updated or deleted by an id from another Harbor.
   */
  #movedFrom(resource: ManagedObject, harbor: string): string | undefined {
    const recorded = resource.status?.harborUrl;
    return recorded !== undefined && recorded !== harbor ? recorded : undefined;
  }

  async #sync(
    resource: ManagedObject,
    input: Input<S, C, X, Id>,
    harbor: string,
    movedFrom: string | undefined,
  ): Promise<Result> {
    const ext = this.#o.external;
    const hint = movedFrom === undefined ? this.#takeHint(resource) : undefined;
    let observed = hint ?? (await ext.observe(input));
    let created = false;
    const hasFinalizer = resource.metadata.finalizers?.includes(FINALIZER) === true;
    const policy = input.spec.creationPolicy;
    // The finalizer without a recorded id marks a create of ours that may have happened (in the
    // Harbor status names, or this one when it names none yet).
    let mayTakeOver = hasFinalizer && input.knownId === undefined && movedFrom === undefined;

    if (movedFrom !== undefined) {
      this.#o.events.record(
        resource,
        "Normal",
        "HarborChanged",
        `Now managed in Harbor ${harbor}: ${this.#what(input)} is looked up there by name; id ${resource.status?.harborId ?? "-"} in ${movedFrom} is left as it is`,
      );
    } else if (observed && input.knownId !== undefined && !ext.identifies(input, observed)) {
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
      resource = await this.#ensureFinalizer(resource);
      // A create must find no id in status, and no other Harbor: if it is interrupted, the next
      // reconcile then takes the new object over instead of refusing it as someone else's.
      const recorded = resource.status?.harborUrl;
      if (resource.status?.harborId !== undefined || (recorded !== undefined && recorded !== harbor))
        resource = await this.#recordPendingCreate(resource, harbor);
      input.resource = resource;
      // An id looked up in this Harbor and not found: the object was deleted outside the operator.
      const lostId = input.knownId;
      observed = await ext.create({ ...input, resource });
      created = true;
      if (lostId === undefined)
        this.#o.events.record(
          resource,
          "Normal",
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
    } else if (input.knownId === undefined) {
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
      resource = await this.#ensureFinalizer(resource);
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
    const after = ext.afterSync ? await ext.afterSync({ ...input, resource }, observed, created) : {};
    const specChanged = resource.metadata.generation !== resource.status?.observedGeneration;
    const fields: Record<string, unknown> = {
      harborId: ext.id(observed),
      harborUrl: harbor,
      ...ext.status(input, observed),
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
      return { requeueAfterMs: Math.min(after.requeueAfterMs ?? wait.retryMs, wait.retryMs) };
    }
    const wasReady = resource.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    await this.#writeStatus(
      resource,
      { status: "True", reason: "Synced", message: `${this.#what(input)} matches the spec` },
      { fields },
    );
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
    if (spec.deletionPolicy === "Orphan" || this.#claimOwner(resource, spec, base.harborName) !== undefined) {
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
    const movedFrom = this.#movedFrom(resource, harbor);
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
    if (observed && base.knownId !== undefined && !ext.identifies(input, observed)) {
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
      else
        this.#o.events.record(
          resource,
          "Normal",
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
      const now = this.#o.now();
      // Resources applied together (a project and its robots) usually wait a moment for each
      // other; a new resource reports such a short wait only if it lasts.
      const fresh = now - Date.parse(resource.metadata.creationTimestamp ?? "") < DEPENDENCY_GRACE_MS;
      if (e.reason === DEPENDENCY_NOT_READY && fresh && !resource.status?.conditions?.length) {
        return { requeueAfterMs: 2000 };
      }
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
    if (isKubeError(e, "conflict")) throw e; // a stale write: retry with fresh state
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
   * How long the resource has been not-Ready, whether that is past the wait timeout, and when to
   * look again. A wait is bounded: past the timeout it is reported Stalled too (Argo CD: Degraded,
   * kstatus: Failed), with what it waits on, and it goes on retrying.
   */
  #waiting(resource: ManagedObject): { stalled: boolean; waited: number; retryMs: number } {
    const now = this.#o.now();
    const ready = resource.status?.conditions?.find((c) => c.type === "Ready");
    const since = ready?.status === "False" ? Date.parse(ready.lastTransitionTime) : now;
    const timeout = this.#o.waitTimeoutMs ?? 120_000;
    const waited = Number.isNaN(since) ? 0 : now - since;
    const stalled = waited >= timeout;
    const retry = this.#o.dependencyRetryMs ?? 15_000;
    return {
      stalled,
      waited,
      retryMs: stalled ? STALLED_WAIT_RETRY_MS : Math.max(1000, Math.min(retry, timeout - waited)),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Kubernetes writes

  async #ensureFinalizer(resource: ManagedObject): Promise<ManagedObject> {
    const finalizers = resource.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return resource;
    const updated = await this.#o.kube.mergePatch<ManagedObject>(
      this.#o.type,
      resource.metadata.namespace,
      resource.metadata.name,
      { metadata: { finalizers: [...finalizers, FINALIZER] } },
      resource.metadata.resourceVersion,
    );
    this.#written.remember(resource.metadata.resourceVersion, updated);
    return { ...resource, metadata: { ...resource.metadata, ...updated.metadata } };
  }

  /** Status before a create that follows an old id or another Harbor: no id, this Harbor. */
  async #recordPendingCreate(resource: ManagedObject, harbor: string): Promise<ManagedObject> {
    const updated = await this.#o.kube.patchStatus<ManagedObject>(
      this.#o.type,
      resource.metadata.namespace,
      resource.metadata.name,
      { harborId: null, harborUrl: harbor },
    );
    this.#written.remember(resource.metadata.resourceVersion, updated);
    return {
      ...resource,
      metadata: { ...resource.metadata, ...updated.metadata },
      status: updated.status ?? {},
    };
  }

  async #releaseFinalizer(resource: ManagedObject, log: Logger, why: string): Promise<Result> {
    const finalizers = (resource.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
    try {
      await this.#o.kube.mergePatch(
        this.#o.type,
        resource.metadata.namespace,
        resource.metadata.name,
        { metadata: { finalizers } },
        resource.metadata.resourceVersion,
      );
    } catch (e) {
      if (isKubeError(e, "notFound")) return {};
      throw e;
    }
    log.info({ why }, "finalizer removed");
    return {};
  }

  /**
   * Computes the status from `ready` and the kind's fields and writes it through the status
   * subresource, only when it differs from what the resource already shows.
   */
  async #writeStatus(
    resource: ManagedObject,
    ready: Ready,
    o: {
      fields?: Record<string, unknown>;
      stalled?: boolean;
      synced?: boolean;
      /** The generation the status describes, when not the current one (a paused resource). */
      generation?: number | undefined;
    } = {},
  ): Promise<void> {
    const generation = "generation" in o ? o.generation : resource.metadata.generation;
    const old = resource.status ?? {};
    const now = () => this.#now();
    let conditions = setCondition(old.conditions, { type: "Ready", ...ready }, generation, now);
    const synced = o.synced ?? ready.status === "True";
    conditions = setCondition(
      conditions,
      synced
        ? { type: "Synced", status: "True", reason: "Synced", message: "" }
        : { type: "Synced", status: "False", reason: ready.reason, message: ready.message },
      generation,
      now,
    );
    conditions = o.stalled
      ? setCondition(
          conditions,
          { type: "Stalled", status: "True", reason: ready.reason, message: ready.message },
          generation,
          now,
        )
      : conditions.filter((c) => c.type !== "Stalled");
    conditions = withReconciling(conditions, generation, now);
    const next: ManagedStatus = {
      ...old,
      ...o.fields,
      ...harborNameField(resource),
      observedGeneration: generation,
      conditions,
    };
    // A field a kind sets to undefined is one it no longer reports: remove it.
    for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
    if (jsonEqual(old, next)) return;
    // Merge patch: keys that disappeared must be sent as null to be removed.
    const patch: Record<string, unknown> = { ...next };
    for (const k of Object.keys(old)) if (!(k in next)) patch[k] = null;
    const updated = await this.#o.kube.patchStatus<ManagedObject>(
      this.#o.type,
      resource.metadata.namespace,
      resource.metadata.name,
      patch,
    );
    this.#written.remember(resource.metadata.resourceVersion, updated);
    resource.status = updated.status ?? next;
    resource.metadata.resourceVersion = updated.metadata.resourceVersion;
    // An Event when the resource turns not-Ready for a new reason. Waiting for another resource
    // is ordinary orchestration, not a warning.
    const was = old.conditions?.find((c) => c.type === "Ready");
    const newTrouble = ready.status === "False" && (was?.status !== "False" || was.reason !== ready.reason);
    if (newTrouble && ready.reason !== DEPENDENCY_NOT_READY) {
      this.#o.events.record(resource, "Warning", ready.reason, ready.message);
    }
  }

  // -------------------------------------------------------------------------------------------
  // claims: one resource per Harbor object

  /** The object's claim within its Harbor; which Harbor is settled when claims are compared. */
  #claimKeyOf(obj: ManagedObject): string | undefined {
    const parsed = this.#o.specSchema.safeParse(obj.spec ?? {});
    if (!parsed.success) return undefined;
    const spec = parsed.data;
    return this.#o.external.claim(spec, spec.name ?? obj.metadata.name, obj.metadata.namespace ?? "");
  }

  /** The Harbor a resource's connection reference points at now. */
  #harborKeyOf(obj: ManagedObject): string {
    const ref = (obj.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
    return this.#o.connections.harborKey(obj.metadata.namespace ?? "", {
      kind: ref?.kind === "ClusterHarborConnection" ? "ClusterHarborConnection" : "HarborConnection",
      name: ref?.name ?? "",
    });
  }

  /** Records a resource's claims: its object's, and its setting's if its spec takes one. */
  #setClaims(obj: ManagedObject): void {
    const key = objectKey(obj);
    this.#claims.set(key, this.#claimKeyOf(obj));
    const parsed = this.#o.specSchema.safeParse(obj.spec ?? {});
    this.#settings.set(key, parsed.success ? this.#o.external.setting?.(parsed.data)?.claim : undefined);
  }

  /**
   * How a claim index sees a resource now: its Harbor, and whether it holds the object there (or,
   * for a setting, holds the setting there too).
   */
  #claimant(key: string, setting = false): Claimant | undefined {
    const obj = this.#o.informer.get(key);
    if (!obj) return undefined;
    const harbor = this.#harborKeyOf(obj);
    const status = obj.status;
    const holdsObject =
      status?.harborId !== undefined &&
      (status.harborUrl === undefined || status.harborUrl === harbor) &&
      obj.metadata.finalizers?.includes(FINALIZER) === true;
    // A resource in Conflict has not looked at Harbor since: what its status says it holds is stale.
    const inConflict = status?.conditions?.some((c) => c.type === "Ready" && c.reason === "Conflict");
    return {
      key,
      uid: obj.metadata.uid,
      creationTimestamp: obj.metadata.creationTimestamp,
      harbor,
      holds: holdsObject && (!setting || (!inConflict && this.#o.external.holdsSetting?.(status) === true)),
    };
  }

  /** The resource is gone: its claim, hint, backoff and written copy go with it. */
  #forget(obj: ManagedObject): void {
    const key = objectKey(obj);
    this.#claims.remove(key);
    this.#settings.remove(key);
    this.#hints.delete(key);
    this.#blocked.delete(key);
    this.#written.forget(key);
  }

  /** The key of the resource that holds this setting in this resource's Harbor, when another does. */
  #settingHolder(resource: ManagedObject, spec: S, claim: string): string | undefined {
    const ns = resource.metadata.namespace ?? "";
    return this.#settings.owner(claim, {
      uid: resource.metadata.uid,
      harbor: this.#o.connections.harborKey(ns, spec.connectionRef),
    });
  }

  /**
   * The key of the resource that owns this resource's claim, when it is another one: claims are
   * compared across every connection that reaches the same Harbor.
   */
  #claimOwner(resource: ManagedObject, spec: S, harborName: string): string | undefined {
    const ns = resource.metadata.namespace ?? "";
    return this.#claims.owner(this.#o.external.claim(spec, harborName, ns), {
      uid: resource.metadata.uid,
      harbor: this.#o.connections.harborKey(ns, spec.connectionRef),
    });
  }

  // -------------------------------------------------------------------------------------------
  // drift sweep

  /**
   * Reads Harbor in batches for every synced resource and queues those whose Harbor object is
   * missing, drifted, or whose status no longer matches. Returns how many were queued.
   *
   * `hintAll` (the sweep at start, before the workers run): every observation found is kept for
   * the reconcile of its resource, not only those of the resources queued, so that the reconciles
   * every start queues read Harbor once per list instead of once per object.
   */
  async sweep(logger: Logger, signal: AbortSignal, o: { hintAll?: boolean } = {}): Promise<number> {
    const ext = this.#o.external;
    if (!ext.observeMany) return 0;
    const hintAll = o.hintAll === true;
    // Hints no reconcile took (it ended before reading Harbor: a conflict, say) are dropped here.
    const now = this.#o.now();
    for (const [key, hint] of this.#hints) if (now - hint.at >= HINT_TTL_MS) this.#hints.delete(key);
    const groups = new Map<C, Input<S, C, X, Id>[]>();
    for (const resource of this.#o.informer.list()) {
      const id = resource.status?.harborId as Id | undefined;
      if (id === undefined || resource.metadata.deletionTimestamp) continue;
      // A spec change not reconciled yet is queued already; its reconcile must observe (and check
      // the new spec against) Harbor itself rather than take a hint read for the old one.
      if (resource.status?.observedGeneration !== resource.metadata.generation) continue;
      // Stalled on this generation: only a change of the resource can help, not another write.
      const stalled = resource.status?.conditions?.find((c) => c.type === "Stalled");
      if (stalled?.status === "True" && stalled.observedGeneration === resource.metadata.generation) continue;
      if (resource.metadata.annotations?.[PAUSED_ANNOTATION] === "true") continue;
      const parsed = this.#o.specSchema.safeParse(resource.spec ?? {});
      if (!parsed.success) continue;
      const spec = parsed.data;
      try {
        const conn = await this.#o.connections.resolve(resource.metadata.namespace ?? "", spec.connectionRef);
        if (this.#movedFrom(resource, this.#o.connections.harborOf(conn)) !== undefined) {
          this.enqueue(objectKey(resource)); // its reconcile handles the move
          continue;
        }
        const base = {
          resource,
          spec,
          harborName: spec.name ?? resource.metadata.name,
          knownId: id,
          conn,
          logger,
          signal,
        };
        const extra = await ext.prepare(base);
        const list = groups.get(conn) ?? [];
        list.push({ ...base, extra });
        groups.set(conn, list);
      } catch {
        // Something it needs went away (a Secret, a reference): its own reconcile reports why.
        this.enqueue(objectKey(resource));
      }
    }
    let queued = 0;
    for (const [conn, inputs] of groups) {
      let observed: Map<Id, O>;
      try {
        observed = await ext.observeMany(conn, inputs);
      } catch (e) {
        logger.warn({ err: e instanceof Error ? e.message : String(e) }, "drift sweep could not read Harbor");
        continue;
      }
      for (const input of inputs) {
        const o = observed.get(input.knownId as Id);
        const key = objectKey(input.resource);
        const stale =
          !o ||
          !ext.identifies(input, o) ||
          ext.diff(input, o).length > 0 ||
          !statusShows(input.resource.status, ext.status(input, o));
        if (o && (stale || hintAll)) {
          const generation = input.resource.metadata.generation;
          this.#hints.set(key, { observed: o, at: this.#o.now(), generation });
        }
        if (!stale) continue;
        this.enqueue(key);
        queued++;
      }
    }
    return queued;
  }

  #takeHint(resource: ManagedObject): O | undefined {
    const key = objectKey(resource);
    const hint = this.#hints.get(key);
    this.#hints.delete(key);
    // Only for the spec it was read for: a kind's observe also checks the spec against Harbor.
    const fresh = hint && this.#o.now() - hint.at < HINT_TTL_MS;
    return fresh && hint.generation === resource.metadata.generation ? hint.observed : undefined;
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

/**
 * status.harborName, for `kubectl get -o wide`: spec.name or, when unset, metadata.name — known
 * before anything reached Harbor, so the column is never empty once the operator has looked.
 */
function harborNameField(resource: ManagedObject): { harborName?: string } {
  const name = (resource.spec as { name?: unknown } | undefined)?.name;
  const harborName = typeof name === "string" ? name : resource.metadata.name;
  // A name with hidden characters is refused (InvalidSpec); it is not printed.
  return harborName === safeText(harborName) ? { harborName } : {};
}

function statusShows(status: ManagedStatus | undefined, fields: Record<string, unknown>): boolean {
  if (!status) return false;
  return Object.entries(fields).every(([k, v]) => jsonEqual(status[k], v));
}
