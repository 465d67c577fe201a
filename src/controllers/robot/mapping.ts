// HarborRobot ⇄ Harbor robot account, as pure functions.
//
// What the spec manages, and how it is compared so that nothing flaps:
// - names are immutable and never compared: Harbor answers with "robot$<name>" or
//   "robot$<project>+<name>" (its prefix is configurable), the spec holds the bare name;
// - description (only when the spec sets it), disabled, and permissions as a set of
//   (kind, namespace, resource, action, effect) with the effect defaulting to allow: Harbor groups
//   accesses by scope and returns them in its own order, so order and grouping never count;
// - the expiry, as a rule rather than a value. Harbor stores `duration` in days counted from the
//   robot's *creation* and computes expires_at = creation + duration; its secret refresh does not
//   move expires_at (goharbor/harbor#22256). Renewing therefore means PUT with
//   duration = whole days since creation (rounded up) + durationDays, which puts the expiry at
//   least durationDays ahead. The spec holds when the robot never expires for durationDays -1, and
//   otherwise when the expiry is not further away than durationDays plus two days (one for the
//   rounding up, one for clocks of the operator and Harbor that disagree): a shorter remaining
//   lifetime is what rotation (beforeExpiryDays) renews, a longer one (someone extended the robot in
//   Harbor, or durationDays was lowered) is drift and is put back;
// - a changed durationDays, longer or shorter, applies at once: the expiry is renewed the same way, to
//   durationDays from the change. The durationDays the expiry was last set for is kept in status
//   (status.durationDays), since Harbor's expiry alone cannot tell a longer lifetime asked for from
//   a robot that has simply aged; a status without it (written before it existed) counts as current;
// - the operator's clock is the reference for all of this; it must agree with Harbor's within a day.
import { createHash } from "node:crypto";
import { ACCEPT_PULL_SECRETS_ANNOTATION } from "../../api/common.ts";
import {
  type HarborRobotSpec,
  type HarborRobotStatus,
  type LabelSelector,
  MAX_COPY_FAILURES,
  ROBOT_PERMISSIONS,
} from "../../api/robot.ts";
import type {
  Access,
  Robot,
  RobotCreate,
  RobotPermission,
  RobotPermissionInput,
  RobotUpdate,
} from "../../harbor/robots.ts";
import type { SpecFields } from "../shared/export.ts";

export const DAY_MS = 86_400_000;
/** How much further away than durationDays an expiry may be before it counts as drift. */
const EXPIRY_SLACK_DAYS = 2;
/** The default rotation window: 7 days, or half the lifetime when that is shorter. */
const DEFAULT_WINDOW_MS = 7 * DAY_MS;
/** Harbor's largest duration: below 2^31-1. */
const MAX_DURATION = 2 ** 31 - 2;

/** The Harbor project of a project-level robot. */
export interface RobotProject {
  id: number;
  name: string;
}

// -------------------------------------------------------------------------------------------
// requests

/** The permissions Harbor should hold: a project robot's one permission is on its own project. */
export function desiredPermissions(
  spec: HarborRobotSpec,
  project: RobotProject | undefined,
): RobotPermissionInput[] {
  return spec.permissions.map((p) => ({
    kind: p.kind,
    namespace: p.kind === "system" ? "/" : (p.namespace ?? project?.name ?? ""),
    access: p.access.map((a) => ({ resource: a.resource, action: a.action, effect: a.effect })),
  }));
}

export function createRequest(
  spec: HarborRobotSpec,
  harborName: string,
  project: RobotProject | undefined,
): RobotCreate {
  return {
    name: harborName,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    level: spec.level,
    duration: spec.durationDays,
    permissions: desiredPermissions(spec, project),
  };
}

/**
 * PUT body. Harbor replaces description, disable and permissions, so an unmanaged description is
 * sent back as it is; `duration` only when it should change (omitted, Harbor keeps it).
 */
export function updateRequest(
  spec: HarborRobotSpec,
  current: Robot,
  project: RobotProject | undefined,
  duration: number | undefined,
): RobotUpdate {
  return {
    name: current.name ?? "",
    level: current.level === "project" ? "project" : "system",
    description: spec.description ?? current.description ?? "",
    disable: spec.disabled,
    permissions: desiredPermissions(spec, project),
    ...(duration === undefined ? {} : { duration }),
  };
}

