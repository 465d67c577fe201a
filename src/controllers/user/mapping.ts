// HarborUser's pure mappings: the profile and admin flag the spec asks for, what differs from
// Harbor's user, and which password was set last: the resourceVersion of the Secret it came from
// (nothing derived from the password).
import { createHash, randomBytes } from "node:crypto";
import { HarborUserSpec, type HarborUserStatus } from "../../api/user.ts";
import type { PersistedUser, UserProfile } from "../../harbor/users.ts";

export interface UserPassword {
  password?: string;
  /** The Secret the password comes from (the user's) or was written to (the operator's). */
  secretName?: string;
  /** That Secret's resourceVersion. */
  version?: string;
}

/** What the status recorded of the password set last. */
export interface RecordedPassword {
  passwordSecretVersion?: string | undefined;
  /** Earlier releases' record: a hash of the password, read once to migrate it away. */
  passwordHash?: string | undefined;
}

/** The profile Harbor's PUT takes: all three fields (an omitted comment would be cleared). */
export function profile(spec: HarborUserSpec, harborName: string): UserProfile {
  return { email: spec.email, realname: spec.realname ?? harborName, comment: spec.comment ?? "" };
}

/** Earlier releases' status.passwordHash, bound to the resource: compared once after an upgrade. */
export function legacyPasswordHash(uid: string, password: string): string {
  return createHash("sha256").update(`${uid}\0harbor-user\0${password}`).digest("hex").slice(0, 32);
}

/** Whether the Secret's password was not set last: another Secret version than the one recorded. */
export function passwordChanged(uid: string, extra: UserPassword, recorded: RecordedPassword): boolean {
  if (extra.password === undefined) return false;
  if (recorded.passwordSecretVersion !== undefined) return recorded.passwordSecretVersion !== extra.version;
  return recorded.passwordHash !== legacyPasswordHash(uid, extra.password);
}

/** The spec fields that differ: email, realname, comment, admin, password. */
export function diff(
  spec: HarborUserSpec,
  harborName: string,
  observed: PersistedUser,
  uid: string,
  extra: UserPassword,
  recorded: RecordedPassword,
): string[] {
  const want = profile(spec, harborName);
  const out: string[] = [];
  if ((observed.email ?? "") !== want.email) out.push("email");
  if ((observed.realname ?? "") !== want.realname) out.push("realname");
  if ((observed.comment ?? "") !== want.comment) out.push("comment");
  if ((observed.sysadmin_flag ?? false) !== spec.admin) out.push("admin");
  if (passwordChanged(uid, extra, recorded)) out.push("password");
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
  extra: UserPassword,
  previous: RecordedPassword & { passwordSecret?: string | undefined },
): Partial<HarborUserStatus> {
  // Called after the password was set where it differed: the Secret's version is what Harbor holds.
  return {
    admin: observed.sysadmin_flag ?? false,
    passwordSecret: extra.secretName ?? previous.passwordSecret,
    passwordSecretVersion: extra.password === undefined ? previous.passwordSecretVersion : extra.version,
    passwordHash: undefined,
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
  if (diff(parsed.data, name, user, "", {}, {}).length)
    return { skip: "its profile cannot be written back as Harbor holds it" };
  return {
    spec,
    notes: ["the password is left as it is (managePassword: false): set passwordSecretRef to manage it"],
  };
}
