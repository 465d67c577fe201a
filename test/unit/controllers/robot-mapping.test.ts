import { describe, expect, test } from "vitest";
import { HarborRobotSpec } from "../../../src/api/robot.ts";
import {
  createRequest,
  credentialHash,
  DAY_MS,
  desiredPermissions,
  diff,
  expiryFollowsSpec,
  formatExpiry,
  isRobotNamed,
  renewedDuration,
  rotationSchedule,
  rotationWindowMs,
  secretValues,
  selectorMatches,
  status,
  storedName,
  storedNameProblem,
  updateRequest,
} from "../../../src/controllers/robot/mapping.ts";
import type { Robot } from "../../../src/harbor/robots.ts";

const spec = (s: Record<string, unknown>) =>
  HarborRobotSpec.parse({
    connectionRef: { name: "h" },
    projectRef: { name: "team" },
    permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
    ...s,
  });
const project = { id: 7, name: "team-a" };
const created = "2025-03-01T10:00:00.000Z";
const createdMs = Date.parse(created);
const secondsAt = (ms: number) => Math.floor(ms / 1000);

/** What Harbor returns for a robot made from the spec (the emulator's and Harbor's model). */
function harborRobot(s: ReturnType<typeof spec>, overrides: Partial<Robot> = {}): Robot {
  return {
    id: 12,
    name: `robot$${storedName("ci", s.level === "project" ? project : undefined)}`,
    description: s.description ?? "",
    level: s.level,
    duration: s.durationDays,
    disable: false,
    editable: true,
    expires_at: s.durationDays === -1 ? -1 : secondsAt(createdMs) + s.durationDays * 86_400,
    creation_time: created,
    permissions: desiredPermissions(s, s.level === "project" ? project : undefined).map((p) => ({
      ...p,
      access: p.access.map((a) => ({ resource: a.resource, action: a.action })), // effect left out
    })),
    ...overrides,
  };
}

