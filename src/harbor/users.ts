// Users (/users): the search any signed-in user may run, which is how a user's id is found from
// its name (project members are added by id).
import { z } from "zod";
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
}
