// Projects this operator has created, so that the first lookup of a robot, label, webhook policy,
// group member, retention policy or immutable tag rule in one of them needs no Harbor request: a
// project Harbor has just created holds none of them (its only member is its creator, a user, so
// members of users are still looked up; a proxy-cache project gets a retention policy with it, so
// its retention policy is still looked up). Each kind's first lookup per project is answered once;
// every later one, and every lookup after a restart (nothing is remembered), asks Harbor as before,
// so a create that failed or whose answer was lost is found by the retry's lookup. Were something
// of that name created by someone else in between, the create is refused as a duplicate and the
// retry looks: one failed attempt, nothing taken or lost.

/** The kind name of retention policies, which Harbor creates with a proxy-cache project. */
export const RETENTION_POLICY = "retention policy";

/**
 * How many of the latest created projects are remembered. A count, not a time: a wave of thousands
 * of projects reaches their robots and labels minutes after the projects themselves, and a project
 * never looked up again costs a few hundred bytes (10,000 of them, about 3 MiB at most).
 */
export const REMEMBERED_PROJECTS = 10_000;

export class FreshProjects {
  readonly #limit: number;
  /** "harbor projectId" → the kinds already looked up in it, oldest creation first. */
  readonly #created = new Map<string, Set<string>>();

  constructor(limit: number = REMEMBERED_PROJECTS) {
    this.#limit = limit;
  }

  /**
   * The project was just created by this operator in this Harbor; `holds` names the kinds Harbor
   * created with it (they are looked up as usual).
   */
  created(harbor: string, projectId: number, holds: readonly string[] = []): void {
    const key = `${harbor} ${projectId}`;
    this.#created.delete(key);
    this.#created.set(key, new Set(holds));
    // Oldest first: forget what no longer fits.
    for (const old of this.#created.keys()) {
      if (this.#created.size <= this.#limit) break;
      this.#created.delete(old);
    }
  }

  /**
   * True when the project is new and this is the first lookup of this kind in it: the caller may
   * take "not there" without asking Harbor. Any later call for the same kind returns false.
   */
  firstLookup(harbor: string, projectId: number, kind: string): boolean {
    const looked = this.#created.get(`${harbor} ${projectId}`);
    if (!looked || looked.has(kind)) return false;
    looked.add(kind);
    return true;
  }
}
