// Harbor's local users: the admin (user id 1) and any users a test adds. LDAP imports add users here
// too. Passwords are compared in constant time; they never appear in any response.
//
// Logins fail the way Harbor's do: a wrong password (or an unknown user) locks that principal for
// the freeze time and is answered only after it; while a principal is locked even its right
// password makes the caller anonymous (401 on protected routes). The lock is real time, not world
// time: Harbor sleeps.
import { timingSafeEqual } from "node:crypto";
import type { World } from "./world.ts";

/** Harbor's frozenTime after a failed password login (src/core/auth). */
export const LOGIN_FREEZE_MS = 1500;

/** The outcome of one basic-auth login. */
export interface Login {
  user?: UserRecord;
  /** How long Harbor sleeps before it answers (a failed login). */
  delayMs: number;
}

export interface UserRecord {
  user_id: number;
  username: string;
  password: string;
  sysadmin: boolean;
  realname: string;
  email: string;
  comment: string;
  /** Where the user came from: "local" or "ldap". */
  source: "local" | "ldap";
  creation_time: string;
  update_time: string;
}

export class Identities {
  readonly #world: World;
  readonly #users = new Map<number, UserRecord>();
  /** Principal → when (performance.now()) its lock ends. */
  readonly #lockedUntil = new Map<string, number>();
  readonly #freezeMs: number;

  constructor(world: World, adminPassword: string, freezeMs = LOGIN_FREEZE_MS) {
    this.#world = world;
    this.#freezeMs = freezeMs;
    // Harbor's user ids: 1 is admin, 2 is the anonymous placeholder; real users start at 3.
    world.ids.next("user");
    world.ids.next("user");
    this.#users.set(1, {
      user_id: 1,
      username: "admin",
      password: adminPassword,
      sysadmin: true,
      realname: "system admin",
      email: "admin@example.com",
      comment: "admin user",
      source: "local",
      creation_time: world.nowText(),
      update_time: world.nowText(),
    });
  }

  get admin(): UserRecord {
    return this.#users.get(1) as UserRecord;
  }

  add(u: {
    username: string;
    password: string;
    sysadmin?: boolean;
    realname?: string;
    email?: string;
    comment?: string;
    source?: "local" | "ldap";
  }): UserRecord {
    if (this.byName(u.username)) throw new Error(`user ${u.username} already exists`);
    const id = this.#world.ids.next("user");
    const rec: UserRecord = {
      user_id: id,
      username: u.username,
      password: u.password,
      sysadmin: u.sysadmin ?? false,
      realname: u.realname ?? u.username,
      email: u.email ?? `${u.username}@example.com`,
      comment: u.comment ?? "",
      source: u.source ?? "local",
      creation_time: this.#world.nowText(),
      update_time: this.#world.nowText(),
    };
    this.#users.set(id, rec);
    return rec;
  }

  /** Every user, by id. */
  all(): UserRecord[] {
    return [...this.#users.values()];
  }

  byId(id: number): UserRecord | undefined {
    return this.#users.get(id);
  }

  /** Removes a user (Harbor marks it deleted and frees its name and email). */
  delete(id: number): void {
    this.#users.delete(id);
  }

  byName(username: string): UserRecord | undefined {
    for (const u of this.#users.values()) if (u.username === username) return u;
    return undefined;
  }

  setPassword(username: string, password: string): void {
    const u = this.byName(username);
    if (!u) throw new Error(`no user ${username}`);
    u.password = password;
  }

  authenticate(username: string, password: string): UserRecord | undefined {
    const u = this.byName(username);
    if (!u) return undefined;
    const a = Buffer.from(u.password);
    const b = Buffer.from(password);
    return a.length === b.length && timingSafeEqual(a, b) ? u : undefined;
  }

  /** Whether a failed login has locked the principal (until the freeze time has passed). */
  locked(username: string): boolean {
    return (this.#lockedUntil.get(username) ?? 0) > performance.now();
  }

  /**
   * Harbor's login: a locked principal is anonymous whatever its password (and is not locked
   * again); a failed login locks it and is answered after the freeze time.
   */
  login(username: string, password: string): Login {
    const now = performance.now();
    if ((this.#lockedUntil.get(username) ?? 0) > now) return { delayMs: 0 };
    this.#lockedUntil.delete(username);
    const user = this.authenticate(username, password);
    if (user) return { user, delayMs: 0 };
    if (this.#freezeMs > 0) this.#lockedUntil.set(username, now + this.#freezeMs);
    return { delayMs: this.#freezeMs };
  }
}
