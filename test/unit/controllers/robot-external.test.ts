// The robot's afterSync decisions with Harbor, the Secret and the clock replaced by fakes: when a
// secret is issued, when the expiry is renewed, what the status, Events, metric and requeue say.
import pino from "pino";
import { describe, expect, test } from "vitest";
import { HarborRobotSpec } from "../../../src/api/robot.ts";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import type {
  CopiesResult,
  Credentials,
  Delivered,
  RobotDelivery,
} from "../../../src/controllers/robot/delivery.ts";
import { robotExternal } from "../../../src/controllers/robot/external.ts";
import { DAY_MS } from "../../../src/controllers/robot/mapping.ts";
import type { PersistedRobot } from "../../../src/harbor/robots.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";
import { Metrics } from "../../../src/runtime/metrics.ts";

const created = Date.parse("2025-03-01T10:00:00.000Z");

function setup(o: {
  delivered: Delivered;
  now: number;
  durationDays?: number;
  lastRotation?: string;
  copies?: CopiesResult;
  /** spec.secret.deliver (default true). */
  deliver?: boolean;
  /** The status the resource shows already. */
  status?: Record<string, unknown>;
}) {
  const calls: string[] = [];
  /** Reads of the robot's Secret. */
  const reads: string[] = [];
  const events: string[] = [];
  const written: Credentials[] = [];
  let robot: PersistedRobot = {
    id: 5,
    name: "robot$team+ci",
    level: "project",
    duration: o.durationDays ?? 30,
    expires_at:
      (o.durationDays ?? 30) === -1 ? -1 : Math.floor(created / 1000) + (o.durationDays ?? 30) * 86_400,
    creation_time: new Date(created).toISOString(),
    disable: false,
    permissions: [
      { kind: "project", namespace: "team", access: [{ resource: "repository", action: "pull" }] },
    ],
  };
  const delivery = {
    read: async () => {
      reads.push("read");
      return o.delivered;
    },
    write: async (_owner: unknown, _target: unknown, c: Credentials) => {
      written.push(c);
    },
    markPending: async () => {
      calls.push("markPending");
    },
    remove: async () => undefined,
    removeAll: async (_owner: unknown, _spec: unknown, names: string[], copies: string[]) => {
      calls.push(`removeAll ${names.join(",")} copies=${copies.join(",")}`);
    },
    syncCopies: async () => o.copies ?? { copiedTo: [], failures: [], refused: [], withoutConsent: [] },
  } as unknown as RobotDelivery;
  const conn = {
    key: "HarborConnection/ns/harbor",
    url: "https://harbor.example.com",
    registryHost: "harbor.example.com",
    client: {
      robots: {
        refreshSecret: async () => {
          calls.push("refresh");
          return { secret: `Fresh${calls.length}Secret` };
        },
        update: async (_id: number, body: { duration?: number }) => {
          calls.push(`update duration=${body.duration}`);
          if (body.duration !== undefined) {
            robot = {
              ...robot,
              duration: body.duration,
              expires_at: Math.floor(created / 1000) + body.duration * 86_400,
            };
          }
        },
        get: async () => {
          calls.push("get");
          return robot;
        },
      },
    },
  } as unknown as HarborConnectionHandle;
  const metrics = new Metrics({ processMetrics: false });
  const external = robotExternal({
    projects: {} as Informer<ManagedObject>,
    delivery,
    events: {
      record: (_o, _t, reason, message) => events.push(`${reason}: ${message}`),
      routine: (_o, reason, message) => events.push(`${reason}: ${message}`),
    },
    metrics,
    now: () => o.now,
  });
  const spec = HarborRobotSpec.parse({
    connectionRef: { name: "harbor" },
    projectRef: { name: "team" },
    durationDays: o.durationDays ?? 30,
    permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
    ...(o.deliver === undefined ? {} : { secret: { deliver: o.deliver } }),
  });
  const resource: ManagedObject = {
    metadata: { name: "ci", namespace: "ns", uid: "u1" },
    status: { ...(o.lastRotation ? { lastRotation: o.lastRotation } : {}), ...o.status },
  };
  const input = {
    resource,
    spec,
    harborName: "ci",
    knownId: 5,
    conn,
    extra: { project: { id: 1, name: "team" } },
    logger: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
  const gauge = async () =>
    (await metrics.robotSecretExpiry.get()).values.find((v) => v.labels.name === "ci")?.value;
  return { calls, reads, events, written, input, external, gauge, robot: () => robot };
}

const intact: Delivered = {
  state: "intact",
  credentials: { username: "robot$team+ci", password: "Old1Secret" },
};

describe("afterSync", () => {
  test("credentials in place and no rotation due: nothing in Harbor, requeued for the rotation", async () => {
    const now = created + DAY_MS;
    const t = setup({ delivered: intact, now, lastRotation: new Date(created).toISOString() });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual([]);
    expect(t.events).toEqual([]);
    expect(t.written).toEqual([intact.credentials]); // re-rendered; the writer skips unchanged content
    expect(r?.requeueAfterMs).toBe(12 * 60 * 60_000);
    expect(r?.status).toMatchObject({
      fullName: "robot$team+ci",
      expiresAt: "2025-03-31T10:00:00Z",
      durationDays: 30,
      lastRotation: "2025-03-01T10:00:00Z",
      // 7 days before the expiry: when the next secret is issued.
      nextRotation: "2025-03-24T10:00:00Z",
      copiedTo: [],
    });
    expect(await t.gauge()).toBe(Math.floor(created / 1000) + 30 * 86_400);
  });

  test.each(["missing", "changed", "interrupted"] as const)(
    "a Secret that is %s gets a new secret from the same robot, without renewing it",
    async (state) => {
      const now = created + DAY_MS;
      const t = setup({ delivered: { state }, now });
      const r = await t.external.afterSync?.(t.input, t.robot(), false);
      expect(t.calls).toEqual(["refresh"]);
      expect(t.written).toEqual([{ username: "robot$team+ci", password: "Fresh1Secret" }]);
      expect(t.events).toHaveLength(1);
      expect(t.events[0]).toMatch(
        /^SecretRestored: Issued a new secret for robot\$team\+ci \(same robot, id 5\)/,
      );
      expect(r?.status).toMatchObject({ lastRotation: new Date(now).toISOString().replace(/\.\d+Z$/, "Z") });
    },
  );

  test("inside the window before expiry: the Secret is marked, a new secret issued and the expiry renewed", async () => {
    const now = created + 25 * DAY_MS; // expires at +30 days, window 7 days
    const t = setup({ delivered: intact, now, lastRotation: new Date(created).toISOString() });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual(["markPending", "refresh", "update duration=55", "get"]);
    expect(t.written.at(-1)?.password).toBe("Fresh2Secret");
    expect(t.events[0]).toMatch(
      /^SecretRotated: .*expires at 2025-03-31T10:00:00Z.*it expires 2025-04-25T10:00:00Z/,
    );
    expect(r?.status).toMatchObject({
      expiresAt: "2025-04-25T10:00:00Z",
      nextRotation: "2025-04-18T10:00:00Z",
    });
    expect(await t.gauge()).toBe(Math.floor(created / 1000) + 55 * 86_400);
    // The next rotation is 23 days away: the requeue is capped at 12 hours.
    expect(r?.requeueAfterMs).toBe(12 * 60 * 60_000);
  });

  test("a robot that never expires has no expiry metric and is not renewed", async () => {
    const t = setup({ delivered: { state: "missing" }, now: created + DAY_MS, durationDays: -1 });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual(["refresh"]);
    expect(await t.gauge()).toBeUndefined();
    // No rotation is ever due: status says none (the field is removed).
    expect(r?.status).toHaveProperty("nextRotation", undefined);
  });

  test("the requeue is the time until the next rotation when that is near", async () => {
    const now = created + 23 * DAY_MS - 60 * 60_000; // due at +23 days
    const t = setup({ delivered: intact, now, lastRotation: new Date(created).toISOString() });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual([]);
    expect(r?.requeueAfterMs).toBe(60 * 60_000);
  });

  test("copies delivered everywhere: Ready as usual, no copy failures in status", async () => {
    const now = created + DAY_MS;
    const t = setup({
      delivered: intact,
      now,
      lastRotation: new Date(created).toISOString(),
      copies: { copiedTo: ["team-b"], failures: [], refused: [], withoutConsent: [] },
    });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(r?.notReady).toBeUndefined();
    expect(r?.status).toMatchObject({ copiedTo: ["team-b"] });
    // Present and undefined: a failure listed before is removed.
    expect(r?.status && "copyFailures" in r.status && r.status.copyFailures === undefined).toBe(true);
    expect(t.events).toEqual([]);
  });

  test("a copy that failed: listed in status, Ready False naming the namespace, a Warning Event for it", async () => {
    const now = created + DAY_MS;
    const message =
      "Secret team-c/ci exists and is not managed by this resource; rename the secret or remove it";
    const t = setup({
      delivered: intact,
      now,
      lastRotation: new Date(created).toISOString(),
      copies: {
        copiedTo: ["team-b"],
        failures: [{ namespace: "team-c", reason: "SecretConflict", message }],
        refused: [],
        withoutConsent: [],
      },
    });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(r?.status).toMatchObject({
      copiedTo: ["team-b"],
      copyFailures: [{ namespace: "team-c", reason: "SecretConflict", message }],
      fullName: "robot$team+ci",
    });
    expect(r?.notReady).toEqual({
      reason: "SecretCopyFailed",
      message: `the Secret could not be delivered to namespace team-c: ${message}`,
    });
    expect(t.events).toEqual([`SecretCopyConflict: Not copied into namespace team-c: ${message}`]);
    // Nothing in Harbor for it: the robot itself is fine.
    expect(t.calls).toEqual([]);
  });
});

describe("namespaces that do not accept copies", () => {
  const copies = {
    copiedTo: ["legacy"],
    failures: [],
    refused: ["other", "prod"],
    withoutConsent: ["legacy"],
  };
  const annotate = "kubectl annotate namespace NAME harborconfig.io/accept-pull-secrets-from=ns";

  test("named in status and in one Warning Event per list; Ready as usual", async () => {
    const now = created + DAY_MS;
    const t = setup({ delivered: intact, now, lastRotation: new Date(created).toISOString(), copies });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(r?.notReady).toBeUndefined();
    expect(r?.status).toMatchObject({
      copiedTo: ["legacy"],
      copiesRefused: ["other", "prod"],
      copiesWithoutConsent: ["legacy"],
    });
    expect(t.events).toEqual([
      `CopyRefused: Not copied into 2 namespaces other, prod: they do not accept pull secrets from namespace ns. Whoever owns such a namespace allows it with: ${annotate}`,
      `CopyWithoutConsent: The copies in namespace legacy were made before namespaces had to accept them, and those namespaces do not accept pull secrets from namespace ns: kept, so that image pulls there go on working. To keep them for good: ${annotate}; the operator removes them once it runs with --copies-without-consent=remove`,
    ]);
  });

  test("the same lists again: no new Event; once empty, the fields go", async () => {
    const now = created + DAY_MS;
    const status = { copiesRefused: ["other", "prod"], copiesWithoutConsent: ["legacy"] };
    const base = { delivered: intact, now, lastRotation: new Date(created).toISOString(), status };
    const same = setup({ ...base, copies });
    await same.external.afterSync?.(same.input, same.robot(), false);
    expect(same.events).toEqual([]);
    const cleared = setup({
      ...base,
      copies: { copiedTo: ["legacy"], failures: [], refused: [], withoutConsent: [] },
    });
    const r = await cleared.external.afterSync?.(cleared.input, cleared.robot(), false);
    expect(cleared.events).toEqual([]);
    expect(r?.status).toHaveProperty("copiesRefused", undefined);
    expect(r?.status).toHaveProperty("copiesWithoutConsent", undefined);
  });
});

describe("secret.deliver false (an adopted robot whose secret stays with whoever holds it)", () => {
  test("no secret is issued, no Secret read or written, and the status names no Secret", async () => {
    const t = setup({ delivered: { state: "missing" }, now: created + DAY_MS, deliver: false });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual([]);
    expect(t.reads).toEqual([]);
    expect(t.written).toEqual([]);
    expect(t.events).toEqual([]);
    expect(r?.status).toMatchObject({ fullName: "robot$team+ci", durationDays: 30 });
    expect(r?.status).toHaveProperty("secretName", undefined);
    expect(r?.status).toHaveProperty("nextRotation", undefined);
    expect(r?.requeueAfterMs).toBeUndefined();
    // What the drift sweep compares the status with names no Secret either.
    expect(t.external.status?.(t.input, t.robot())).not.toHaveProperty("secretName");
    expect(await t.gauge()).toBe(Math.floor(created / 1000) + 30 * 86_400);
  });

  test("turned off after a delivery: the Secret and copies delivered before are removed", async () => {
    const t = setup({
      delivered: intact,
      now: created + DAY_MS,
      deliver: false,
      status: { secretName: "old-pull", copiedTo: ["team-b"] },
    });
    const r = await t.external.afterSync?.(t.input, t.robot(), false);
    expect(t.calls).toEqual(["removeAll ci,old-pull copies=team-b"]);
    expect(r?.status).toHaveProperty("copiedTo", undefined);
  });

  test("deleting a robot that never delivered touches no Secret", async () => {
    const t = setup({ delivered: { state: "missing" }, now: created + DAY_MS, deliver: false });
    await t.external.finalize?.(t.input);
    expect(t.calls).toEqual([]);
  });
});
