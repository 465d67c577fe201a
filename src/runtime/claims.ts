// One owner per Harbor object. A kind names each resource's claim: the identity of its object within
// a Harbor ("project:team-a"), or a constant for an object a Harbor has once ("gc-schedule"). Two
// resources with one claim compete only when their connections reach the same Harbor, whichever
// connection objects they name. Which Harbor that is, is settled when an owner is asked for, not
// when the claim is recorded: a connection's URL can change without the resource changing.

import { FINALIZER } from "../api/common.ts";
import { objectKey } from "../kube/types.ts";
import type {
  ConnectionResolver,
  ExternalClient,
  ManagedCache,
  ManagedObject,
  ManagedSpec,
} from "./external-client.ts";
import type { SpecParse } from "./spec-parser.ts";

/** A resource that claims an object, as the owner rule sees it. */
export interface Claimant {
  key: string;
  uid: string | undefined;
  creationTimestamp: string | undefined;
  /** The Harbor its connection reference reaches now. */
  harbor: string;
  /** It holds the object there: the id recorded for that Harbor, and the finalizer. */
  holds: boolean;
}

export interface ClaimIndexOptions {
  /** The claimant a resource key stands for now, or undefined when it is gone. */
  claimant(key: string): Claimant | undefined;
  /** Called with each resource that shared a claim somebody let go of: it may own it now. */
  released(key: string): void;
}

export class ClaimIndex {
  readonly #o: ClaimIndexOptions;
  /** claim → keys of the resources claiming it. */
  readonly #byClaim = new Map<string, Set<string>>();
  readonly #claimOf = new Map<string, string>();

  constructor(o: ClaimIndexOptions) {
    this.#o = o;
  }

  /** Records a resource's claim, moving it from an older one; undefined withdraws it. */
  set(key: string, claim: string | undefined): void {
    const previous = this.#claimOf.get(key);
    if (previous === claim) return;
    if (previous !== undefined) this.#release(key, previous);
    if (claim === undefined) return;
    this.#claimOf.set(key, claim);
    let keys = this.#byClaim.get(claim);
    if (!keys) {
      keys = new Set();
      this.#byClaim.set(claim, keys);
    }
    keys.add(key);
  }

  /** The resource is gone: its claim goes, and whoever waited on it is told. */
  remove(key: string): void {
    const claim = this.#claimOf.get(key);
    if (claim !== undefined) this.#release(key, claim);
  }

  /** The keys claiming `claim`, in any Harbor. */
  claimants(claim: string): string[] {
    return [...(this.#byClaim.get(claim) ?? [])];
  }

  /**
   * The key of the resource that owns `claim` in `self`'s Harbor, when it is not `self`. The one
   * that holds the object there keeps it; otherwise the oldest resource (then the lowest uid) wins.
   */
  owner(claim: string, self: { uid: string | undefined; harbor: string }): string | undefined {
    const keys = this.#byClaim.get(claim);
    if (!keys || keys.size <= 1) return undefined;
    const rivals = [...keys]
      .map((k) => this.#o.claimant(k))
      .filter((c): c is Claimant => c !== undefined && c.harbor === self.harbor);
    if (rivals.length <= 1) return undefined;
    const owner =
      rivals.find((c) => c.holds) ??
      rivals.sort(
        (a, b) =>
          (a.creationTimestamp ?? "").localeCompare(b.creationTimestamp ?? "") ||
          (a.uid ?? "").localeCompare(b.uid ?? ""),
      )[0];
    return owner && owner.uid !== self.uid ? owner.key : undefined;
  }

  #release(key: string, claim: string): void {
    this.#claimOf.delete(key);
    const keys = this.#byClaim.get(claim);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.#byClaim.delete(claim);
    for (const other of keys) this.#o.released(other);
  }
}

/** What the claims of a kind's resources need of the lifecycle. */
export interface ResourceClaimsOptions<S extends ManagedSpec> {
  /** The kind's spec parser (parsed once per version). */
  parse: SpecParse<S>;
  informer: Pick<ManagedCache, "get">;
  external: Pick<ExternalClient<S, unknown, unknown, unknown>, "claim" | "setting" | "holdsSetting">;
  connections: Pick<ConnectionResolver<unknown>, "harborKey">;
  /** Called with each resource that waited on a claim somebody let go of. */
  released: (key: string) => void;
}

/**
 * The claims of one kind's resources, kept from its informer's events: each resource's claim on its
 * object, and on the per-Harbor setting its spec takes, if any (ExternalClient.setting).
 */
export class ResourceClaims<S extends ManagedSpec> {
  readonly #o: ResourceClaimsOptions<S>;
  readonly #objects: ClaimIndex;
  readonly #settings: ClaimIndex;

  constructor(o: ResourceClaimsOptions<S>) {
    this.#o = o;
    this.#objects = new ClaimIndex({ claimant: (key) => this.#claimant(key), released: o.released });
    this.#settings = new ClaimIndex({ claimant: (key) => this.#claimant(key, true), released: o.released });
  }

  /** Records a resource's claims: its object's, and its setting's if its spec takes one. */
  set(obj: ManagedObject): void {
    const key = objectKey(obj);
    const parsed = this.#o.parse(obj.spec);
    const spec = parsed.success ? parsed.data : undefined;
    this.#objects.set(
      key,
      spec && this.#o.external.claim(spec, spec.name ?? obj.metadata.name, obj.metadata.namespace ?? ""),
    );
    this.#settings.set(key, spec && this.#o.external.setting?.(spec)?.claim);
  }

  /** The resource is gone: its claims go, and whoever waited on them is told. */
  remove(key: string): void {
    this.#objects.remove(key);
    this.#settings.remove(key);
  }

  /**
   * The key of the resource that owns this resource's claim, when it is another one: claims are
   * compared across every connection that reaches the same Harbor.
   */
  objectOwner(resource: ManagedObject, spec: S, harborName: string): string | undefined {
    const ns = resource.metadata.namespace ?? "";
    return this.#objects.owner(this.#o.external.claim(spec, harborName, ns), {
      uid: resource.metadata.uid,
      harbor: this.#o.connections.harborKey(ns, spec.connectionRef),
    });
  }

  /** The key of the resource that holds this setting in this resource's Harbor, when another does. */
  settingHolder(resource: ManagedObject, spec: S, claim: string): string | undefined {
    const ns = resource.metadata.namespace ?? "";
    return this.#settings.owner(claim, {
      uid: resource.metadata.uid,
      harbor: this.#o.connections.harborKey(ns, spec.connectionRef),
    });
  }

  /** The Harbor a resource's connection reference points at now. */
  #harborKeyOf(obj: ManagedObject): string {
    const ref = (obj.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
    return this.#o.connections.harborKey(obj.metadata.namespace ?? "", {
      kind: ref?.kind === "ClusterHarborConnection" ? "ClusterHarborConnection" : "HarborConnection",
      name: ref?.name ?? "",
    });
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
}
