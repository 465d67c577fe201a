// One owner per Harbor object. A kind names each resource's claim: the identity of its object within
// a Harbor ("project:team-a"), or a constant for an object a Harbor has once ("gc-schedule"). Two
// resources with one claim compete only when their connections reach the same Harbor, whichever
// connection objects they name. Which Harbor that is, is settled when an owner is asked for, not
// when the claim is recorded: a connection's URL can change without the resource changing.

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
