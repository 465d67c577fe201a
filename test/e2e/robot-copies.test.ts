// Where a HarborRobot's copies go, seen as a user sees it: a ServiceAccount created after the robot
// is Ready lists the pull secret (and gets it back when someone removes it), and a copy that
// cannot be made — a Secret of that name that belongs to someone else — shows on the robot's
// status naming the namespace, in Argo CD's health too, clears once the Secret goes, and is
// reported Stalled (Argo CD: Degraded) when it lasts past --dependency-timeout. A namespace gets
// copies only if it accepts them from the robot's namespace; one that does not is named instead.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findLua, runArgoHealth } from "../env/lua.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventOf,
  project,
  type RobotCR,
  robot as robotOf,
  secret,
  waitForPullSecrets,
} from "../env/resources.ts";

// A copy that keeps failing is reported Stalled past --dependency-timeout (2 min by default): 20 s
// here, still long enough for the second test's robot to be fixed before that.
const op = useOperator({ namespacePrefix: "robot-copy", extraArgs: ["--dependency-timeout=20s"] });
const healthScript = new URL("../../deploy/argocd/health.lua", import.meta.url).pathname;

/** A robot of project "team" whose pull secret is copied where namespaces carry the selector. */
const robot = (name: string, selector: string, serviceAccounts: string[] = []) =>
  robotOf(name, {
    projectRef: { name: "team" },
    secret: {
      copies: { namespaceSelector: { matchLabels: { "robot-copies": selector } }, serviceAccounts },
    },
  });

const namespaces: string[] = [];
/** A namespace the selector matches; unless told otherwise it accepts copies from the robots' namespace. */
async function labelledNamespace(suffix: string, selector: string, accepts = true): Promise<string> {
  const name = `${op.namespace}-${suffix}`;
  await op.kubectl.run(["create", "namespace", name]);
  namespaces.push(name);
  if (accepts) await accept(name, op.namespace);
  await op.kubectl.run(["label", "namespace", name, `robot-copies=${selector}`]);
  return name;
}

/** What a namespace's owner does to take the robots' copies from `source` ("-": no longer). */
const accept = (namespace: string, source: string) =>
  op.kubectl.run([
    "annotate",
    "--overwrite",
    "namespace",
    namespace,
    source === "-"
      ? "harborconfig.io/accept-pull-secrets-from-"
      : `harborconfig.io/accept-pull-secrets-from=${source}`,
  ]);

async function foreignSecret(namespace: string, name: string): Promise<void> {
  await op.kubectl.inNamespace(namespace).apply(secret(name, { note: "not the operator's" }));
}

/** Follows the ServiceAccount until its imagePullSecrets list exactly `names`, each once. */
const listing = (namespace: string, account: string, names: string[]) =>
  waitForPullSecrets(
    op.kubectl.inNamespace(namespace),
    account,
    (listed) => JSON.stringify(listed) === JSON.stringify(names),
  );

beforeAll(() => {
  findLua();
});

afterAll(async () => {
  for (const ns of namespaces) await op.kubectl.tryRun(["delete", "namespace", ns, "--wait=false"]);
});

/** The last test's robot, whose copy can never be made: applied first, so that its wait runs out meanwhile. */
async function applyStuck(): Promise<string> {
  const nsTaken = await labelledNamespace("stuck", `${op.namespace}-stuck`);
  await foreignSecret(nsTaken, "stuck");
  await op.kubectl.apply([project("team"), robot("stuck", `${op.namespace}-stuck`)]);
  return nsTaken;
}
let stuckIn = "";