/**
 * The duration (days from creation) that makes the robot live at least durationDays from `now`.
 */
export function renewedDuration(durationDays: number, creationTime: string | undefined, now: number): number {
  if (durationDays === -1) return -1;
  const created = creationTime ? Date.parse(creationTime) : Number.NaN;
  const elapsed = Number.isNaN(created) ? 0 : Math.max(0, Math.ceil((now - created) / DAY_MS));
  return Math.min(elapsed + durationDays, MAX_DURATION);
}

// -------------------------------------------------------------------------------------------
// comparison

function permissionSet(permissions: ReadonlyArray<RobotPermission | RobotPermissionInput>): string[] {
  const out = new Set<string>();
  for (const p of permissions) {
    for (const a of p.access ?? []) {
      out.add(
        [p.kind ?? "", p.namespace ?? "", a.resource ?? "", a.action ?? "", a.effect || "allow"].join(
          "\u0000",
        ),
      );
    }
  }
  return [...out].sort();
}

/** Whether Harbor's expiry follows the spec's durationDays (see the file header). */
export function expiryFollowsSpec(durationDays: number, expiresAt: number | undefined, now: number): boolean {
  if (expiresAt === undefined) return true; // nothing to compare
  if (durationDays === -1) return expiresAt === -1;
  return expiresAt !== -1 && expiresAt * 1000 <= now + (durationDays + EXPIRY_SLACK_DAYS) * DAY_MS;
}

/**
 * The spec fields whose Harbor value differs. `appliedDurationDays` is the durationDays the status
 * says the expiry was last set for; another one in the spec is a change still to apply.
 */
export function diff(
  spec: HarborRobotSpec,
  robot: Robot,
  project: RobotProject | undefined,
  now: number,
  appliedDurationDays?: number,
): string[] {
  const out: string[] = [];
  if (spec.description !== undefined && (robot.description ?? "") !== spec.description)
    out.push("description");
  if ((robot.disable ?? false) !== spec.disabled) out.push("disabled");
  const want = permissionSet(desiredPermissions(spec, project));
  const have = permissionSet(robot.permissions ?? []);
  if (want.join("\n") !== have.join("\n")) out.push("permissions");
  const changed = appliedDurationDays !== undefined && appliedDurationDays !== spec.durationDays;
  if (changed || !expiryFollowsSpec(spec.durationDays, robot.expires_at, now)) out.push("durationDays");
  return out;
}

// -------------------------------------------------------------------------------------------
// status

/** Unix seconds → RFC 3339 (seconds precision), or "never" for -1. */
export function formatExpiry(expiresAt: number | undefined): string | undefined {
  if (expiresAt === undefined) return undefined;
  if (expiresAt === -1) return "never";
  return new Date(expiresAt * 1000).toISOString().replace(/\.\d+Z$/, "Z");
}

export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/** The Secret that delivers the credentials: spec.secret.name, defaulting to metadata.name. */
export function secretNameOf(spec: HarborRobotSpec, resourceName: string): string {
  return spec.secret.name ?? resourceName;
}

