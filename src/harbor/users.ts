// Users (/users): the search any signed-in user may run, which is how a user's id is found from
// its name (project members are added by id), and the local users' management (sysadmin only):
// list, create (db_auth mode only), profile, password, the sysadmin flag, delete.
import { z } from "zod";
import { path } from "./request-url.ts";
import { UserResp } from "./system.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** UserSearchRespItem. */
export const UserSearchItem = z.object({
  user_id: z.number().int().optional(),
  username: z.string().optional(),
});
export type UserSearchItem = z.output<typeof UserSearchItem>;

/** A user Harbor has stored, as search returns it: its id is always there. */
export const PersistedUserSearchItem = UserSearchItem.extend({ user_id: z.number().int() });
export type PersistedUserSearchItem = z.output<typeof PersistedUserSearchItem>;

/** A stored user as list and get return it: its id and name are always there. */
export const PersistedUser = UserResp.extend({ user_id: z.number().int(), username: z.string() });
export type PersistedUser = z.output<typeof PersistedUser>;

/** UserCreationReq. */
export const UserCreate = z.object({
  username: z.string().min(1).max(255),
  email: z.string().max(255),
  realname: z.string(),
  comment: z.string().optional(),
  password: z.string(),
});
export type UserCreate = z.input<typeof UserCreate>;

/** UserProfile: PUT replaces all three (an omitted comment is cleared). */
export const UserProfile = z.object({ email: z.string(), realname: z.string(), comment: z.string() });
export type UserProfile = z.input<typeof UserProfile>;

/**
 * Harbor's rule for passwords (and CLI secrets): at least 8 characters with an upper-case letter,
 * a lower-case letter and a digit.
 */
export function passwordProblem(password: string): string | undefined {
  if (password.length >= 8 && /[a-z]/.test(password) && /[A-Z]/.test(password) && /[0-9]/.test(password))
    return undefined;
  return "Harbor takes passwords of at least 8 characters with an upper-case letter, a lower-case letter and a digit";
}

export class UsersApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * searchUsers: every page of the users whose name contains `username` (case-insensitive); pick
   * the exact name from them.
   */
  search(username: string, opts?: CallOptions): Promise<PersistedUserSearchItem[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "searchUsers",
        method: "GET",
        path: "/users/search",
        query: { username },
      },
      PersistedUserSearchItem,
    );
  }

  /** listUsers by exact name: the user, or undefined (the filter is fuzzy; the exact name is picked). */
  async byName(username: string, opts?: CallOptions): Promise<PersistedUser | undefined> {
    const found = await this.list({ username }, opts);
    return found.find((u) => u.username === username);
  }

  /** listUsers: every page (sysadmin only); `username` and `email` are fuzzy filters. */
  list(filter: { username?: string; email?: string } = {}, opts?: CallOptions): Promise<PersistedUser[]> {
    return this.#t.listAll(
      { ...opts, operation: "listUsers", method: "GET", path: "/users", query: { ...filter } },
      PersistedUser,
    );
  }

  /** getUser */
  get(id: number, opts?: CallOptions): Promise<PersistedUser> {
    return this.#t.json(
      { ...opts, operation: "getUser", method: "GET", path: path`/users/${id}` },
      PersistedUser,
    );
  }

  /** createUser: the new user's id. Only in db_auth mode (403 otherwise). */
  async create(user: UserCreate, opts?: CallOptions): Promise<number> {
    const body = UserCreate.parse(user);
    return Number(
      await this.#t.created({ ...opts, operation: "createUser", method: "POST", path: "/users", body }),
    );
  }

  /** updateUserProfile */
  updateProfile(id: number, profile: UserProfile, opts?: CallOptions): Promise<void> {
    const body = UserProfile.parse(profile);
    return this.#t.noContent({
      ...opts,
      operation: "updateUserProfile",
      method: "PUT",
      path: path`/users/${id}`,
      body,
    });
  }

  /**
   * updateUserPassword as an administrator (no old password needed for another user). Harbor
   * refuses a new password equal to the current one (400).
   */
  setPassword(id: number, password: string, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "updateUserPassword",
      method: "PUT",
      path: path`/users/${id}/password`,
      body: { new_password: password },
    });
  }

  /** setUserSysAdmin */
  setSysAdmin(id: number, sysadmin: boolean, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "setUserSysAdmin",
      method: "PUT",
      path: path`/users/${id}/sysadmin`,
      body: { sysadmin_flag: sysadmin },
    });
  }

  /** deleteUser: Harbor refuses admin (id 1) and the caller themselves (403). */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteUser",
      method: "DELETE",
      path: path`/users/${id}`,
    });
  }
}
