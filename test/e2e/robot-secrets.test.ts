// A HarborRobot's credentials end to end: the Secret that delivers them is restored with a new,
// working secret (same robot, same id) when it is deleted or edited, copies and ServiceAccount
// entries follow the namespace selector and go with the robot, a crash between creating the robot
// and writing its Secret loses nothing, and rotation leaves a working secret and a later expiry.
// Every credential is tried against the emulator's registry token service, as a kubelet would.
import { afterAll, describe, expect, test } from "vitest";
import { clusterApi } from "../env/kube-api.ts";
import { useOperator } from "../env/operator.ts";
import { pullAccess } from "../env/registry-auth.ts";
import {
  robot as anyRobot,
  condition,
  deliveredCredentials,
  eventOf,
  harborIdOf,
  project,
  PULL as pull,
  pullSecretsOf,
  type RobotCR,
  type SecretObject,
  waitForPullSecrets,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

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

const api = () => clusterApi(op.kubectl.kubeconfigPath);
const decoded = (s: SecretObject, key: string) => Buffer.from(s.data?.[key] ?? "", "base64").toString("utf8");

/** Follows the Secret until it holds a password other than `not`; its credentials then. */
async function newCredentials(name: string, not: string) {
  await op.waitFor<SecretObject>(
    "secret",
    name,
    (s) => s.data?.password !== undefined && decoded(s, "password") !== not,
  );
  return credentials(name);
}

/** Follows the ServiceAccount until `holds` is true of the pull secrets it lists. */
const pullSecrets = (namespace: string, account: string, holds: (names: string[]) => boolean) =>
  waitForPullSecrets(op.kubectl.inNamespace(namespace), account, holds);

const access = (c: { username: string; password: string }, repo = "team/app") =>
  pullAccess(op.emulator.url, c.username, c.password, repo);

async function robotsNamed(fullName: string) {
  const team = await op.harbor.projects.get("team");
  return (await op.harbor.robots.list({ projectId: team.project_id })).filter((r) => r.name === fullName);
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
    expect(harborIdOf(after)).toBe(harborIdOf(cr));
    expect(await robotsNamed("robot$team+puller")).toHaveLength(1);
    await eventOf(op.kubectl, "puller", "HarborRobot", "SecretRestored");
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
    await op.waitFor<SecretObject>("secret", "puller", (s) =>
      decoded(s, ".dockerconfigjson").includes(before.password),
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
    await op.waitGone("secret", "puller");
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes);
  });

  test("copies and ServiceAccount entries follow the namespace selector and go with the robot", async () => {
    const selector = op.namespace; // a label value unique to this test file
    const nsA = `${op.namespace}-a`;
    const nsB = `${op.namespace}-b`;
    const admin = op.kubectl;
    const hasSecret = async (ns: string) => (await api().find("secret", ns, "shared")) !== undefined;
    const lists = (names: string[]) => names.includes("shared");
    try {
      for (const ns of [nsA, nsB]) {
        await admin.run(["create", "namespace", ns]);
        // Both take this namespace's pull secrets: the selector alone decides here.
        await admin.run([
          "annotate",
          "namespace",
          ns,
          `harborconfig.io/accept-pull-secrets-from=${op.namespace}`,
        ]);
      }
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
      // Both ServiceAccounts in the first namespace list the copy, once.
      for (const account of ["builder", "default"])
        await pullSecrets(nsA, account, (names) => names.filter((n) => n === "shared").length === 1);
      expect(await hasSecret(nsB)).toBe(false);

      // A namespace that starts matching gets a copy, and its ServiceAccount (one made before) its
      // entry. (One created later gets it too: robot-copies.test.ts.)
      await admin.run(["label", "namespace", nsB, `robot-copies=${selector}`]);
      await op.waitFor<RobotCR>("harborrobot", "shared", (o) => (o.status?.copiedTo ?? []).includes(nsB));
      await pullSecrets(nsB, "default", lists);

      // A namespace that stops matching loses the copy and the entries.
      await admin.run(["label", "namespace", nsA, "robot-copies-"]);
      await op.waitFor<RobotCR>("harborrobot", "shared", (o) => !(o.status?.copiedTo ?? []).includes(nsA));
      await api().waitGone("secret", nsA, "shared");
      await pullSecrets(nsA, "builder", (names) => !lists(names));
      await pullSecrets(nsA, "default", (names) => !lists(names));

      // The robot goes: every copy and entry goes with it.
      await op.kubectl.delete("harborrobot", "shared", { wait: true });
      expect(await hasSecret(nsB)).toBe(false);
      expect(lists(await pullSecretsOf(admin.inNamespace(nsB), "default"))).toBe(false);
      expect(await hasSecret(op.namespace)).toBe(false);
    } finally {
      await admin.tryRun(["delete", "namespace", nsA, "--wait=false"]);
      await admin.tryRun(["delete", "namespace", nsB, "--wait=false"]);
    }
  });

  test("the operator killed between creating the robot and writing its Secret ends with one robot and a working Secret", async () => {
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: "after-robot-create" });
    let exit: { code: number | null } | undefined;
    void op.exited().then((code) => {
      exit = { code };
    });
    await op.kubectl.apply(robot("crashy"));
    const { code } = await until("the operator to reach the crash point and exit", () => exit);
    expect(code).toBeNull(); // killed by SIGKILL
    const created = await robotsNamed("robot$team+crashy");
    expect(created).toHaveLength(1);
    expect(await api().find("secret", op.namespace, "crashy")).toBeUndefined();

    await op.start();
    const cr = await op.waitReady<RobotCR>("harborrobot", "crashy");
    expect(harborIdOf(cr)).toBe(created[0]?.id);
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
    await op.harbor.robots.update(harborIdOf(before), {
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
    expect(harborIdOf(after)).toBe(harborIdOf(before));
  });

  // Last: it moves the emulator's clock.
  test("rotation before expiry leaves a working secret and a later expiry, on the same robot", async () => {
    await op.kubectl.apply(robot("rotor"));
    const before = await op.waitReady<RobotCR>("harborrobot", "rotor");
    const id = harborIdOf(before);
    const old = await credentials("rotor");
    const refreshes = op.emulator.counters.total({ op: "RefreshSec" });

    // Someone shortens the robot's life in Harbor to one day: now inside the rotation window.
    await op.harbor.robots.update(id, {
      name: "robot$team+rotor",
      level: "project",
      duration: 1,
      permissions: [{ kind: "project", namespace: "team", access: pull }],
    });
    // Renewed: an expiry later than the first one. (Not "lastRotation changed": status keeps whole
    // seconds, and a rotation within the second of the creation shows the same time.)
    const expiry = (o: RobotCR) => Date.parse(o.status?.expiresAt ?? "");
    const rotated = await op.waitFor<RobotCR>("harborrobot", "rotor", (o) => expiry(o) > expiry(before));
    const fresh = await credentials("rotor");
    expect(fresh.password).not.toBe(old.password);
    expect(await access(fresh)).toEqual(["pull"]);
    await expect(access(old)).rejects.toThrow(/rejected/);
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes + 1);
    expect(harborIdOf(rotated)).toBe(id);
    expect(expiry(rotated)).toBeGreaterThan(expiry(before));
    expect(Date.parse(rotated.status?.lastRotation ?? "")).toBeGreaterThanOrEqual(
      Date.parse(before.status?.lastRotation ?? ""),
    );
    const inHarbor = await op.harbor.robots.get(id);
    expect(rotated.status?.expiresAt).toBe(
      new Date((inHarbor.expires_at as number) * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
    );
    await eventOf(op.kubectl, "rotor", "HarborRobot", "SecretRotated");

    // A day and a half later the shortened expiry has passed; the renewed robot still pulls.
    op.emulator.control.clock.advance(36 * 3_600_000);
    expect(await access(fresh)).toEqual(["pull"]);
    // And the operator does not rotate again: two drift sweeps read the robot and find it in order.
    await op.sweeps("HarborRobot");
    expect(op.emulator.counters.total({ op: "RefreshSec" })).toBe(refreshes + 1);
  });
});
