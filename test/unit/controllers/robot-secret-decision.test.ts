// What happens to a robot's credentials after a sync, as a table: from what its Secret holds, the
// Secret's name before and now, the rotation schedule and the clock, secretDecision keeps them,
// moves them from the earlier Secret, restores a secret, or rotates it (and whether, and to what,
// the expiry is renewed). afterSync only carries the decision out (robot-external.test.ts).
import { describe, expect, test } from "vitest";
import {
  type Credentials,
  DAY_MS,
  type Delivered,
  nextLookMs,
  type SecretDecision,
  type SecretSituation,
  secretDecision,
} from "../../../src/controllers/robot/mapping.ts";

const created = Date.parse("2025-03-01T10:00:00.000Z");
const now = created + 25 * DAY_MS;
const credentials: Credentials = { username: "robot$team+ci", password: "Old1Secret" };
const intact: Delivered = { state: "intact", credentials };

/** A 30-day robot made at `created`, its Secret named "ci", no rotation due. */
function situation(o: Partial<SecretSituation> = {}): SecretSituation {
  return {
    delivered: intact,
    secretName: "ci",
    recordedSecretName: "ci",
    schedule: { dueAt: now + DAY_MS, why: "the robot expires at 2025-03-31T10:00:00Z" },
    now,
    durationDays: 30,
    robot: { duration: 30, creation_time: new Date(created).toISOString() },
    ...o,
  };
}

const due = { dueAt: now - 1, why: "the robot expires at 2025-03-31T10:00:00Z" };
const RESTORE_MISSING = "its Secret did not exist (deleted, adopted robot, or interrupted creation)";

const cases: Array<[string, Partial<SecretSituation>, SecretDecision]> = [
  // Nothing due
  ["intact, nothing due: kept", {}, { action: "keep", credentials }],
  ["intact, no rotation ever: kept", { schedule: {} }, { action: "keep", credentials }],
  [
    "missing: restored, the expiry left as it is",
    { delivered: { state: "missing" } },
    { action: "restore", why: RESTORE_MISSING },
  ],
  [
    "changed by someone else: restored",
    { delivered: { state: "changed" } },
    { action: "restore", why: "its Secret was changed outside the operator" },
  ],
  [
    "left pending by an interrupted rotation: restored",
    { delivered: { state: "interrupted" } },
    { action: "restore", why: "an earlier rotation was interrupted" },
  ],
  // Rotation due
  [
    "intact, rotation due: marked pending, rotated, renewed to durationDays from now",
    { schedule: due },
    { action: "rotate", why: due.why, markPending: credentials, renewTo: 55 },
  ],
  [
    "due at this very moment: rotated",
    { schedule: { ...due, dueAt: now } },
    { action: "rotate", why: due.why, markPending: credentials, renewTo: 55 },
  ],
  [
    "missing and due: rotated (nothing to mark pending) and renewed",
    { delivered: { state: "missing" }, schedule: due },
    { action: "rotate", why: due.why, renewTo: 55 },
  ],
  [
    "interrupted and due: rotated without marking",
    { delivered: { state: "interrupted" }, schedule: due },
    { action: "rotate", why: due.why, renewTo: 55 },
  ],
  [
    "a robot that never expires, due by its interval: rotated, never renewed",
    {
      durationDays: -1,
      robot: { duration: -1, creation_time: new Date(created).toISOString() },
      schedule: due,
    },
    { action: "rotate", why: due.why, markPending: credentials },
  ],
  [
    "due, and the robot already lives durationDays from now: rotated without a PUT",
    { schedule: due, robot: { duration: 55, creation_time: new Date(created).toISOString() } },
    { action: "rotate", why: due.why, markPending: credentials },
  ],
  [
    "due, creation time unknown: renewed to durationDays",
    { schedule: due, robot: { duration: 10 } },
    { action: "rotate", why: due.why, markPending: credentials, renewTo: 30 },
  ],
  // spec.secret.name changed
  [
    "the new Secret is missing and status names another: moved from it",
    { delivered: { state: "missing" }, secretName: "ci-pull" },
    { action: "move", from: "ci" },
  ],
  [
    "moved first, also when a rotation is due",
    { delivered: { state: "missing" }, secretName: "ci-pull", schedule: due },
    { action: "move", from: "ci" },
  ],
  [
    "the new Secret exists already: kept, nothing moved",
    { secretName: "ci-pull" },
    { action: "keep", credentials },
  ],
  [
    "the new Secret was changed: restored, nothing moved",
    { delivered: { state: "changed" }, secretName: "ci-pull" },
    { action: "restore", why: "its Secret was changed outside the operator" },
  ],
  [
    "missing, and status names no Secret: restored",
    { delivered: { state: "missing" }, recordedSecretName: undefined },
    { action: "restore", why: RESTORE_MISSING },
  ],
  [
    "missing, and status names this very Secret: restored",
    { delivered: { state: "missing" }, recordedSecretName: "ci" },
    { action: "restore", why: RESTORE_MISSING },
  ],
];

describe("secretDecision", () => {
  test.each(cases)("%s", (_name, o, expected) => {
    expect(secretDecision(situation(o))).toEqual(expected);
  });
});

describe("nextLookMs", () => {
  test("at the next rotation, no sooner than a minute and no later than 12 hours", () => {
    expect(nextLookMs(now + 60 * 60_000, now)).toBe(60 * 60_000);
    expect(nextLookMs(now + 10_000, now)).toBe(60_000);
    expect(nextLookMs(now - DAY_MS, now)).toBe(60_000);
    expect(nextLookMs(now + 3 * DAY_MS, now)).toBe(12 * 60 * 60_000);
    expect(nextLookMs(undefined, now)).toBe(12 * 60 * 60_000);
  });
});
