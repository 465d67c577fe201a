// HarborRobot end to end: kubectl → apiserver → the operator process → Harbor (the emulator), and
// the delivered pull secret tried against the emulator's registry token service the way a
// container runtime uses it. Two operators: one with a short drift interval (drift, steady state),
// one whose drift interval is too long to matter, so that request counts come from the reconcile
// alone. The lifecycle every kind shares is decided in test/unit/runtime/managed-lifecycle.test.ts
// and walked end to end in project.test.ts; admission refusals are rows of
// test/integration/cluster/admission.test.ts.
import { afterAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { type OperatorFixture, useOperator } from "../env/operator.ts";
import { pullAccess } from "../env/registry-auth.ts";
import {
  robot as anyRobot,
  condition,
  deliveredCredentials,
  eventOf,
  harborIdOf,
  project,
  PULL as pull,
  type RobotCR,
  readyForSpec as synced,
} from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

/** A robot of project "team", allowed to pull, unless the spec says otherwise. */
const robot = (name: string, spec: Parameters<typeof anyRobot>[1] = {}) =>
  anyRobot(name, { projectRef: { name: "team" }, ...spec });

/** Every password a test saw; none may ever appear in the operator's output. */
const delivered: string[] = [];

async function credentials(op: OperatorFixture, name: string) {
  const creds = await deliveredCredentials(op.kubectl, name);
  delivered.push(creds.password);
  return creds;
}

const access = (op: OperatorFixture, c: { username: string; password: string }, repo = "team/app") =>
  pullAccess(op.emulator.url, c.username, c.password, repo);

const robotCount = (op: OperatorFixture, o: string) => op.emulator.counters.total({ op: o });

function assertNoSecretsIn(text: string) {
  for (const p of delivered) expect(text.includes(p), "a delivered secret leaked").toBe(false);
}

describe("HarborRobot", () => {
  // A short drift interval: a change made in Harbor is put back, and two sweeps pass, in seconds.
  const op = useOperator({ namespacePrefix: "robot", driftInterval: "1s" });

  afterAll(() => {
    // Checked here as well as in the last test, so that a failure in between still checks it.
    assertNoSecretsIn(op.output());
  });

  test("apply → Ready with the Harbor id and the robot's full name in kubectl get; the Secret pulls", async () => {
    // "waiter" waits for a project applied later (see below); a new resource keeps quiet about
    // such a wait for a moment (10 s), which passes while the tests in between run.
    await op.kubectl.apply([
      project("team"),
      robot("ci", { description: "CI pulls" }),
      robot("waiter", { projectRef: { name: "later" } }),
    ]);
    const cr = await op.waitReady<RobotCR>("harborrobot", "ci");
    const inHarbor = await op.harbor.robots.get(harborIdOf(cr));
    expect(inHarbor).toMatchObject({
      name: "robot$team+ci",
      description: "CI pulls",
      level: "project",
      disable: false,
    });
    expect(cr.status).toMatchObject({ fullName: "robot$team+ci", secretName: "ci" });
    expect(cr.status?.expiresAt).toBe(
      new Date((inHarbor.expires_at as number) * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
    );
    // Rotated by this test's reconcile: within the test's own time, however long its waits took.
    expect(Date.parse(cr.status?.lastRotation as string)).toBeGreaterThan(Date.now() - budget.testMs);
    expect(cr.metadata.finalizers).toContain("harborconfig.io/finalizer");

    const table = await op.kubectl.run(["get", "harborrobots"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+ROBOT\s+AGE/);
    expect(table).toMatch(new RegExp(`ci\\s+True\\s+Synced\\s+${inHarbor.id}\\s+robot\\$team\\+ci\\s`));

    const c = await credentials(op, "ci");
    expect(c.secret.type).toBe("kubernetes.io/dockerconfigjson");
    expect(c.secret.metadata.ownerReferences?.[0]).toMatchObject({ kind: "HarborRobot", name: "ci" });
    expect(c.secret.metadata.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "harbor-config-operator",
      "harborconfig.io/watch": "true",
    });
    expect(c.username).toBe("robot$team+ci");
    const host = new URL(op.emulator.url).host;
    const config = JSON.parse(c.text(".dockerconfigjson")) as {
      auths: Record<string, { username: string; password: string; auth: string }>;
    };
    expect(config.auths[host]).toEqual({
      username: c.username,
      password: c.password,
      auth: Buffer.from(`${c.username}:${c.password}`).toString("base64"),
    });
    expect(await access(op, c)).toEqual(["pull"]);
    await expect(access(op, { username: c.username, password: `${c.password}x` })).rejects.toThrow(
      /rejected/,
    );
  });

  test("editing the YAML changes Harbor: description, permissions, disabled", async () => {
    await op.kubectl.apply(
      robot("ci", {
        description: "CI pushes",
        permissions: [{ access: [...pull, { resource: "repository", action: "push" }] }],
      }),
    );
    const id = harborIdOf(await op.waitFor<RobotCR>("harborrobot", "ci", synced));
    expect(await op.harbor.robots.get(id)).toMatchObject({ description: "CI pushes" });
    const c = await credentials(op, "ci");
    expect((await access(op, c)).sort()).toEqual(["pull", "push"]);

    await op.kubectl.apply(robot("ci", { description: "CI pushes", disabled: true }));
    await op.waitFor<RobotCR>("harborrobot", "ci", synced);
    expect(await op.harbor.robots.get(id)).toMatchObject({ disable: true });
    await expect(access(op, c)).rejects.toThrow(/rejected/); // a disabled robot cannot log in

    await op.kubectl.apply(robot("ci", { description: "CI pulls" }));
    await op.waitFor<RobotCR>("harborrobot", "ci", synced);
    expect(await op.harbor.robots.get(id)).toMatchObject({ disable: false, description: "CI pulls" });
    expect(await access(op, c)).toEqual(["pull"]); // the same secret throughout
  });

  test("a change made in Harbor behind the operator's back is reverted and named; the secret keeps working", async () => {
    const id = harborIdOf(await op.kubectl.get<RobotCR>("harborrobot", "ci"));
    const c = await credentials(op, "ci");
    await op.harbor.robots.update(id, {
      name: "robot$team+ci",
      level: "project",
      description: "changed in Harbor",
      disable: true,
      permissions: [{ kind: "project", namespace: "team", access: pull }],
    });
    const after = await op.waitFor<RobotCR>("harborrobot", "ci", (o) =>
      (o.status?.lastDriftCorrection?.fields ?? []).includes("disabled"),
    );
    expect(after.status?.lastDriftCorrection?.fields.sort()).toEqual(["description", "disabled"]);
    expect(await op.harbor.robots.get(id)).toMatchObject({ description: "CI pulls", disable: false });
    expect(harborIdOf(after)).toBe(id);
    await eventOf(op.kubectl, "ci", "HarborRobot", "DriftCorrected");
    expect(await access(op, c)).toEqual(["pull"]);
  });

  test("a durationDays change is applied at once: the expiry moves, the secret stays; status says when the next one comes", async () => {
    const DAY = 86_400_000;
    const expiry = (o: RobotCR) => Date.parse(o.status?.expiresAt ?? "");
    const near = (ms: number, days: number) => Math.abs(ms - (Date.now() + days * DAY)) < 2 * DAY;
    await op.kubectl.apply(robot("lifetime", { durationDays: 30 }));
    const first = await op.waitReady<RobotCR>("harborrobot", "lifetime");
    expect(near(expiry(first), 30)).toBe(true);
    const before = await credentials(op, "lifetime");

    // Longer: Harbor's expiry moves now, not at the next rotation.
    await op.kubectl.apply(robot("lifetime", { durationDays: 90 }));
    const longer = await op.waitFor<RobotCR>("harborrobot", "lifetime", (o) => near(expiry(o), 90));
    const id = harborIdOf(longer);
    expect(((await op.harbor.robots.get(id)).expires_at as number) * 1000).toBe(expiry(longer));
    // Status records what the expiry was set for, and when the next secret comes: 7 days before it.
    expect(first.status?.durationDays).toBe(30);
    expect(Date.parse(first.status?.nextRotation ?? "")).toBe(expiry(first) - 7 * DAY);
    expect(longer.status?.durationDays).toBe(90);
    expect(Date.parse(longer.status?.nextRotation ?? "")).toBe(expiry(longer) - 7 * DAY);
    expect(condition(await op.waitFor<RobotCR>("harborrobot", "lifetime", synced), "Ready")?.reason).toBe(
      "Synced",
    );
    // The same secret, still working: only its lifetime changed.
    const after = await credentials(op, "lifetime");
    expect(after.password).toBe(before.password);
    expect(await access(op, after)).toEqual(["pull"]);

    // Never: no expiry, no rotation due. (A shorter one, and its rotation window, are unit rows:
    // robot-mapping.test.ts.)
    await op.kubectl.apply(robot("lifetime", { durationDays: -1 }));
    const never = await op.waitFor<RobotCR>(
      "harborrobot",
      "lifetime",
      (o) => o.status?.expiresAt === "never",
    );
    expect(never.status?.nextRotation).toBeUndefined();
    expect((await op.harbor.robots.get(id)).expires_at).toBe(-1);
    await eventOf(op.kubectl, "lifetime", "HarborRobot", "Updated", "Updated durationDays");
  });

  test("steady state makes no Harbor writes and reads robots only through list calls", async () => {
    const writes = () => op.emulator.counters.writes();
    const [w, gets, lists] = [writes(), robotCount(op, "GetRobotByID"), robotCount(op, "ListRobot")];
    await op.sweeps("HarborRobot");
    expect(writes()).toBe(w);
    expect(robotCount(op, "GetRobotByID")).toBe(gets);
    expect(robotCount(op, "ListRobot")).toBeGreaterThan(lists); // the sweep did look
  });

  test("a robot waits with DependencyNotReady until its project is Ready", async () => {
    // Applied in the first test.
    const waiting = await op.waitFor<RobotCR>(
      "harborrobot",
      "waiter",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(condition(waiting, "Ready")?.message).toContain("later");
    await op.kubectl.apply(project("later"));
    const ready = await op.waitReady<RobotCR>("harborrobot", "waiter");
    expect(ready.status?.fullName).toBe("robot$later+waiter");
    expect(await access(op, await credentials(op, "waiter"), "later/app")).toEqual(["pull"]);
  });

  test("a system robot gets permissions in several projects", async () => {
    await op.kubectl.apply(
      robot("sys", {
        level: "system",
        projectRef: undefined,
        permissions: [
          { kind: "system", access: [{ resource: "project", action: "list" }] },
          { kind: "project", namespace: "team", access: pull },
          {
            kind: "project",
            namespace: "later",
            access: [...pull, { resource: "repository", action: "push" }],
          },
        ],
        secret: { type: "Opaque" },
      }),
    );
    const cr = await op.waitReady<RobotCR>("harborrobot", "sys");
    expect(cr.status?.fullName).toBe("robot$sys");
    const c = await credentials(op, "sys");
    expect(c.secret.type).toBe("Opaque");
    expect(Object.keys(c.secret.data ?? {}).sort()).toEqual(["password", "username"]);
    expect(await access(op, c, "team/app")).toEqual(["pull"]);
    expect((await access(op, c, "later/app")).sort()).toEqual(["pull", "push"]);
  });

  test("what only Harbor can judge stalls the robot with Harbor's message", async () => {
    await op.kubectl.apply(
      robot("ghost", {
        level: "system",
        projectRef: undefined,
        permissions: [{ kind: "project", namespace: "nowhere", access: pull }],
      }),
    );
    const stalled = await op.waitFor<RobotCR>(
      "harborrobot",
      "ghost",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.message).toContain("project nowhere not found");
    expect((await op.harbor.robots.list({})).map((r) => r.name)).not.toContain("robot$ghost");
    await op.kubectl.delete("harborrobot", "ghost", { wait: true });
  });

  test("an adopted robot gets a new secret, since Harbor never shows one again: the old one is void", async () => {
    const existing = await op.harbor.robots.create({
      name: "legacy-ci",
      level: "project",
      duration: 30,
      permissions: [{ kind: "project", namespace: "team", access: pull }],
    });
    delivered.push(existing.secret);
    await op.kubectl.apply(robot("legacy-ci", { creationPolicy: "CreateOrAdopt" }));
    const adopted = await op.waitReady<RobotCR>("harborrobot", "legacy-ci");
    expect(harborIdOf(adopted)).toBe(existing.id);
    const c = await credentials(op, "legacy-ci");
    expect(c.username).toBe(existing.name);
    expect(await access(op, c)).toEqual(["pull"]);
    await expect(access(op, { username: existing.name, password: existing.secret })).rejects.toThrow(
      /rejected/,
    );
    const robots = await op.harbor.robots.list({
      projectId: (await op.harbor.projects.get("team")).project_id,
    });
    expect(robots.filter((r) => r.name === existing.name)).toHaveLength(1);
  });

  test("delete removes the robot from Harbor, and the Secret with it", async () => {
    const id = harborIdOf(await op.kubectl.get<RobotCR>("harborrobot", "ci"));
    await op.kubectl.delete("harborrobot", "ci", { wait: true });
    expect((await op.harbor.robots.list({})).map((r) => r.id)).not.toContain(id);
    await expect(op.kubectl.get("secret", "ci")).rejects.toMatchObject({ kind: "notFound" });
  });

  test("no delivered secret ever reaches the operator's output, status or events", async () => {
    assertNoSecretsIn(op.output());
    assertNoSecretsIn(await op.kubectl.run(["get", "harborrobots", "-o", "json"]));
    assertNoSecretsIn(await op.kubectl.run(["get", "events", "-o", "json"]));
    expect(delivered.length).toBeGreaterThan(5);
  });
});

describe("HarborRobot, request counts (no drift sweeps)", () => {
  // A drift interval too long to matter: what is counted comes from the reconcile alone. One
  // worker takes keys in the order they were queued, which is what `settled` relies on.
  const op = useOperator({ namespacePrefix: "robot-n", driftInterval: "1h", extraArgs: ["--workers=1"] });

  /**
   * Resolves once the operator has reconciled robot "first" after someone touched its Secret now.
   * The Secret watch reports changes in order, so any reconcile the Secrets written before made
   * the operator queue was queued first, and has run by then. That reconcile reads "first" once.
   */
  async function settled(): Promise<void> {
    const from = op.output().length;
    const since = Date.now();
    await op.kubectl.run(["annotate", "--overwrite", "secret", "first", `example.com/barrier=${since}`]);
    // By the line's own time: an earlier reconcile's line may still be on its way through the pipe.
    await untilTrue("a reconcile of first", () =>
      op.reconciles("harborrobot", "first", from).some((e) => Date.parse(e.time) >= since),
    );
  }

  let createdStatus: RobotCR["status"];

  test("converging a new robot costs two requests: look up and create (its answer gives the status); the first robot of a project the operator just created, one", async () => {
    await op.kubectl.apply(project("team"));
    await op.waitReady("harborproject", "team");
    // The project is new: no robot can be in it yet, so the first robot's lookup is skipped.
    const first = op.emulator.counters.list();
    await op.kubectl.apply(robot("first"));
    await op.waitReady<RobotCR>("harborrobot", "first");
    expect(op.emulator.counters.since(first)).toEqual({ CreateRobot: 1 });

    const from = op.output().length;
    const before = op.emulator.counters.list();
    await op.kubectl.apply(robot("counted"));
    const cr = await op.waitReady<RobotCR>("harborrobot", "counted");
    expect(op.emulator.counters.since(before)).toEqual({ ListRobot: 1, CreateRobot: 1 });
    // Look up and create only: the Secret watch's report of the operator's own write of either
    // new Secret causes no other reconcile (no update, no new secret either).
    const converged = op.emulator.counters.list();
    await settled();
    expect(op.reconciles("harborrobot", "counted", from)).toHaveLength(1);
    expect(op.emulator.counters.since(converged)).toEqual({ GetRobotByID: 1 }); // settled()'s
    expect(cr.status).toMatchObject({ fullName: "robot$team+counted", secretName: "counted" });
    expect(cr.status?.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    createdStatus = cr.status;
    expect(await access(op, await credentials(op, "counted"))).toEqual(["pull"]);
  });

  test("a reconcile of a robot in sync reads it once and writes nothing; what it reads is what the create's answer said", async () => {
    const total = () => op.emulator.counters.total();
    const from = op.output().length;
    const before = total();
    const gets = op.emulator.counters.total({ op: "GetRobotByID" });
    await op.kubectl.run(["annotate", "harborrobot", "counted", "example.com/touch=1"]);
    await untilTrue("a reconcile of counted", () => op.reconciles("harborrobot", "counted", from).length > 0);
    expect(op.emulator.counters.total({ op: "GetRobotByID" })).toBe(gets + 1);
    expect(total() - before).toBe(1);
    const converged = op.emulator.counters.list();
    await settled();
    expect(op.reconciles("harborrobot", "counted", from)).toHaveLength(1);
    expect(op.emulator.counters.since(converged)).toEqual({ GetRobotByID: 1 }); // settled()'s
    const { conditions: _a, ...after } =
      (await op.kubectl.get<RobotCR>("harborrobot", "counted")).status ?? {};
    const { conditions: _b, ...created } = createdStatus ?? {};
    expect(after).toEqual(created);
  });
});
