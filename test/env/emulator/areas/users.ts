// Local users (/users): list, create, get, profile update, password, the sysadmin flag, delete.
// Harbor's rules, as its users handler and controller apply them:
// - create only in db_auth mode (403 "creating local user is not allowed under auth mode: X"), by
//   a system admin (self-registration cannot be triggered through the API);
// - passwords: at least 8 characters with an upper-case letter, a lower-case letter and a digit
//   (400); a new password equal to the old one is refused (400);
// - profile: a well-formed email is required, realname 1..255 characters without , ~ # $ %,
//   comment at most 30 characters; username 1..255 characters without the same characters;
//   username and email unique (409);
// - profile and password of a user other than admin change only in db_auth mode (403 otherwise);
// - admin (id 1) and the caller themselves cannot be deleted (403); a deleted user leaves the
//   projects it was a member of.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireAuthenticated, requireSystem } from "../auth.ts";
import { badRequest, conflict, forbidden, notFound } from "../errors.ts";
import type { UserRecord } from "../identities.ts";
import { listReply } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

const ILLEGAL = [",", "~", "#", "$", "%"];
const EMAIL =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

/** Harbor's password (and CLI secret) rule. */
export function validPassword(p: string): boolean {
  return p.length >= 8 && /[a-z]/.test(p) && /[A-Z]/.test(p) && /[0-9]/.test(p);
}

const PASSWORD_RULE =
  "the password or secret must be longer than 8 chars with at least 1 uppercase letter, 1 lowercase letter and 1 number";

function checkProfile(p: { email: string; realname: string; comment: string }): void {
  if (p.email === "") throw badRequest("email can't be empty");
  if (!EMAIL.test(p.email)) throw badRequest("email with illegal format");
  if (p.realname.length < 1 || p.realname.length > 255) throw badRequest("realname with illegal length");
  if (ILLEGAL.some((c) => p.realname.includes(c))) throw badRequest("realname contains illegal characters");
  if (p.comment.length > 30) throw badRequest("comment with illegal length");
}

function emailTaken(world: World, email: string, except?: number): boolean {
  return world.identities
    .all()
    .some((u) => u.user_id !== except && u.email.toLowerCase() === email.toLowerCase());
}

const render = (u: UserRecord) => ({
  user_id: u.user_id,
  username: u.username,
  email: u.email,
  realname: u.realname,
  comment: u.comment,
  sysadmin_flag: u.sysadmin,
  admin_role_in_auth: false,
  creation_time: u.creation_time,
  update_time: u.update_time,
});

const userFields = {
  user_id: (u: UserRecord) => u.user_id,
  username: (u: UserRecord) => u.username,
  email: (u: UserRecord) => u.email,
  creation_time: (u: UserRecord) => u.creation_time,
  update_time: (u: UserRecord) => u.update_time,
};

const UserCreationReq = z
  .object({
    email: z.string().max(255).nullish(),
    realname: z.string().nullish(),
    comment: z.string().nullish(),
    password: z.string().nullish(),
    username: z.string().max(255).nullish(),
  })
  .meta({ goType: "UserCreationReq" });
const UserProfile = z
  .object({ email: z.string().nullish(), realname: z.string().nullish(), comment: z.string().nullish() })
  .meta({ goType: "UserProfile" });
const PasswordReq = z
  .object({ old_password: z.string().nullish(), new_password: z.string().nullish() })
  .meta({ goType: "PasswordReq" });
const SysAdminFlag = z.object({ sysadmin_flag: z.boolean().nullish() }).meta({ goType: "UserSysAdminFlag" });

const userId = { user_id: "int" } as const;

function userOf(ctx: Ctx): UserRecord {
  const id = ctx.params.user_id as number;
  const u = ctx.world.identities.byId(id);
  if (!u) throw notFound(`user ${id} not found`);
  return u;
}

function isSelf(ctx: Ctx, id: number): boolean {
  return ctx.caller.kind === "user" && ctx.caller.user.user_id === id;
}

/** Harbor's "modifiable": in db_auth an admin changes anyone and a user themselves; else admin's only. */
function requireModifiable(ctx: Ctx, id: number): void {
  requireAuthenticated(ctx);
  const canUpdate = ctx.caller.kind === "user" && ctx.caller.user.sysadmin;
  const ok = ctx.world.ldap.authMode === "db" ? canUpdate || isSelf(ctx, id) : id === 1 && canUpdate;
  if (!ok) throw forbidden(`User with ID ${id} can't be updated`);
}

function audit(ctx: Ctx, u: UserRecord, operation: "create" | "update" | "delete"): void {
  auditWrite(ctx, { project_id: 0, resource: u.username, resource_type: "user", operation });
}

