// The contract between a kind and the managed lifecycle (managed.ts): what every Harbor-backed
// resource looks like, what a kind's ExternalClient gives (how to observe, create, update and delete
// its Harbor object, and the pure mappings between spec and Harbor), the errors it may throw to
// wait or to stop, and how the lifecycle reaches connections and classifies errors. A kind needs
// this file and nothing else of the runtime to write its Harbor side.
import type { Logger } from "pino";
import type { Condition, KubeObject } from "../kube/types.ts";
import type { Informer } from "./informer.ts";

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
  /** The note says what every delete of the kind does (its docs say so too): a log line, no Event. */
  routine?: boolean;
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
  /**
   * Whether a refused create may mean that the object exists already (its name taken, or a user
   * who may not create but may adopt): a kind that tells creates a new resource's object without
   * looking it up first, and looks it up only when its create is refused so.
   */
  refusedAsExisting?(error: unknown): boolean;
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
   * a recorded id that does not is another object now: it is never updated or deleted. Without
   * it, what the recorded id finds is this resource's (a kind whose objects have no name of
   * their own, or a setting a Harbor has once).
   */
  identifies?(input: Input<S, C, X, Id>, observed: O): boolean;
  /** Pure: the kind's own status fields for what Harbor has (none without it). */
  status?(input: Input<S, C, X, Id>, observed: O): Partial<St>;
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

/** What the lifecycles read of a kind's informer: the cache and its change handlers. */
export type ManagedCache = Pick<Informer<ManagedObject>, "get" | "list" | "on">;
