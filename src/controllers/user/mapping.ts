// HarborUser's pure mappings: the profile and admin flag the spec asks for, what differs from
// Harbor's user, and a hash that says which password was set last (never the password).
import { createHash, randomBytes } from "node:crypto";
import { HarborUserSpec, type HarborUserStatus } from "../../api/user.ts";
import type { PersistedUser, UserProfile } from "../../harbor/users.ts";

export interface UserPassword {
  password?: string;
  /** The Secret the password comes from (the user's) or was written to (the operator's). */
  secretName?: string;
}

/** The profile Harbor's PUT takes: all three fields (an omitted comment would be cleared). */
export function profile(spec: HarborUserSpec, harborName: string): UserProfile {
  return { email: spec.email, realname: spec.realname ?? harborName, comment: spec.comment ?? "" };
}

export function passwordHash(uid: string, password: string): string {
  return createHash("sha256").update(`${uid}\0harbor-user\0${password}`).digest("hex").slice(0, 32);
}

/** Whether the password in the Secret differs from the one last set (by the hash in status). */
export function passwordChanged(uid: string, extra: UserPassword, recorded: string | undefined): boolean {
  return extra.password !== undefined && passwordHash(uid, extra.password) !== recorded;
}

/** The spec fields that differ: email, realname, comment, admin, password. */
export function diff(
  spec: HarborUserSpec,
  harborName: string,
  observed: PersistedUser,
  uid: string,
  extra: UserPassword,
  recordedHash: string | undefined,
): string[] {
  const want = profile(spec, harborName);
  const out: string[] = [];
  if ((observed.email ?? "") !== want.email) out.push("email");
  if ((observed.realname ?? "") !== want.realname) out.push("realname");
  if ((observed.comment ?? "") !== want.comment) out.push("comment");
  if ((observed.sysadmin_flag ?? false) !== spec.admin) out.push("admin");
  if (passwordChanged(uid, extra, recordedHash)) out.push("password");
  return out;
}

export function profileDiffers(spec: HarborUserSpec, harborName: string, observed: PersistedUser): boolean {
  const want = profile(spec, harborName);
  return (
    (observed.email ?? "") !== want.email ||
    (observed.realname ?? "") !== want.realname ||
    (observed.comment ?? "") !== want.comment
  );
}

export function status(
  observed: PersistedUser,
  uid: string,
  extra: UserPassword,
  previous: { passwordHash?: string | undefined; passwordSecret?: string | undefined },
): Partial<HarborUserStatus> {
  return {
    admin: observed.sysadmin_flag ?? false,
    passwordSecret: extra.secretName ?? previous.passwordSecret,
    passwordHash: extra.password === undefined ? previous.passwordHash : passwordHash(uid, extra.password),
  };
}

/**
 * A password Harbor takes (8+ characters, upper- and lower-case letters, a digit): 24 random
 * characters with one of each class guaranteed.
 */
export function generatePassword(): string {
  const body = randomBytes(18).toString("base64url");
  return `Aa1${body}`;
}

/**
 * The spec that reproduces a Harbor user (the inverse of `profile` and the admin flag), or why it
 * cannot. Harbor never shows a password: the spec leaves it alone (managePassword false).
 */
export function specFromUser(
  user: PersistedUser,
): { spec: Record<string, unknown>; notes: string[] } | { skip: string } {
  if (user.user_id === 1) return { skip: "admin is Harbor's built-in administrator" };
  const name = user.username;
  const spec: Record<string, unknown> = {
    name,
    email: user.email ?? "",
    ...(user.realname && user.realname !== name ? { realname: user.realname } : {}),
    ...(user.comment ? { comment: user.comment } : {}),
    ...(user.sysadmin_flag ? { admin: true } : {}),
    managePassword: false,
  };
  const parsed = HarborUserSpec.safeParse({ connectionRef: { name: "x" }, ...spec });
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join(".") ?? "spec";
    return { skip: `its ${field} is not one the CRD accepts` };
  }
  if (diff(parsed.data, name, user, "", {}, undefined).length)
    return { skip: "its profile cannot be written back as Harbor holds it" };
  return {
    spec,
    notes: ["the password is left as it is (managePassword: false): set passwordSecretRef to manage it"],
  };
}
