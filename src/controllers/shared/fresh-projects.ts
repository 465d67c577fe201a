// Projects this operator has just created, so that the first lookup of a robot, label, webhook
// policy, group member, retention policy or immutable tag rule in one of them needs no Harbor
// request: a project Harbor has just created holds none of them (its only member is its creator, a
// user, so members of users are still looked up; a proxy-cache project gets a retention policy
// with it, so its retention policy is still looked up). Each kind's first lookup per project is answered once; every later one, and
// every lookup after a restart (nothing is remembered), asks Harbor as before, so a create that
// failed or whose answer was lost is found by the retry's lookup. Were something of that name
// created by someone else in between, the create is refused as a duplicate and the retry looks.

/** The kind name of retention policies, which Harbor creates with a proxy-cache project. */
export const RETENTION_POLICY = "retention policy";

/** How long after its creation a project counts as new. */
const FRESH_MS = 60_000;

export class FreshProjects {
  readonly #now: () => number;
  /** "harbor projectId" → when it was created and the kinds already looked up in it. */
  readonly #created = new Map<string, { at: number; looked: Set<string> }>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * The project was just created by this operator in this Harbor; `holds` names the kinds Harbor
   * created with it (they are looked up as usual).
   */
  created(harbor: string, projectId: number, holds: readonly string[] = []): void {
    const now = this.#now();
    // Oldest first: drop what is no longer new.
    for (const [key, p] of this.#created) {
      if (now - p.at < FRESH_MS) break;
      this.#created.delete(key);
    }
    this.#created.set(`${harbor} ${projectId}`, { at: now, looked: new Set(holds) });
  }

  /**
   * True when the project is new and this is the first lookup of this kind in it: the caller may
   * take "not there" without asking Harbor. Any later call for the same kind returns false.
   */
  firstLookup(harbor: string, projectId: number, kind: string): boolean {
    const p = this.#created.get(`${harbor} ${projectId}`);
    if (!p || this.#now() - p.at >= FRESH_MS || p.looked.has(kind)) return false;
    p.looked.add(kind);
    return true;
  }
}