/** Status fields for a robot that follows the spec (its expiry set for spec.durationDays). */
export function status(
  spec: HarborRobotSpec,
  robot: Robot,
  resourceName: string,
): Partial<HarborRobotStatus> {
  const expiresAt = formatExpiry(robot.expires_at);
  return {
    ...(robot.name ? { fullName: robot.name } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    durationDays: spec.durationDays,
    // A robot whose secret is not delivered has no Secret.
    ...(spec.secret.deliver ? { secretName: secretNameOf(spec, resourceName) } : {}),
  };
}

// -------------------------------------------------------------------------------------------
// rotation

/** How long before expiry a rotation is due: rotation.beforeExpiryDays, or the default window. */
export function rotationWindowMs(spec: HarborRobotSpec): number {
  if (spec.rotation.beforeExpiryDays !== undefined) return spec.rotation.beforeExpiryDays * DAY_MS;
  return Math.min(DEFAULT_WINDOW_MS, (spec.durationDays * DAY_MS) / 2);
}

export interface RotationSchedule {
  /** When the next rotation is due (ms), if any is scheduled. */
  dueAt?: number;
  /** Why, for the Event. */
  why?: string;
}

/**
 * When the next rotation is due: beforeExpiry before the expiry, and/or intervalDays after the last
 * issued secret (the robot's creation when that is unknown).
 */
export function rotationSchedule(
  spec: HarborRobotSpec,
  robot: Pick<Robot, "expires_at" | "creation_time">,
  lastIssuedMs: number | undefined,
): RotationSchedule {
  const candidates: Array<{ at: number; why: string }> = [];
  const expiresAt = robot.expires_at;
  if (spec.durationDays !== -1 && expiresAt !== undefined && expiresAt !== -1) {
    candidates.push({
      at: expiresAt * 1000 - rotationWindowMs(spec),
      why: `the robot expires at ${formatExpiry(expiresAt)}`,
    });
  }
  const since = lastIssuedMs ?? (robot.creation_time ? Date.parse(robot.creation_time) : Number.NaN);
  if (spec.rotation.intervalDays !== undefined && !Number.isNaN(since)) {
    candidates.push({
      at: since + spec.rotation.intervalDays * DAY_MS,
      why: `rotation.intervalDays (${spec.rotation.intervalDays}) passed since the last secret was issued`,
    });
  }
  const next = candidates.sort((a, b) => a.at - b.at)[0];
  return next ? { dueAt: next.at, why: next.why } : {};
}

/** Longest wait between two looks at a robot's credentials. */
const MAX_LOOK_MS = 12 * 60 * 60_000;
/** Shortest wait for the next rotation: a rotation due within it waits that long. */
const MIN_LOOK_MS = 60_000;

/** When to look at the robot's credentials again: at its next rotation, within 1 min to 12 h. */
export function nextLookMs(nextRotationAt: number | undefined, now: number): number {
  return Math.min(MAX_LOOK_MS, Math.max(MIN_LOOK_MS, (nextRotationAt ?? Number.POSITIVE_INFINITY) - now));
}

// -------------------------------------------------------------------------------------------
// the robot's credentials after a sync
//
// The secret exists only in Harbor's create and refresh answers. After each sync the robot's
// Secret is read, and one decision follows from what it holds, the rotation schedule and the clock:
// keep what it holds, move it from the Secret status names (spec.secret.name changed), restore a
// secret (issue a new one in place because none known to work is delivered), or rotate (issue a
// new one because one is due, and renew the expiry). afterSync in external.ts carries it out.

export interface Credentials {
  username: string;
  password: string;
}

/** What the robot's Secret holds. */
export type Delivered =
  | { state: "intact"; credentials: Credentials }
  | { state: "missing" | "changed" | "interrupted" };

/** Why a secret is restored, by what the Secret holds, for the Event. */
const WHY_RESTORED: Record<Exclude<Delivered["state"], "intact">, string> = {
  missing: "its Secret did not exist (deleted, adopted robot, or interrupted creation)",
  changed: "its Secret was changed outside the operator",
  interrupted: "an earlier rotation was interrupted",
};

export interface SecretSituation {
  /** What the robot's Secret holds. */
  delivered: Delivered;
  /** The Secret's name now (spec.secret.name, or metadata.name). */
  secretName: string;
  /** The Secret's name status records (status.secretName), if any. */
  recordedSecretName: string | undefined;
  /** When the next rotation is due, from the last issued secret. */
  schedule: RotationSchedule;
  now: number;
  durationDays: number;
  robot: Pick<Robot, "duration" | "creation_time">;
}

export type SecretDecision =
  /** The Secret holds credentials known to work and no rotation is due: deliver them as they are. */
  | { action: "keep"; credentials: Credentials }
  /**
   * spec.secret.name changed and the new Secret does not exist yet: the credentials move from the
   * earlier one (which goes), then the decision is taken again for what the new Secret holds.
   */
  | { action: "move"; from: string }
  /** No credentials known to work are delivered: a new secret, same robot; the expiry stays. */
  | { action: "restore"; why: string }
  /**
   * A rotation is due: an intact Secret's credentials are marked pending first (`markPending`, so
   * that a crash before the new secret is written is noticed), a new secret is issued, and the
   * expiry is renewed to `renewTo` days from creation when set (absent: the robot never expires,
   * or already lives that long).
   */
  | { action: "rotate"; why: string; markPending?: Credentials; renewTo?: number };

/** What to do with the robot's credentials (see the section's header). */
export function secretDecision(s: SecretSituation): SecretDecision {
  const { delivered } = s;
  if (
    delivered.state === "missing" &&
    s.recordedSecretName !== undefined &&
    s.recordedSecretName !== s.secretName
  ) {
    return { action: "move", from: s.recordedSecretName };
  }
  const due = s.schedule.dueAt !== undefined && s.schedule.dueAt <= s.now;
  if (due) {
    const duration = renewedDuration(s.durationDays, s.robot.creation_time, s.now);
    return {
      action: "rotate",
      why: s.schedule.why ?? "a rotation is due",
      ...(delivered.state === "intact" ? { markPending: delivered.credentials } : {}),
      ...(duration !== -1 && duration !== s.robot.duration ? { renewTo: duration } : {}),
    };
  }
  if (delivered.state === "intact") return { action: "keep", credentials: delivered.credentials };
  return { action: "restore", why: WHY_RESTORED[delivered.state] };
}

// -------------------------------------------------------------------------------------------
// delivery

/** The Secret's values: username and password in every type, plus a docker config for pull secrets. */
export function secretValues(
  type: string,
  username: string,
  password: string,
  hosts: readonly string[],
): Record<string, string> {
  const values: Record<string, string> = { username, password };
  if (type === "kubernetes.io/dockerconfigjson") {
    const auth = Buffer.from(`${username}:${password}`, "utf8").toString("base64");
    const auths = Object.fromEntries([...new Set(hosts)].map((h) => [h, { username, password, auth }]));
    values[".dockerconfigjson"] = JSON.stringify({ auths });
  }
  return values;
}

/**
 * A fingerprint of the delivered credentials, kept on the Secret as a label: the Secret holds the
 * secret itself, so its hash reveals nothing new, and a Secret whose values no longer match it was
 * changed by someone else (the credentials are then unknown and must be issued again).
 */
export function credentialHash(username: string, password: string): string {
  return createHash("sha256").update(`${username}\n${password}`, "utf8").digest("hex").slice(0, 40);
}

/** Kubernetes label-selector semantics over a namespace's labels. */
/**
 * Whether a namespace accepts a robot's pull-secret copy from namespace `source`: its annotation
 * ACCEPT_PULL_SECRETS_ANNOTATION lists `source` or `*` (comma- or space-separated).
 */
export function acceptsCopiesFrom(
  annotations: Readonly<Record<string, string>> | undefined,
  source: string,
): boolean {
  const names = (annotations?.[ACCEPT_PULL_SECRETS_ANNOTATION] ?? "").split(/[\s,]+/);
  return names.includes("*") || names.includes(source);
}

/** A Warning Event about copies: its reason and message. */
export interface CopyNotice {
  reason: "CopyRefused" | "CopyWithoutConsent";
  message: string;
}

/**
 * The Events a copy pass owes the user: one per list (refused namespaces, copies kept without
 * consent) that is not empty and differs from what the status said before, so a steady state
 * records nothing. Lists are compared as the status keeps them (the first MAX_COPY_FAILURES).
 */
export function copyNotices(
  previous: Readonly<Record<string, unknown>> | undefined,
  now: { refused: readonly string[]; withoutConsent: readonly string[] },
  source: string,
): CopyNotice[] {
  const changed = (before: unknown, after: readonly string[]) =>
    after.length > 0 &&
    JSON.stringify(Array.isArray(before) ? before : []) !== JSON.stringify(after.slice(0, MAX_COPY_FAILURES));
  const named = (list: readonly string[]) =>
    `${list.length === 1 ? "namespace" : `${list.length} namespaces`} ${list.slice(0, MAX_COPY_FAILURES).join(", ")}${list.length > MAX_COPY_FAILURES ? ", …" : ""}`;
  const annotate = `kubectl annotate namespace NAME ${ACCEPT_PULL_SECRETS_ANNOTATION}=${source}`;
  const out: CopyNotice[] = [];
  if (changed(previous?.["copiesRefused"], now.refused))
    out.push({
      reason: "CopyRefused",
      message: `Not copied into ${named(now.refused)}: they do not accept pull secrets from namespace ${source}. Whoever owns such a namespace allows it with: ${annotate}`,
    });
  if (changed(previous?.["copiesWithoutConsent"], now.withoutConsent))
    out.push({
      reason: "CopyWithoutConsent",
      message: `The copies in ${named(now.withoutConsent)} were made before namespaces had to accept them, and those namespaces do not accept pull secrets from namespace ${source}: kept, so that image pulls there go on working. To keep them for good: ${annotate}; the operator removes them once it runs with --copies-without-consent=remove`,
    });
  return out;
}

export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    const ok =
      e.operator === "In"
        ? has && values.includes(value as string)
        : e.operator === "NotIn"
          ? !has || !values.includes(value as string)
          : e.operator === "Exists"
            ? has
            : !has;
    if (!ok) return false;
  }
  return true;
}