const routes: RouteSpec[] = [
  {
    op: "listUsers",
    method: "GET",
    path: "/users",
    paged: true,
    query: {
      q: { type: "string" },
      sort: { type: "string" },
      username: { type: "string" },
      email: { type: "string" },
    },
    handle(ctx) {
      requireSystem(ctx, "user", "list");
      let items = ctx.world.identities.all();
      const name = ctx.query.username as string | undefined;
      const email = ctx.query.email as string | undefined;
      if (name) items = items.filter((u) => u.username.toLowerCase().includes(name.toLowerCase()));
      if (email) items = items.filter((u) => u.email.toLowerCase().includes(email.toLowerCase()));
      return listReply(ctx, items, userFields, {
        defaultOrder: (a, b) => a.user_id - b.user_id,
        render,
      });
    },
  },
  {
    op: "createUser",
    method: "POST",
    path: "/users",
    body: { name: "userReq", schema: UserCreationReq },
    handle(ctx) {
      const mode = ctx.world.ldap.authMode;
      if (mode !== "db") throw forbidden(`creating local user is not allowed under auth mode: ${mode}_auth`);
      requireSystem(ctx, "user", "create");
      const b = ctx.body as z.output<typeof UserCreationReq>;
      const password = b.password ?? "";
      if (!validPassword(password)) throw badRequest(PASSWORD_RULE);
      const profile = { email: b.email ?? "", realname: b.realname ?? "", comment: b.comment ?? "" };
      checkProfile(profile);
      const username = b.username ?? "";
      if (username.length < 1 || username.length > 255) throw badRequest("username with illegal length");
      if (ILLEGAL.some((c) => username.includes(c))) throw badRequest("username contains illegal characters");
      if (ctx.world.identities.byName(username)) throw conflict(`username ${username} already exists`);
      if (emailTaken(ctx.world, profile.email)) throw conflict(`email ${profile.email} already exists`);
      const u = ctx.world.identities.add({ username, password, ...profile, sysadmin: false });
      audit(ctx, u, "create");
      return createdAt(ctx, u.user_id);
    },
  },
  {
    op: "getUser",
    method: "GET",
    path: "/users/{user_id}",
    params: userId,
    handle(ctx) {
      requireAuthenticated(ctx);
      const id = ctx.params.user_id as number;
      const canRead = ctx.caller.kind === "user" && ctx.caller.user.sysadmin;
      if (!isSelf(ctx, id) && !canRead) throw forbidden(`Not authorized to read user: ${id}`);
      return ok(render(userOf(ctx)));
    },
  },
  {
    op: "updateUserProfile",
    method: "PUT",
    path: "/users/{user_id}",
    params: userId,
    body: { name: "profile", schema: UserProfile },
    handle(ctx) {
      const id = ctx.params.user_id as number;
      requireModifiable(ctx, id);
      const u = userOf(ctx);
      const b = ctx.body as z.output<typeof UserProfile>;
      const profile = { email: b.email ?? "", realname: b.realname ?? "", comment: b.comment ?? "" };
      checkProfile(profile);
      if (emailTaken(ctx.world, profile.email, id)) throw conflict(`email ${profile.email} already exists`);
      Object.assign(u, profile, { update_time: ctx.world.nowText() });
      audit(ctx, u, "update");
      return ok();
    },
  },
  {
    op: "updateUserPassword",
    method: "PUT",
    path: "/users/{user_id}/password",
    params: userId,
    body: { name: "password", schema: PasswordReq },
    handle(ctx) {
      const id = ctx.params.user_id as number;
      requireModifiable(ctx, id);
      const u = userOf(ctx);
      const b = ctx.body as z.output<typeof PasswordReq>;
      if (isSelf(ctx, id) && !ctx.world.identities.authenticate(u.username, b.old_password ?? "")) {
        throw forbidden("Current password is incorrect");
      }
      const next = b.new_password ?? "";
      if (!validPassword(next)) throw badRequest(PASSWORD_RULE);
      if (ctx.world.identities.authenticate(u.username, next)) {
        throw badRequest("New password is identical to old password");
      }
      ctx.world.identities.setPassword(u.username, next);
      u.update_time = ctx.world.nowText();
      return ok();
    },
  },
  {
    op: "setUserSysAdmin",
    method: "PUT",
    path: "/users/{user_id}/sysadmin",
    params: userId,
    body: { name: "sysadmin_flag", schema: SysAdminFlag },
    handle(ctx) {
      requireSystem(ctx, "user", "update");
      const u = userOf(ctx);
      u.sysadmin = (ctx.body as z.output<typeof SysAdminFlag>).sysadmin_flag ?? false;
      u.update_time = ctx.world.nowText();
      return ok();
    },
  },
  {
    op: "deleteUser",
    method: "DELETE",
    path: "/users/{user_id}",
    params: userId,
    handle(ctx) {
      requireAuthenticated(ctx);
      const id = ctx.params.user_id as number;
      const canDelete = ctx.caller.kind === "user" && ctx.caller.user.sysadmin;
      if (!canDelete) throw forbidden("Not authorized to delete users");
      if (isSelf(ctx, id) || id === 1) throw forbidden(`User with ID ${id} cannot be deleted`);
      const u = userOf(ctx);
      ctx.world.identities.delete(id);
      for (const p of ctx.world.projects.all()) {
        const row = p.members.find("u", id);
        if (row) p.members.delete(row.id);
      }
      audit(ctx, u, "delete");
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Whether these credentials log in as the user (checks a password the operator set). */
    verifyPassword: (username: string, password: string): boolean =>
      world.identities.authenticate(username, password) !== undefined,
    /** A user as GET /users/{id} shows it, by name. */
    byName: (username: string) => {
      const u = world.identities.byName(username);
      return u ? render(u) : undefined;
    },
  }),
});