describe("HarborRobot copies", () => {
  test("a ServiceAccount created after the robot is Ready lists the pull secret, and gets it back when removed", async () => {
    stuckIn = await applyStuck();
    const selector = `${op.namespace}-sa`;
    const nsA = await labelledNamespace("a", selector);
    const nsB = await labelledNamespace("b", selector);
    await op.kubectl.apply(robot("late", selector, ["app", "worker"]));
    await op.waitReady<RobotCR>("harborrobot", "late");
    await op.waitFor<RobotCR>("harborrobot", "late", (o) => o.status?.copiedTo?.length === 2);

    // Neither ServiceAccount exists yet; each appears later, in one namespace or the other.
    const accounts = [
      [nsA, "app"],
      [nsB, "worker"],
      [nsB, "app"],
    ] as const;
    for (const [ns, account] of accounts)
      await op.kubectl.inNamespace(ns).run(["create", "serviceaccount", account]);
    for (const [ns, account] of accounts) await listing(ns, account, ["late"]);

    // Someone removes the entry (e.g. re-applies the ServiceAccount without it): it comes back.
    await op.kubectl
      .inNamespace(nsA)
      .run([
        "patch",
        "serviceaccount",
        "app",
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/imagePullSecrets"}]',
      ]);
    await listing(nsA, "app", ["late"]);
  });

  test("a Secret of the copy's name that belongs to someone else shows on the robot's status, and clears when it goes", async () => {
    const selector = `${op.namespace}-conflict`;
    const nsOk = await labelledNamespace("ok", selector);
    const nsTaken = await labelledNamespace("taken", selector);
    await foreignSecret(nsTaken, "contested");
    await op.kubectl.apply(robot("contested", selector, ["default"]));

    const failing = await op.waitFor<RobotCR>(
      "harborrobot",
      "contested",
      (o) => (o.status?.copyFailures ?? []).length > 0,
    );
    expect(failing.status?.copiedTo).toEqual([nsOk]);
    expect(failing.status?.copyFailures).toEqual([
      {
        namespace: nsTaken,
        reason: "SecretConflict",
        message: `Secret ${nsTaken}/contested exists and is not managed by this resource; rename the secret or remove it`,
      },
    ]);
    const ready = condition(failing, "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "SecretCopyFailed" });
    expect(ready?.message).toContain(`namespace ${nsTaken}`);
    expect(ready?.message).not.toContain(nsOk);
    // Harbor itself is in sync: only the delivery is not.
    expect(condition(failing, "Synced")?.status).toBe("True");
    // The foreign Secret is left as it was, and no ServiceAccount there points at it.
    const foreign = await op.kubectl
      .inNamespace(nsTaken)
      .get<{ data: Record<string, string> }>("secret", "contested");
    expect(Object.keys(foreign.data)).toEqual(["note"]);
    // Followed, not read once: each new namespace's "default" ServiceAccount comes from
    // kube-controller-manager, and one that appears after the robot's reconcile gets its entry
    // from the ServiceAccount watch, later.
    await listing(nsTaken, "default", []);
    await listing(nsOk, "default", ["contested"]);

    // Its owner removes the Secret (before the wait's timeout, which would make the robot Stalled):
    // the copy is made and the failure clears. Nothing announces the removal of a Secret the
    // operator does not watch: the robot looks again at its next retry.
    await op.kubectl.inNamespace(nsTaken).delete("secret", "contested");
    // Meanwhile: Argo CD showed the failure, with the namespace; the Warning Events stay, the
    // namespace's and Ready's turn.
    const health = await runArgoHealth(healthScript, failing);
    expect(health).toMatchObject({ status: "Progressing", message: expect.stringContaining(nsTaken) });
    await eventOf(op.kubectl, "contested", "HarborRobot", "SecretCopyConflict");
    await eventOf(op.kubectl, "contested", "HarborRobot", "SecretCopyFailed");

    const healed = await op.waitFor<RobotCR>(
      "harborrobot",
      "contested",
      (o) => condition(o, "Ready")?.status === "True",
    );
    expect(healed.status?.copiedTo).toEqual([nsOk, nsTaken].sort());
    expect(healed.status?.copyFailures).toBeUndefined();
    expect((await runArgoHealth(healthScript, healed)).status).toBe("Healthy");
    const copy = await op.kubectl
      .inNamespace(nsTaken)
      .get<{ data: Record<string, string> }>("secret", "contested");
    expect(Object.keys(copy.data).sort()).toEqual([".dockerconfigjson", "password", "username"]);
    await listing(nsTaken, "default", ["contested"]);
  });

  test("a copy that keeps failing is Stalled past --dependency-timeout: Argo CD shows it Degraded", async () => {
    // Applied in the first test.
    const stalled = await op.waitFor<RobotCR>(
      "harborrobot",
      "stuck",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")).toMatchObject({ status: "False", reason: "SecretCopyFailed" });
    expect(condition(stalled, "Stalled")?.message).toContain(`namespace ${stuckIn}`);
    expect(stalled.status?.copyFailures?.map((f) => f.namespace)).toEqual([stuckIn]);
    const health = await runArgoHealth(healthScript, stalled);
    expect(health).toMatchObject({ status: "Degraded", message: expect.stringContaining(stuckIn) });
  });

  // Last: it restarts the operator with another setting.
  test("a namespace that does not accept copies gets none and is named; a copy made before is kept and named until the setting removes it", async () => {
    const selector = `${op.namespace}-consent`;
    const welcoming = await labelledNamespace("yes", selector);
    const closed = await labelledNamespace("no", selector, false);
    await op.kubectl.apply(robot("consent", selector, ["default"]));
    const refused = await op.waitFor<RobotCR>(
      "harborrobot",
      "consent",
      (o) => o.status?.copiedTo?.length === 1 && o.status.copiesRefused?.length === 1,
    );
    expect(refused.status).toMatchObject({ copiedTo: [welcoming], copiesRefused: [closed] });
    expect(condition(refused, "Ready")?.status).toBe("True");
    await eventOf(op.kubectl, "consent", "HarborRobot", "CopyRefused", `namespace ${closed}:`);
    // Nothing was written there: no Secret, no ServiceAccount entry.
    expect(await op.kubectl.inNamespace(closed).tryRun(["get", "secret", "consent"])).toMatchObject({
      code: 1,
    });
    await listing(closed, "default", []);
    await listing(welcoming, "default", ["consent"]);

    // The namespace stops accepting (as one that took copies under the old rule looks): its copy
    // stays, so image pulls there go on working, and the robot names it.
    await accept(welcoming, "-");
    await op.waitFor<RobotCR>("harborrobot", "consent", (o) => o.status?.copiesWithoutConsent?.length === 1);
    await eventOf(op.kubectl, "consent", "HarborRobot", "CopyWithoutConsent", `namespace ${welcoming} `);
    await op.kubectl.inNamespace(welcoming).get("secret", "consent");

    // The cluster admin ends the transition: the copy and its entry go.
    await op.stop();
    await op.start({ COPIES_WITHOUT_CONSENT: "remove" });
    const removed = await op.waitFor<RobotCR>(
      "harborrobot",
      "consent",
      (o) => (o.status?.copiedTo ?? []).length === 0 && o.status?.copiesWithoutConsent === undefined,
    );
    expect(removed.status?.copiesRefused).toEqual([closed, welcoming].sort());
    await listing(welcoming, "default", []);
    expect(await op.kubectl.inNamespace(welcoming).tryRun(["get", "secret", "consent"])).toMatchObject({
      code: 1,
    });
  });
});