/** Whether Harbor's name for a robot (with its prefix) is the robot `stored` ("ci", "proj+ci"). */
export function isRobotNamed(fullName: string | undefined, stored: string): boolean {
  if (fullName === undefined) return false;
  if (fullName === stored) return true;
  // The configurable prefix ("robot$" by default) ends in "$" and holds no "+".
  return fullName.endsWith(stored) && fullName.slice(0, -stored.length).endsWith("$");
}

/** The name Harbor stores: "<name>" for system robots, "<project>+<name>" for project robots. */
export function storedName(harborName: string, project: RobotProject | undefined): string {
  return project ? `${project.name}+${harborName}` : harborName;
}

/**
 * The projects a system robot's permissions reach, for a tenancy check: their names, or "all"
 * when one is on every project ("*"). A project robot's permission is on its own project only.
 */
export function permittedProjects(spec: HarborRobotSpec): string[] | "all" {
  if (spec.level !== "system") return [];
  const names: string[] = [];
  for (const p of spec.permissions) {
    if (p.kind !== "project" || p.namespace === undefined) continue;
    if (p.namespace === "*") return "all";
    names.push(p.namespace);
  }
  return names;
}

/** Harbor keeps the stored name in a database column of this many characters. */
export const MAX_STORED_NAME = 255;

