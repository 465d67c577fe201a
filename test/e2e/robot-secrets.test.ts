// A HarborRobot's credentials end to end: the Secret that delivers them is restored with a new,
// working secret (same robot, same id) when it is deleted or edited, copies and ServiceAccount
// entries follow the namespace selector and go with the robot, a crash between creating the robot
// and writing its Secret loses nothing, and rotation leaves a working secret and a later expiry.
// Every credential is tried against the emulator's registry token service, as a kubelet would.
import { afterAll, describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { pullAccess } from "../env/registry-auth.ts";
import {
  robot as anyRobot,
  condition,
  deliveredCredentials,
  project,
  PULL as pull,
  pullSecretsOf,
  type RobotCR,
  eventReasons as reasonsIn,
  secretValues,
} from "../env/resources.ts";

/** A robot of project "team", allowed to pull, unless the spec says otherwise. */
const robot = (name: string, spec: Parameters<typeof anyRobot>[1] = {}) =>
  anyRobot(name, { projectRef: { name: "team" }, ...spec });

const op = useOperator({ namespacePrefix: "robot-sec" });
const delivered: string[] = [];

async function credentials(name: string, namespace?: string) {
  const creds = await deliveredCredentials(namespace ? op.kubectl.inNamespace(namespace) : op.kubectl, name);
  delivered.push(creds.password);
  return creds;
}

/** Polls until the Secret exists and holds a password other than `not`. */
async function newCredentials(name: string, not: string, namespace?: string) {
  const k = namespace ? op.kubectl.inNamespace(namespace) : op.kubectl;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await k.tryRun(["get", "secret", name, "-o", "jsonpath={.data.password}"]);
    if (r.code === 0 && r.stdout && Buffer.from(r.stdout, "base64").toString("utf8") !== not) {
      return credentials(name, namespace);
    }
    if (Date.now() > deadline) throw new Error(`Secret ${name} was not given new credentials`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

const access = (c: { username: string; password: string }, repo = "team/app") =>
  pullAccess(op.emulator.url, c.username, c.password, repo);

async function robotsNamed(fullName: string) {
  const team = await op.harbor.projects.get("team");
  return (await op.harbor.robots.list({ projectId: team.project_id })).filter((r) => r.name === fullName);
}

const eventReasons = (name: string) => reasonsIn(op.kubectl, name);

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

afterAll(() => {
  const out = op.output();
  for (const p of delivered)
    expect(out.includes(p), "a delivered secret reached the operator's output").toBe(false);
});

describe("HarborRobot credentials", () => {
  test("a deleted Secret comes back with a new working secret, from the same robot", async () => {
    await op.kubectl.apply([project("team"), robot("puller")]);
    const cr = await op.waitReady<RobotCR>("harborrobot", "puller");
    const old = await credentials("puller");
    expect(await access(old)).toEqual(["pull"]);

    await op.kubectl.delete("secret", "puller");
    const fresh = await newCredentials("puller", old.password);
    expect(fresh.username).toBe(old.username);
    expect(await access(fresh)).toEqual(["pull"]);
    await expect(access(old)).rejects.toThrow(/rejected/);
    const after = await op.kubectl.get<RobotCR>("harborrobot", "puller");
    expect(after.status?.harborId).toBe(cr.status?.harborId);
    expect(await robotsNamed("robot$team+puller")).toHaveLength(1);
    expect(await eventReasons("puller")).toContain("SecretRestored");
  });

  test("an edited password is replaced by a new secret; an edited docker config is only rewritten", async () => {
    const before = await credentials("puller");
    const refreshes = () => op.emulator.counters.total({ op: "RefreshSec" });

    // The docker config alone: the password is still known, so the Secret is just put back.
    const r0 = refreshes();
    await op.kubectl.run([
      "patch",
      "secret",
      "puller",
      "-p",
      JSON.stringify({ stringData: { ".dockerconfigjson": "{}" } }),
    ]);
    await waitUntil("the docker config is rewritten", async () =>
      (await secretValues(op.kubectl, "puller")).text(".dockerconfigjson").includes(before.password),
    );
    expect(refreshes()).toBe(r0);
    expect(await access(before)).toEqual(["pull"]);

    // The password: what the Secret holds is no longer known to work, so a new secret is issued.
    await op.kubectl.run([
      "patch",
      "secret",
      "puller",
      "-p",
      JSON.stringify({ stringData: { password: "Guessed123" } }),
    ]);
    const fresh = await newCredentials("puller", "Guessed123");
    expect(fresh.password).not.toBe(before.password);
    expect(await access(fresh)).toEqual(["pull"]);
    expect(refreshes()).toBe(r0 + 1);
  });

  test("renaming the Secret moves the credentials: no new secret, the old Secret goes", async () => {
    const before = await credentials("puller");
    const refreshes = op.emulator.counters.total({ op: "RefreshSec" });
    await op.kubectl.apply(robot("puller", { secret: { name: "puller-pull" } }));
    await op.waitFor<RobotCR>("harborrobot", "puller", (o) => o.status?.secretName === "puller-pull");
    const moved = await credentials("puller-pull");
    expect(moved.password).toBe(before.password);
    expect(await access(moved)).toEqual(["pull"]);
    await waitUntil(
      "the old Secret is gone",
      async () => (await op.kubectl.tryRun(["get", "secret", "puller"])).code !== 0,
    );
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes);
  });

  test("copies and ServiceAccount entries follow the namespace selector and go with the robot", async () => {
    const selector = op.namespace; // a label value unique to this test file
    const nsA = `${op.namespace}-a`;
    const nsB = `${op.namespace}-b`;
    const admin = op.kubectl;
    const entries = (ns: string, name: string) => pullSecretsOf(admin.inNamespace(ns), name);
    const listed = async (ns: string, name: string) =>
      (await entries(ns, name).catch((): string[] => [])).includes("shared");
    const hasSecret = async (ns: string) =>
      (await admin.inNamespace(ns).tryRun(["get", "secret", "shared"])).code === 0;
    try {
      await admin.run(["create", "namespace", nsA]);
      await admin.run(["create", "namespace", nsB]);
      await admin.run(["label", "namespace", nsA, `robot-copies=${selector}`]);
      await admin.inNamespace(nsA).run(["create", "serviceaccount", "builder"]);
      await op.kubectl.apply(
        robot("shared", {
          secret: {
            copies: {
              namespaceSelector: { matchLabels: { "robot-copies": selector } },
              serviceAccounts: ["builder", "default"],
            },
          },
        }),
      );
      const cr = await op.waitFor<RobotCR>("harborrobot", "shared", (o) =>
        (o.status?.copiedTo ?? []).includes(nsA),
      );
      expect(cr.status?.copiedTo).toEqual([nsA]);
      const primary = await credentials("shared");
      const copy = await credentials("shared", nsA);
      expect(copy.password).toBe(primary.password);
      expect(copy.secret.type).toBe("kubernetes.io/dockerconfigjson");
      expect(copy.secret.data).toEqual(primary.secret.data);
      expect(await access(copy)).toEqual(["pull"]);
      await waitUntil("both ServiceAccounts in the first namespace list the copy", async () => {
        return (await listed(nsA, "builder")) && (await listed(nsA, "default"));
      });
      expect(await hasSecret(nsB)).toBe(false);

      // A namespace that starts matching gets a copy; a ServiceAccount created later gets its entry.
      await admin.run(["label", "namespace", nsB, `robot-copies=${selector}`]);
      await op.waitFor<RobotCR>("harborrobot", "shared", (o) => (o.status?.copiedTo ?? []).includes(nsB));
      await admin.inNamespace(nsB).run(["create", "serviceaccount", "builder"]);
      await waitUntil("the late ServiceAccount lists the copy", () => listed(nsB, "builder"), 90_000);
      expect((await entries(nsB, "builder")).filter((e) => e === "shared")).toHaveLength(1);

      // A namespace that stops matching loses the copy and the entries.
      await admin.run(["label", "namespace", nsA, "robot-copies-"]);
      await op.waitFor<RobotCR>("harborrobot", "shared", (o) => !(o.status?.copiedTo ?? []).includes(nsA));
      await waitUntil("the first namespace is cleaned up", async () => !(await hasSecret(nsA)));
      expect(await listed(nsA, "builder")).toBe(false);
      expect(await listed(nsA, "default")).toBe(false);

      // The robot goes: every copy and entry goes with it.
      await op.kubectl.delete("harborrobot", "shared", { wait: true });
      expect(await hasSecret(nsB)).toBe(false);
      expect(await listed(nsB, "builder")).toBe(false);
      expect(await listed(nsB, "default")).toBe(false);
      expect((await op.kubectl.tryRun(["get", "secret", "shared"])).code).not.toBe(0);
    } finally {
      await admin.tryRun(["delete", "namespace", nsA, "--wait=false"]);
      await admin.tryRun(["delete", "namespace", nsB, "--wait=false"]);
    }
  });

  test("the operator killed between creating the robot and writing its Secret ends with one robot and a working Secret", async () => {
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: "after-robot-create" });
    await op.kubectl.apply(robot("crashy"));
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 60_000),
      ),
    ]);
    expect(code).toBeNull(); // killed by SIGKILL
    const created = await robotsNamed("robot$team+crashy");
    expect(created).toHaveLength(1);
    expect((await op.kubectl.tryRun(["get", "secret", "crashy"])).code).not.toBe(0);

    await op.start();
    const cr = await op.waitReady<RobotCR>("harborrobot", "crashy", 90_000);
    expect(cr.status?.harborId).toBe(created[0]?.id);
    expect(await robotsNamed("robot$team+crashy")).toHaveLength(1);
    expect(await access(await credentials("crashy"))).toEqual(["pull"]);
  });

  test("a rotation whose refresh answer is lost still ends with a working secret", async () => {
    await op.kubectl.apply(robot("flaky"));
    const before = await op.waitReady<RobotCR>("harborrobot", "flaky");
    const old = await credentials("flaky");
    // Harbor refreshes the secret, but its answer (the only copy of the new secret) never arrives.
    op.emulator.control.faults.add({ op: "RefreshSec", status: 500, afterHandler: true, times: 1 });
    const refreshes = op.emulator.counters.total({ op: "RefreshSec" });
    await op.harbor.robots.update(before.status?.harborId as number, {
      name: "robot$team+flaky",
      level: "project",
      duration: 1,
      permissions: [{ kind: "project", namespace: "team", access: pull }],
    });
    const fresh = await newCredentials("flaky", old.password);
    expect(await access(fresh)).toEqual(["pull"]);
    await expect(access(old)).rejects.toThrow(/rejected/);
    expect(op.emulator.counters.total({ op: "RefreshSec", status: 500 })).toBeGreaterThanOrEqual(1);
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes + 2);
    const after = await op.waitFor<RobotCR>(
      "harborrobot",
      "flaky",
      (o) => condition(o, "Ready")?.status === "True",
    );
    expect(after.status?.harborId).toBe(before.status?.harborId);
  });

  // Last: it moves the emulator's clock.
  test("rotation before expiry leaves a working secret and a later expiry, on the same robot", async () => {
    await op.kubectl.apply(robot("rotor"));
    const before = await op.waitReady<RobotCR>("harborrobot", "rotor");
    const id = before.status?.harborId as number;
    const old = await credentials("rotor");
    const refreshes = op.emulator.counters.total({ op: "RefreshSec" });

    // Someone shortens the robot's life in Harbor to one day: now inside the rotation window.
    await op.harbor.robots.update(id, {
      name: "robot$team+rotor",
      level: "project",
      duration: 1,
      permissions: [{ kind: "project", namespace: "team", access: pull }],
    });
    const rotated = await op.waitFor<RobotCR>(
      "harborrobot",
      "rotor",
      (o) => o.status?.lastRotation !== before.status?.lastRotation && o.status?.expiresAt !== undefined,
      30_000,
    );
    const fresh = await credentials("rotor");
    expect(fresh.password).not.toBe(old.password);
    expect(await access(fresh)).toEqual(["pull"]);
    await expect(access(old)).rejects.toThrow(/rejected/);
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes + 1);
    expect(rotated.status?.harborId).toBe(id);
    expect(Date.parse(rotated.status?.expiresAt as string)).toBeGreaterThan(
      Date.parse(before.status?.expiresAt as string),
    );
    const inHarbor = await op.harbor.robots.get(id);
    expect(rotated.status?.expiresAt).toBe(
      new Date((inHarbor.expires_at as number) * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
    );
    expect(await eventReasons("rotor")).toContain("SecretRotated");

    // A day and a half later the shortened expiry has passed; the renewed robot still pulls.
    op.emulator.control.clock.advance(36 * 3_600_000);
    expect(await access(fresh)).toEqual(["pull"]);
    // And the operator does not rotate again.
    await new Promise((res) => setTimeout(res, 4_000));
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes + 1);
  });
});