describe("requests", () => {
  test("a project robot's one permission is on its own project", () => {
    const s = spec({ description: "ci" });
    expect(createRequest(s, "ci", project)).toEqual({
      name: "ci",
      description: "ci",
      level: "project",
      duration: 30,
      permissions: [
        {
          kind: "project",
          namespace: "team-a",
          access: [{ resource: "repository", action: "pull", effect: "allow" }],
        },
      ],
    });
  });

  test("a system robot's permissions keep their namespaces; system ones are on /", () => {
    const s = spec({
      level: "system",
      projectRef: undefined,
      permissions: [
        { kind: "system", access: [{ resource: "project", action: "list" }] },
        { kind: "project", namespace: "*", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    expect(desiredPermissions(s, undefined).map((p) => [p.kind, p.namespace])).toEqual([
      ["system", "/"],
      ["project", "*"],
    ]);
  });

  test("an update repeats Harbor's full name and level and keeps an unmanaged description", () => {
    const s = spec({ disabled: true });
    const body = updateRequest(s, harborRobot(s, { description: "set in Harbor" }), project, undefined);
    expect(body).toMatchObject({
      name: "robot$team-a+ci",
      level: "project",
      description: "set in Harbor",
      disable: true,
    });
    expect(body).not.toHaveProperty("duration");
  });
});

describe("diff", () => {
  test("a robot made from the spec matches it: prefixes, effect and order never count", () => {
    const s = spec({
      description: "pulls",
      permissions: [
        {
          access: [
            { resource: "repository", action: "pull" },
            { resource: "artifact", action: "read", effect: "allow" },
          ],
        },
      ],
    });
    const r = harborRobot(s);
    r.permissions = [{ ...r.permissions?.[0], access: [...(r.permissions?.[0]?.access ?? [])].reverse() }];
    expect(diff(s, r, project, createdMs + 1000)).toEqual([]);
  });

  test("system permissions that Harbor groups by scope still match", () => {
    const s = spec({
      level: "system",
      projectRef: undefined,
      permissions: [
        { kind: "project", namespace: "a", access: [{ resource: "repository", action: "pull" }] },
        { kind: "project", namespace: "a", access: [{ resource: "repository", action: "push" }] },
      ],
    });
    const r = harborRobot(s, {
      name: "robot$ci",
      permissions: [
        {
          kind: "project",
          namespace: "a",
          access: [
            { resource: "repository", action: "push", effect: "" },
            { resource: "repository", action: "pull", effect: "" },
          ],
        },
      ],
    });
    expect(diff(s, r, undefined, createdMs)).toEqual([]);
  });

  test("names the fields that differ", () => {
    const s = spec({ description: "pulls", disabled: false });
    const r = harborRobot(s, {
      description: "changed",
      disable: true,
      permissions: [
        { kind: "project", namespace: "team-a", access: [{ resource: "repository", action: "push" }] },
      ],
    });
    expect(diff(s, r, project, createdMs)).toEqual(["description", "disabled", "permissions"]);
    expect(diff(s, { ...harborRobot(s), permissions: [] }, project, createdMs)).toEqual(["permissions"]);
  });

  test("an unset description is not managed; a deny effect is not an allow", () => {
    const s = spec({});
    expect(diff(s, harborRobot(s, { description: "anything" }), project, createdMs)).toEqual([]);
    const deny = harborRobot(s);
    deny.permissions = [
      {
        kind: "project",
        namespace: "team-a",
        access: [{ resource: "repository", action: "pull", effect: "deny" }],
      },
    ];
    expect(diff(s, deny, project, createdMs)).toEqual(["permissions"]);
  });

  test("expiry: never, shorter (rotation's business) and too long (drift)", () => {
    const now = createdMs + 10 * DAY_MS;
    const in_ = (days: number) => secondsAt(now + days * DAY_MS);
    expect(expiryFollowsSpec(-1, -1, now)).toBe(true);
    expect(expiryFollowsSpec(-1, in_(5), now)).toBe(false);
    expect(expiryFollowsSpec(30, -1, now)).toBe(false);
    expect(expiryFollowsSpec(30, in_(1), now)).toBe(true);
    expect(expiryFollowsSpec(30, in_(31.9), now)).toBe(true);
    expect(expiryFollowsSpec(30, in_(33), now)).toBe(false);
    expect(expiryFollowsSpec(30, undefined, now)).toBe(true);
  });
});

describe("renewal", () => {
  test("counts whole days since creation, rounded up, plus durationDays", () => {
    expect(renewedDuration(30, created, createdMs)).toBe(30);
    expect(renewedDuration(30, created, createdMs + 1)).toBe(31);
    expect(renewedDuration(30, created, createdMs + 10 * DAY_MS)).toBe(40);
    expect(renewedDuration(-1, created, createdMs + 10 * DAY_MS)).toBe(-1);
    // A Harbor clock ahead of the operator's never makes the duration shorter than the spec's.
    expect(renewedDuration(30, created, createdMs - DAY_MS)).toBe(30);
  });

  test.each([0.2, 3.5, 29.9, 400])(
    "a robot renewed %s days after creation reads back without drift",
    (days) => {
      const s = spec({ durationDays: 30 });
      const now = createdMs + days * DAY_MS;
      const duration = renewedDuration(30, created, now);
      // Harbor recomputes expires_at from the creation time.
      const after = harborRobot(s, { duration, expires_at: secondsAt(createdMs) + duration * 86_400 });
      expect(after.expires_at as number).toBeGreaterThanOrEqual(secondsAt(now + 30 * DAY_MS));
      expect(diff(s, after, project, now)).toEqual([]);
      expect(diff(s, after, project, now + 20 * DAY_MS)).toEqual([]);
      // ... and is no longer due for rotation.
      const next = rotationSchedule(s, after, now).dueAt as number;
      expect(next).toBeGreaterThan(now);
    },
  );

  test("durationDays lowered in the spec is drift that the update puts right", () => {
    const before = spec({ durationDays: 90 });
    const s = spec({ durationDays: 7 });
    const now = createdMs + 2 * DAY_MS;
    expect(diff(s, harborRobot(before), project, now)).toEqual(["durationDays"]);
    const duration = renewedDuration(7, created, now);
    expect(duration).toBe(9);
    expect(
      diff(
        s,
        harborRobot(s, { duration, expires_at: secondsAt(createdMs) + duration * 86_400 }),
        project,
        now,
      ),
    ).toEqual([]);
  });
});

describe("a durationDays change applies at once", () => {
  const now = createdMs + 20 * DAY_MS;

  test("a longer durationDays than the expiry was set for is a change to apply, not a wait for rotation", () => {
    const before = spec({ durationDays: 30 }); // expires 10 days from now
    const s = spec({ durationDays: 90 });
    // Harbor's expiry alone looks like an aged robot: only the recorded durationDays tells.
    expect(diff(s, harborRobot(before), project, now)).toEqual([]);
    expect(diff(s, harborRobot(before), project, now, 30)).toEqual(["durationDays"]);
    const duration = renewedDuration(90, created, now);
    expect(duration).toBe(110);
    const after = harborRobot(s, { duration, expires_at: secondsAt(createdMs) + duration * 86_400 });
    expect(after.expires_at).toBe(secondsAt(now + 90 * DAY_MS));
    // Once status records 90, nothing more is due.
    expect(diff(s, after, project, now, 90)).toEqual([]);
    expect(diff(s, after, project, now + 50 * DAY_MS, 90)).toEqual([]);
  });

  test("a shorter one, and one to or from -1, the same", () => {
    expect(
      diff(spec({ durationDays: 7 }), harborRobot(spec({ durationDays: 90 })), project, now, 90),
    ).toEqual(["durationDays"]);
    expect(
      diff(spec({ durationDays: -1 }), harborRobot(spec({ durationDays: 30 })), project, now, 30),
    ).toEqual(["durationDays"]);
    expect(
      diff(spec({ durationDays: 30 }), harborRobot(spec({ durationDays: -1 })), project, now, -1),
    ).toEqual(["durationDays"]);
    // The same value recorded: only the expiry rule counts.
    expect(
      diff(spec({ durationDays: 30 }), harborRobot(spec({ durationDays: 30 })), project, now, 30),
    ).toEqual([]);
  });
});

describe("rotation schedule", () => {
  test("the window defaults to 7 days, or half the lifetime when that is shorter", () => {
    expect(rotationWindowMs(spec({ durationDays: 30 }))).toBe(7 * DAY_MS);
    expect(rotationWindowMs(spec({ durationDays: 4 }))).toBe(2 * DAY_MS);
    expect(rotationWindowMs(spec({ durationDays: 1 }))).toBe(DAY_MS / 2);
    expect(rotationWindowMs(spec({ durationDays: 30, rotation: { beforeExpiryDays: 0 } }))).toBe(0);
  });

  test("before expiry", () => {
    const s = spec({ durationDays: 30 });
    const r = harborRobot(s);
    const due = rotationSchedule(s, r, createdMs);
    expect(due.dueAt).toBe((r.expires_at as number) * 1000 - 7 * DAY_MS);
    expect(due.why).toContain("expires at 2025-03-31T10:00:00Z");
  });

  test("on an interval from the last issued secret (the creation when unknown); the earliest wins", () => {
    const s = spec({ durationDays: 30, rotation: { intervalDays: 5 } });
    const r = harborRobot(s);
    expect(rotationSchedule(s, r, undefined).dueAt).toBe(createdMs + 5 * DAY_MS);
    expect(rotationSchedule(s, r, createdMs + 2 * DAY_MS).dueAt).toBe(createdMs + 7 * DAY_MS);
    expect(rotationSchedule(s, r, createdMs + 20 * DAY_MS).dueAt).toBe(createdMs + 23 * DAY_MS);
    expect(rotationSchedule(s, r, createdMs + 22 * DAY_MS).why).toContain("expires");
  });

  test("a robot that never expires rotates only on an interval", () => {
    const never = spec({ durationDays: -1 });
    expect(rotationSchedule(never, harborRobot(never), createdMs)).toEqual({});
    const interval = spec({ durationDays: -1, rotation: { intervalDays: 1 } });
    expect(rotationSchedule(interval, harborRobot(interval), createdMs).dueAt).toBe(createdMs + DAY_MS);
  });
});

describe("delivery", () => {
  test("a pull secret has auths for every host, plus username and password", () => {
    const v = secretValues("kubernetes.io/dockerconfigjson", "robot$ci", "S3cretPassw0rd", [
      "harbor.example.com",
      "mirror:5000",
      "harbor.example.com",
    ]);
    expect(v.username).toBe("robot$ci");
    expect(v.password).toBe("S3cretPassw0rd");
    const config = JSON.parse(v[".dockerconfigjson"] as string) as {
      auths: Record<string, { username: string; password: string; auth: string }>;
    };
    expect(Object.keys(config.auths)).toEqual(["harbor.example.com", "mirror:5000"]);
    expect(config.auths["mirror:5000"]).toEqual({
      username: "robot$ci",
      password: "S3cretPassw0rd",
      auth: Buffer.from("robot$ci:S3cretPassw0rd").toString("base64"),
    });
  });

  test("an Opaque secret holds username and password only", () => {
    expect(Object.keys(secretValues("Opaque", "u", "p", ["h"]))).toEqual(["username", "password"]);
  });

  test("the credential fingerprint is a valid label value that changes with the secret", () => {
    const a = credentialHash("robot$ci", "S3cretPassw0rd");
    expect(a).toMatch(/^[a-f0-9]{40}$/);
    expect(credentialHash("robot$ci", "S3cretPassw0rd")).toBe(a);
    expect(credentialHash("robot$ci", "S3cretPassw0rD")).not.toBe(a);
    expect(credentialHash("robot$cd", "S3cretPassw0rd")).not.toBe(a);
  });

  test("label selectors follow Kubernetes semantics", () => {
    const labels = { team: "a", env: "prod" };
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { team: "a" } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { team: "b" } }, labels)).toBe(false);
    const expr = (operator: "In" | "NotIn" | "Exists" | "DoesNotExist", key: string, values?: string[]) => ({
      matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
    });
    expect(selectorMatches(expr("In", "env", ["prod", "stage"]), labels)).toBe(true);
    expect(selectorMatches(expr("In", "zone", ["x"]), labels)).toBe(false);
    expect(selectorMatches(expr("NotIn", "env", ["prod"]), labels)).toBe(false);
    expect(selectorMatches(expr("NotIn", "zone", ["x"]), labels)).toBe(true);
    expect(selectorMatches(expr("Exists", "team"), labels)).toBe(true);
    expect(selectorMatches(expr("DoesNotExist", "team"), labels)).toBe(false);
    expect(selectorMatches({ matchLabels: { team: "a" }, ...expr("Exists", "zone") }, labels)).toBe(false);
  });
});

describe("names and status", () => {
  test("a project robot's stored name must fit Harbor's 255 characters beside its project's", () => {
    const team = { id: 3, name: "team-a" };
    expect(storedNameProblem("a".repeat(248), team)).toBeUndefined(); // "team-a+" + 248 = 255
    expect(storedNameProblem("a".repeat(249), team)).toBe(
      'Harbor stores this project robot as "<project>+<name>" (256 characters with project "team-a"), which must fit in 255',
    );
    expect(storedNameProblem("a".repeat(255), undefined)).toBeUndefined();
  });

  test("Harbor's prefix, whatever it is, is not part of the name", () => {
    expect(isRobotNamed("robot$team-a+ci", "team-a+ci")).toBe(true);
    expect(isRobotNamed("bot$ci", "ci")).toBe(true);
    expect(isRobotNamed("robot$xci", "ci")).toBe(false);
    expect(isRobotNamed("robot$team-a+ci", "ci")).toBe(false);
    expect(isRobotNamed(undefined, "ci")).toBe(false);
  });

  test("status shows the full name, the expiry and the Secret, never a secret", () => {
    const s = spec({ secret: { name: "pull" } });
    expect(status(s, harborRobot(s, { secret: "x" } as Partial<Robot>), "ci")).toEqual({
      fullName: "robot$team-a+ci",
      expiresAt: "2025-03-31T10:00:00Z",
      durationDays: 30,
      secretName: "pull",
    });
    expect(formatExpiry(-1)).toBe("never");
    expect(status(spec({}), harborRobot(spec({})), "ci").secretName).toBe("ci");
  });
});