/** Why the stored name does not fit Harbor, or undefined when it does. */
export function storedNameProblem(harborName: string, project: RobotProject | undefined): string | undefined {
  const stored = storedName(harborName, project);
  if (stored.length <= MAX_STORED_NAME) return undefined;
  return `Harbor stores this project robot as "<project>+<name>" (${stored.length} characters with project "${project?.name}"), which must fit in ${MAX_STORED_NAME}`;
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of createRequest and updateRequest; see shared/export.ts)

/** What the export writes for a robot, or why it cannot. */
export type RobotExport = { spec: SpecFields<typeof HarborRobotSpec>; notes: string[] } | { skip: string };

/** The name the spec gives a robot, from Harbor's full name ("robot$team+ci" → "ci"). */
export function specNameOf(fullName: string, project: RobotProject | undefined): string | undefined {
  // The configurable prefix ends in "$", which no robot or project name holds.
  const stored = fullName.slice(fullName.lastIndexOf("$") + 1);
  if (!project) return stored;
  return stored.startsWith(`${project.name}+`) ? stored.slice(project.name.length + 1) : undefined;
}

/** The spec's durationDays for Harbor's duration (days from creation), and why it had to change. */
function exportedDuration(robot: Robot): { days: number; note?: string } {
  let days = robot.duration ?? undefined;
  if (days === undefined) {
    const created = Date.parse(robot.creation_time ?? "");
    days =
      robot.expires_at === -1 || robot.expires_at === undefined || Number.isNaN(created)
        ? -1
        : Math.ceil((robot.expires_at * 1000 - created) / DAY_MS);
  }
  if (days === -1 || (days >= 1 && days <= MAX_DURATION_DAYS)) return { days };
  const fitted = days < 1 ? 1 : MAX_DURATION_DAYS;
  return {
    days: fitted,
    note: `durationDays is ${fitted}: Harbor's duration of ${days} days is outside what the CRD takes (-1, or 1 to ${MAX_DURATION_DAYS}); applying it may move the expiry`,
  };
}

/** The CRD's largest durationDays. */
const MAX_DURATION_DAYS = 36500;

/**
 * The spec that reproduces a robot: name, level, project, description, disabled, durationDays (as
 * Harbor's duration, so that the expiry rule holds) and permissions, each a sorted set. `deliver`
 * false writes `secret.deliver: false`: adopting the robot then leaves its secret as it is. A
 * legacy robot (Harbor lets no one edit it) or one with permissions the CRD refuses is skipped.
 */
export function specFromRobot(
  robot: Robot,
  project: RobotProject | undefined,
  projectRef: string | undefined,
  deliver: boolean,
): RobotExport {
  const full = robot.name ?? "";
  const name = specNameOf(full, project);
  if (name === undefined) return { skip: `robot ${full} does not carry its project's name` };
  if (robot.editable === false)
    return { skip: `robot ${full} is a legacy robot account, which Harbor does not let anyone edit` };
  if (project && projectRef === undefined) return { skip: `the project of robot ${full} is not exported` };
  const notes: string[] = [];
  const access = (a: NonNullable<RobotPermission["access"]>) =>
    [
      ...new Map(
        a.map((x) => {
          const entry = {
            resource: x.resource ?? "",
            action: x.action ?? "",
            ...(x.effect === "deny" ? { effect: "deny" as const } : {}),
          };
          return [`${entry.resource}\u0000${entry.action}\u0000${x.effect || "allow"}`, entry];
        }),
      ),
    ]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, e]) => e);
  let permissions: Array<{
    kind?: "system" | "project";
    namespace?: string;
    access: ReturnType<typeof access>;
  }>;
  if (project) {
    permissions = [{ access: access((robot.permissions ?? []).flatMap((p) => p.access ?? [])) }];
    const elsewhere = (robot.permissions ?? []).filter(
      (p) => p.kind !== "project" || (p.namespace ?? project.name) !== project.name,
    );
    if (elsewhere.length) return { skip: `project robot ${full} has permissions outside its project` };
  } else {
    const groups = new Map<string, { kind: "system" | "project"; namespace: string; access: Access[] }>();
    for (const p of robot.permissions ?? []) {
      const kind = p.kind === "system" ? "system" : "project";
      const namespace = kind === "system" ? "/" : (p.namespace ?? "");
      const key = `${kind}\u0000${namespace}`;
      const g = groups.get(key) ?? { kind, namespace, access: [] };
      g.access.push(...(p.access ?? []));
      groups.set(key, g);
    }
    permissions = [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, g]) => ({
        kind: g.kind,
        ...(g.kind === "system" ? {} : { namespace: g.namespace }),
        access: access(g.access),
      }));
  }
  for (const p of permissions) {
    const allowed = ROBOT_PERMISSIONS[p.kind ?? "project"];
    const bad = p.access.find((a) => !allowed[a.resource]?.includes(a.action));
    if (bad)
      return {
        skip: `robot ${full} has the permission ${bad.resource}:${bad.action}, which the CRD does not accept (Harbor 2.12's robot permissions)`,
      };
    if (p.access.length === 0 || p.access.length > 64)
      return {
        skip: `robot ${full} has ${p.access.length} accesses in one permission; the CRD takes 1 to 64`,
      };
  }
  if (permissions.length === 0 || permissions.length > 32)
    return { skip: `robot ${full} has ${permissions.length} permissions; the CRD takes 1 to 32` };
  const duration = exportedDuration(robot);
  if (duration.note) notes.push(duration.note);
  notes.push(
    deliver
      ? "applying it issues the robot a new secret (the current one stops working) and delivers that"
      : "its secret stays with whoever holds it (secret.deliver: false); set secret.deliver: true to have the operator issue and deliver a new one",
  );
  return {
    spec: {
      name,
      level: project ? "project" : "system",
      ...(projectRef === undefined ? {} : { projectRef: { name: projectRef } }),
      description: robot.description ?? "",
      durationDays: duration.days,
      disabled: robot.disable ?? false,
      permissions,
      ...(deliver ? {} : { secret: { deliver: false } }),
    },
    notes,
  };
}
