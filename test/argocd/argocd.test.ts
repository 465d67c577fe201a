// A real Argo CD (application controller, repo server, Redis; built from its Go modules) syncing
// deploy/examples/ from a local Git repository with the shipped Application
// (deploy/argocd/application.yaml, only its placeholders replaced), against a real control plane,
// the operator and the Harbor emulator. Everything a platform team sees: the first sync, health
// from the project's Lua check (Healthy, Degraded with Harbor's reason, Suspended), selfHeal, no
// spurious OutOfSync, one file pruned, and the whole folder pruned with nothing left behind.
//
// Each commit is followed by a refresh request, as a Git webhook makes one; the steps run in order
// and build on each other. Timings are printed as `[argocd] …` lines.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { isHarborError } from "../../src/harbor/errors.ts";
import { createGitRepo, type GitRepo } from "../env/argocd/git.ts";
import { ARGOCD_NAMESPACE, type ArgoCd, startArgoCd } from "../env/argocd/launcher.ts";
import { type ControlPlane, startControlPlane } from "../env/controlplane/launcher.ts";
import {
  addExampleAdapters,
  exampleFiles,
  examplesDir,
  type Manifest,
  OPERATOR_ENV,
  operatorNamespace,
  webhooksOnLoopback,
} from "../env/examples.ts";
import { useEmulator } from "../env/harbor.ts";
import { type Kubectl, kubectl } from "../env/kubectl.ts";
import { type OperatorProcess, spawnOperator } from "../env/operator.ts";
import { harborIdOf } from "../env/resources.ts";

const root = join(import.meta.dirname, "..", "..");
const say = (line: string) => process.stderr.write(`[argocd] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The folder of the repository the Application syncs. */
const FOLDER = "teams/examples";
const NAMESPACE = "harbor-examples";
const APPS_NAMESPACE = "harbor-examples-apps";
const APP = "harbor-config-examples";

interface ResourceStatus {
  group?: string;
  kind: string;
  namespace?: string;
  name: string;
  status?: string;
  health?: { status?: string; message?: string };
}

interface Application {
  metadata: { annotations?: Record<string, string> };
  spec: { syncPolicy?: { syncOptions?: string[] } };
  status?: {
    reconciledAt?: string;
    sync?: { status?: string; revision?: string };
    health?: { status?: string; message?: string };
    resources?: ResourceStatus[];
    conditions?: Array<{ type: string; message: string }>;
    operationState?: {
      phase?: string;
      message?: string;
      startedAt?: string;
      finishedAt?: string;
      syncResult?: { revision?: string };
    };
  };
}

const h = useEmulator({ host: "127.0.0.1" });
let cp: ControlPlane | undefined;
let argo: ArgoCd | undefined;
let operator: OperatorProcess | undefined;
let repo: GitRepo | undefined;
let admin: Kubectl;
/** The examples' files as committed: file name → manifests. */
let files: Map<string, Manifest[]>;
/** The commit the Application should be synced to. */
let revision = "";

beforeAll(async () => {
  cp = await startControlPlane({ crds: join(root, "crds"), log: say });
  admin = kubectl(cp.kubeconfigPath, cp.binaries.kubectl);
  operator = spawnOperator(
    [
      `--kubeconfig=${cp.kubeconfigPath}`,
      "--leader-elect=false",
      "--metrics-bind-address=0",
      "--health-probe-bind-address=0",
      "--drift-interval=10s",
    ],
    OPERATOR_ENV,
  );
  argo = await startArgoCd({ kubeconfigPath: cp.kubeconfigPath, kubectl: cp.binaries.kubectl, log: say });

  // The namespaces exist before the team's configuration, as a platform makes them: the Application
  // manages what is in its folder, not the namespaces (the apps namespace gets robot Secret copies).
  // The operator's namespace too, as deploy/ makes it: the shared connection's Secret goes there.
  await admin.apply(readFileSync(join(examplesDir, "namespaces.yaml"), "utf8"));
  await admin.apply(operatorNamespace());
  const { emulator } = h;
  addExampleAdapters(emulator.control);
  files = exampleFiles({
    url: emulator.url,
    username: emulator.adminUsername,
    password: emulator.adminPassword,
  });
  files.delete("namespaces.yaml");
  webhooksOnLoopback(files);
  repo = await createGitRepo();
  revision = await repo.commit("Harbor configuration of the examples", {
    // Git keeps no empty folders: a README keeps this one when every manifest is deleted.
    [`${FOLDER}/README.md`]: "Harbor configuration of the examples, applied by Argo CD.\n",
    ...Object.fromEntries([...files].map(([file, docs]) => [`${FOLDER}/${file}`, docs])),
  });
}, 30 * 60_000);

afterAll(async () => {
  await argo?.stop();
  await operator?.stop();
  await cp?.stop();
  repo?.remove();
}, 120_000);

/** The shipped Application with its placeholders replaced: this repository, folder and namespace. */
function application(): Record<string, unknown> {
  const app = parse(readFileSync(join(root, "deploy", "argocd", "application.yaml"), "utf8")) as {
    metadata: { name: string; namespace: string };
    spec: { source: Record<string, string>; destination: Record<string, string> };
  };
  app.metadata.name = APP;
  app.metadata.namespace = ARGOCD_NAMESPACE;
  app.spec.source.repoURL = repo?.url ?? "";
  app.spec.source.path = FOLDER;
  app.spec.destination.namespace = NAMESPACE;
  return app;
}

const argoKubectl = () => admin.inNamespace(ARGOCD_NAMESPACE);
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** The connection's credentials Secret. */
const credentials = () => admin.inNamespace(NAMESPACE).get("secret", "harbor-credentials");
const getApp = () => argoKubectl().get<Application>("application", APP);

/** What a Git webhook makes Argo CD do: compare with the repository now, not at the next poll. */
async function refresh(): Promise<void> {
  await argoKubectl().run([
    "annotate",
    "application",
    APP,
    "--overwrite",
    "argocd.argoproj.io/refresh=normal",
  ]);
}

async function commit(message: string, changes: Record<string, object[] | string | null>): Promise<string> {
  if (!repo) throw new Error("no repository");
  const revision = await repo.commit(
    message,
    Object.fromEntries(Object.entries(changes).map(([file, content]) => [`${FOLDER}/${file}`, content])),
  );
  await refresh();
  return revision;
}

/** Polls the Application until `done` holds; fails with what it last saw and the controller's log. */
async function waitApp(
  what: string,
  done: (app: Application) => boolean,
  timeoutMs: number,
): Promise<Application> {
  const deadline = Date.now() + timeoutMs;
  let last: Application | undefined;
  for (;;) {
    last = await getApp();
    if (done(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${seconds(timeoutMs)} waiting for ${what}; Application status: ${JSON.stringify(last.status, null, 1)}\n` +
          `--- application-controller log ---\n${argo?.logTail("application-controller", 40)}\n` +
          `--- repo-server log ---\n${argo?.logTail("repo-server", 15)}\n--- operator ---\n${operator?.output().slice(-3000)}`,
      );
    }
    await sleep(250);
  }
}

/** Synced to `revision`, its sync operation finished as `phase`, and the app's health is `health`. */
const settled =
  (revision: string, health: string, phase = "Succeeded") =>
  (app: Application): boolean =>
    app.status?.sync?.status === "Synced" &&
    app.status.sync.revision === revision &&
    app.status.operationState?.syncResult?.revision === revision &&
    app.status.operationState.phase === phase &&
    app.status.health?.status === health;

const resource = (app: Application, kind: string, name: string) =>
  app.status?.resources?.find((r) => r.kind === kind && r.name === name);

/** Every object of the examples' kinds still in the cluster, in any namespace. */
async function leftInCluster(): Promise<string[]> {
  const kinds = "harbor,harborconnections,clusterharborconnections";
  const ours = JSON.parse(await admin.run(["get", kinds, "-A", "-o", "json"])) as {
    items: Array<{ kind: string; metadata: { namespace?: string; name: string } }>;
  };
  const left = ours.items.map((i) => `${i.kind} ${i.metadata.namespace ?? ""}/${i.metadata.name}`);
  const exampleSecrets = new Set([
    ...[...files.values()]
      .flat()
      .filter((m) => m.kind === "Secret")
      .map((m) => m.metadata.name),
    "example-team-pull",
  ]);
  const secrets = JSON.parse(await admin.run(["get", "secrets", "-A", "-o", "json"])) as {
    items: Array<{ metadata: { namespace: string; name: string; labels?: Record<string, string> } }>;
  };
  for (const s of secrets.items) {
    const copy = s.metadata.labels?.["harborconfig.io/copy-of"] !== undefined;
    if (copy || exampleSecrets.has(s.metadata.name))
      left.push(`Secret ${s.metadata.namespace}/${s.metadata.name}`);
  }
  const accounts = JSON.parse(await admin.run(["get", "serviceaccounts", "-A", "-o", "json"])) as {
    items: Array<{
      metadata: { namespace: string; name: string };
      imagePullSecrets?: Array<{ name: string }>;
    }>;
  };
  for (const a of accounts.items) {
    for (const ref of a.imagePullSecrets ?? []) {
      if (exampleSecrets.has(ref.name)) {
        left.push(`ServiceAccount ${a.metadata.namespace}/${a.metadata.name} imagePullSecrets ${ref.name}`);
      }
    }
  }
  return left;
}

/** Harbor ids of the robots the examples made, recorded after the first sync. */
const robotIds: number[] = [];

/** Everything the examples made in Harbor that is still there. */
async function leftInHarbor(): Promise<string[]> {
  const harbor = h.admin;
  const left: string[] = [];
  const projects = (await harbor.projects.list()).filter((p) => p.name !== "library");
  for (const p of projects) left.push(`project ${p.name}`);
  // System robots, each remaining project's robots, and the robots known by id (wherever they are).
  const robots = [
    ...(await harbor.robots.list()),
    ...(
      await Promise.all(projects.map((p) => harbor.robots.list({ projectId: p.project_id as number })))
    ).flat(),
  ];
  for (const id of robotIds) {
    if (robots.some((r) => r.id === id)) continue;
    const found = await harbor.robots.get(id).catch((e: unknown) => {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    });
    if (found) robots.push(found);
  }
  for (const r of robots) left.push(`robot ${r.name}`);
  for (const r of await harbor.registries.list()) left.push(`registry ${r.name}`);
  for (const p of await harbor.replication.listPolicies()) left.push(`replication policy ${p.name}`);
  for (const s of await harbor.scanners.list()) left.push(`scanner registration ${s.name}`);
  // The per-Harbor settings the examples set (their deletion sets the schedules to None).
  if (await harbor.gc.getSchedule()) left.push("gc schedule");
  if (await harbor.purge.getSchedule()) left.push("audit-log purge schedule");
  return left;
}

describe("Argo CD syncing the examples with the shipped Application", () => {
  test("first sync: Synced and Healthy, every resource Healthy through the Lua check", {
    timeout: 180_000,
  }, async () => {
    const started = Date.now();
    await argoKubectl().apply(application());
    const app = await waitApp("the first sync", settled(revision, "Healthy"), 150_000);
    say(`first sync: Synced + Healthy ${seconds(Date.now() - started)} after the Application was created`);

    const kinds = [
      "HarborConnection",
      "ClusterHarborConnection",
      "HarborProject",
      "HarborRobot",
      "HarborRegistry",
      "HarborReplicationPolicy",
      "HarborWebhookPolicy",
      "HarborGarbageCollection",
      "HarborAuditLogPurge",
      "HarborJobService",
      "HarborRetentionPolicy",
      "HarborImmutableTagRule",
    ];
    for (const kind of kinds) {
      const r = app.status?.resources?.find((x) => x.kind === kind);
      expect(r, `${kind} in the Application`).toBeDefined();
      expect(r?.status).toBe("Synced");
      // The message is the Lua check's (Ready's reason), so the project's health check is in use.
      expect(r?.health?.status, `${kind}: ${r?.health?.message}`).toBe("Healthy");
      expect(r?.health?.message).toBeTruthy();
    }
    expect((await h.admin.projects.list()).map((p) => p.name)).toContain("example-team");
    // Server-side apply, as shipped, leaves no copy of the credentials in an annotation.
    expect((await credentials()).metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
    const robot = await admin
      .inNamespace(NAMESPACE)
      .get<{ status?: { copiedTo?: string[]; harborId?: number } }>("harborrobot", "example-team-pull");
    expect(robot.status?.copiedTo).toEqual([APPS_NAMESPACE]);
    robotIds.push(harborIdOf(robot));
    // What the whole-folder prune must remove, there to be seen before it.
    expect(await leftInHarbor()).toEqual(
      expect.arrayContaining([
        "project example-team",
        expect.stringMatching(/^robot .*example-team-pull/),
        expect.stringMatching(/^registry /),
        expect.stringMatching(/^replication policy /),
        "gc schedule",
        "audit-log purge schedule",
      ]),
    );
    expect(await leftInCluster()).toEqual(
      expect.arrayContaining([
        "ClusterHarborConnection /shared-harbor",
        `Secret ${NAMESPACE}/harbor-credentials`,
        `Secret ${APPS_NAMESPACE}/example-team-pull`,
        `ServiceAccount ${APPS_NAMESPACE}/default imagePullSecrets example-team-pull`,
      ]),
    );
  });

  test("a spec only Harbor can judge: Degraded with Harbor's reason, Healthy again once reverted", {
    timeout: 180_000,
  }, async () => {
    // The CRD takes any type name; only the Harbor behind the connection knows which it supports.
    const rejected = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborRegistry",
      metadata: { name: "example-odd-type", namespace: NAMESPACE },
      spec: { connectionRef: { name: "harbor" }, type: "quay-io", url: "https://odd.example.com" },
    };
    let started = Date.now();
    revision = await commit("A registry of a type Harbor does not support", { "odd-type.yaml": [rejected] });
    const degraded = await waitApp(
      "Degraded",
      (app) => app.status?.sync?.revision === revision && app.status.health?.status === "Degraded",
      90_000,
    );
    const r = resource(degraded, "HarborRegistry", "example-odd-type");
    say(
      `unsupported registry type: Degraded ${seconds(Date.now() - started)} after the commit: ${r?.health?.message}`,
    );
    expect(r?.health?.status).toBe("Degraded");
    expect(r?.health?.message).toMatch(/^UnsupportedType: .*quay-io/);
    expect(degraded.status?.health?.status).toBe("Degraded");

    started = Date.now();
    revision = await commit("Remove the registry Harbor refuses", { "odd-type.yaml": null });
    await waitApp("Healthy again", settled(revision, "Healthy"), 90_000);
    say(`reverted: Synced + Healthy ${seconds(Date.now() - started)} after the commit`);
  });

  test("a paused resource shows Suspended, with a change made meanwhile too (its dependents Healthy), and Healthy once resumed", {
    timeout: 240_000,
  }, async () => {
    const project = files.get("harbor-project.yaml") as Manifest[];
    const paused: Manifest[] = project.map((m) => ({
      ...m,
      metadata: { ...m.metadata, annotations: { "harborconfig.io/paused": "true" } },
    }));
    let started = Date.now();
    revision = await commit("Pause the project", { "harbor-project.yaml": paused });
    const app = await waitApp("Suspended", settled(revision, "Suspended"), 90_000);
    say(`paused: Suspended ${seconds(Date.now() - started)} after the commit`);
    expect(resource(app, "HarborProject", "example-team")?.health?.status).toBe("Suspended");

    // A change made while paused: still Suspended, saying the change waits for the unpause; what
    // uses the project (its robot, its members, its policies) stays Healthy, so the Application
    // settles instead of Progressing.
    started = Date.now();
    const changed = paused.map((m) => ({ ...m, spec: { ...(m.spec as object), severity: "high" } }));
    revision = await commit("Change the paused project", { "harbor-project.yaml": changed });
    const pending = await waitApp(
      "Suspended with the change pending",
      (a) =>
        settled(revision, "Suspended")(a) &&
        /waits for the unpause/.test(resource(a, "HarborProject", "example-team")?.health?.message ?? ""),
      90_000,
    );
    say(`changed while paused: Suspended ${seconds(Date.now() - started)} after the commit`);
    const others = (pending.status?.resources ?? []).filter(
      (r) => r.health && !(r.kind === "HarborProject" && r.name === "example-team"),
    );
    expect(
      others
        .filter((r) => r.health?.status !== "Healthy")
        .map((r) => `${r.kind} ${r.name}: ${r.health?.status} ${r.health?.message ?? ""}`),
    ).toEqual([]);

    started = Date.now();
    revision = await commit("Resume the project", { "harbor-project.yaml": project });
    await waitApp("Healthy again", settled(revision, "Healthy"), 90_000);
    say(`resumed: Synced + Healthy ${seconds(Date.now() - started)} after the commit`);
  });

  test("a robot whose project is missing keeps no later sync waiting", { timeout: 120_000 }, async () => {
    // Its wait never ends on its own (DependencyNotReady). Sync waves only wait for the health of
    // a wave that has a later one; everything but the connection is in the last wave.
    const robot = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborRobot",
      metadata: { name: "example-orphan-pull", namespace: NAMESPACE },
      spec: {
        connectionRef: { name: "harbor" },
        projectRef: { name: "example-no-such-project" },
        permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
      },
    };
    let started = Date.now();
    revision = await commit("A robot for a project that does not exist", { "orphan-robot.yaml": [robot] });
    const waiting = await waitApp("the sync to finish", settled(revision, "Progressing"), 60_000);
    say(
      `robot without its project: sync finished ${seconds(Date.now() - started)} after the commit, app Progressing`,
    );
    expect(resource(waiting, "HarborRobot", "example-orphan-pull")?.health?.status).toBe("Progressing");

    started = Date.now();
    revision = await commit("Remove the robot without a project", { "orphan-robot.yaml": null });
    await waitApp("Healthy again", settled(revision, "Healthy"), 60_000);
    say(`the next commit: Synced + Healthy ${seconds(Date.now() - started)} after it`);
  });

  test("selfHeal: a change made with kubectl is undone, in the cluster and in Harbor", {
    timeout: 120_000,
  }, async () => {
    const k = admin.inNamespace(NAMESPACE);
    const started = Date.now();
    await k.run(["patch", "harborproject", "example-team", "--type=merge", "-p", '{"spec":{"public":true}}']);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const p = await k.get<{ spec: { public?: boolean } }>("harborproject", "example-team");
      if (p.spec.public === false) break;
      if (Date.now() > deadline) throw new Error("Argo CD did not undo the change within 60 s");
      await sleep(100);
    }
    say(`selfHeal: spec.public back to false ${seconds(Date.now() - started)} after the kubectl patch`);
    await waitApp("Synced + Healthy", settled(revision, "Healthy"), 60_000);
    const project = (await h.admin.projects.list()).find((p) => p.name === "example-team");
    expect(project?.metadata?.public).toBe("false");
  });

  test("server-side apply: no OutOfSync in 2 minutes of comparisons", { timeout: 240_000 }, async () => {
    const app = await getApp();
    expect(app.spec.syncPolicy?.syncOptions).toContain("ServerSideApply=true");
    // Argo CD compares on its own only every timeout.reconciliation (2 min + jitter) or when a
    // resource's health changes: refreshes every 10 s, a hard one among them, make it compare often.
    const started = Date.now();
    const seen = new Set<string>();
    const outOfSync: string[] = [];
    let refreshes = 0;
    while (Date.now() - started < 120_000) {
      if (Date.now() - started >= refreshes * 10_000) {
        const level = refreshes === 3 ? "hard" : "normal";
        await argoKubectl().run([
          "annotate",
          "application",
          APP,
          "--overwrite",
          `argocd.argoproj.io/refresh=${level}`,
        ]);
        refreshes++;
      }
      const now = await getApp();
      if (now.status?.reconciledAt) seen.add(now.status.reconciledAt);
      if (now.status?.sync?.status !== "Synced") {
        const which = (now.status?.resources ?? [])
          .filter((r) => r.status !== "Synced")
          .map((r) => `${r.kind}/${r.name}`);
        outOfSync.push(`${seconds(Date.now() - started)}: ${now.status?.sync?.status} ${which.join(", ")}`);
      }
      await sleep(250);
    }
    say(`server-side apply: ${seen.size} comparisons in 2 min, ${outOfSync.length} samples not Synced`);
    expect(outOfSync).toEqual([]);
    expect(seen.size).toBeGreaterThanOrEqual(6);
  });

  test("client-side apply works too, but copies the credentials into an annotation; one sync undoes that", {
    timeout: 180_000,
  }, async () => {
    // The shipped Application without ServerSideApply=true, and a change that makes Argo CD apply
    // the credentials Secret.
    const options = JSON.stringify([
      { op: "replace", path: "/spec/syncPolicy/syncOptions", value: ["CreateNamespace=true"] },
    ]);
    await argoKubectl().run(["patch", "application", APP, "--type=json", "-p", options]);
    const connection = files.get("harbor-connection.yaml") as Manifest[];
    const labelled = connection.map((m) =>
      m.kind === "Secret"
        ? {
            ...m,
            metadata: { ...m.metadata, labels: { ...m.metadata.labels, team: "examples" } },
          }
        : m,
    );
    let started = Date.now();
    revision = await commit("Label the Harbor credentials", { "harbor-connection.yaml": labelled });
    await waitApp("Synced + Healthy with client-side apply", settled(revision, "Healthy"), 60_000);
    say(`client-side apply: Synced + Healthy ${seconds(Date.now() - started)} after the commit`);
    expect((await credentials()).metadata.labels?.team).toBe("examples");
    const password = h.emulator.adminPassword;
    expect((await credentials()).metadata.annotations?.[LAST_APPLIED]).toContain(`"password":"${password}"`);
    // Still Synced after comparisons (each refresh is one).
    for (let i = 0; i < 3; i++) {
      await refresh();
      // Argo CD removes the annotation once it has compared (reconciledAt has whole seconds only).
      const after = await waitApp(
        "a comparison",
        (app) => app.metadata.annotations?.["argocd.argoproj.io/refresh"] === undefined,
        30_000,
      );
      expect(after.status?.sync?.status).toBe("Synced");
      await sleep(1000);
    }

    // Back to the shipped Application. Argo CD moves a resource to server-side apply (and drops
    // the annotation) when it next applies it; until then, a field removed from Git stays and the
    // Application shows Synced. A sync of the whole Application (`argocd app sync`, which sets
    // .operation as below) moves them all at once.
    await argoKubectl().apply(application());
    const requested = Date.now();
    const operation = {
      operation: {
        initiatedBy: { username: "platform" },
        sync: { revision, prune: true, syncOptions: ["CreateNamespace=true", "ServerSideApply=true"] },
      },
    };
    await argoKubectl().run(["patch", "application", APP, "--type=merge", "-p", JSON.stringify(operation)]);
    await waitApp(
      "the requested sync",
      (app) =>
        settled(revision, "Healthy")(app) &&
        Date.parse(app.status?.operationState?.startedAt ?? "") >= Math.floor(requested / 1000) * 1000,
      60_000,
    );
    expect((await credentials()).metadata.annotations?.[LAST_APPLIED]).toBeUndefined();

    started = Date.now();
    revision = await commit("Unlabel the Harbor credentials", { "harbor-connection.yaml": connection });
    await waitApp("Synced + Healthy with server-side apply again", settled(revision, "Healthy"), 60_000);
    expect((await credentials()).metadata.labels?.team).toBeUndefined();
  });

  test("one file deleted from Git: its resources are pruned, in Harbor too", {
    timeout: 120_000,
  }, async () => {
    const k = admin.inNamespace(NAMESPACE);
    const project = (await h.admin.projects.list()).find((p) => p.name === "example-team");
    const projectRef = project?.project_id as number;
    expect(await h.admin.webhooks.listPolicies(projectRef)).toHaveLength(1);

    const started = Date.now();
    revision = await commit("Stop telling CI about example-team", { "harbor-webhook-policy.yaml": null });
    await waitApp("Synced + Healthy after the prune", settled(revision, "Healthy"), 60_000);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const policy = await k.tryRun(["get", "harborwebhookpolicy", "example-team-events"]);
      const secret = await k.tryRun(["get", "secret", "example-team-webhook"]);
      const inHarbor = await h.admin.webhooks.listPolicies(projectRef);
      if (policy.code !== 0 && secret.code !== 0 && inHarbor.length === 0) break;
      if (Date.now() > deadline) throw new Error("the webhook policy or its Secret is still there");
      await sleep(250);
    }
    say(
      `one file pruned: gone from the cluster and Harbor ${seconds(Date.now() - started)} after the commit`,
    );
    expect(await leftInHarbor()).toContain("project example-team");
  });

  test("the whole folder deleted from Git: nothing left in Harbor or in any namespace within 30 s", {
    timeout: 180_000,
  }, async () => {
    expect(await leftInCluster()).not.toEqual([]);
    const committed = Date.now();
    revision = await commit(
      "Remove the examples' Harbor configuration",
      Object.fromEntries([...files.keys()].map((file) => [file, null])),
    );

    // Until nothing of the examples is left anywhere and Argo CD has finished the sync.
    let left: string[] = [];
    let empty: number | undefined;
    let app: Application | undefined;
    const deadline = Date.now() + 90_000;
    for (;;) {
      left = [...(await leftInHarbor()), ...(await leftInCluster())];
      if (left.length === 0) empty ??= Date.now();
      else empty = undefined;
      app = await getApp();
      if (empty !== undefined && settled(revision, "Healthy")(app)) break;
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    const op = app?.status?.operationState;
    // The sync that removes the folder starts when Argo CD sees the commit: its startedAt (whole
    // seconds, Argo CD's clock, which is this machine's).
    const syncStarted = Date.parse(op?.startedAt ?? "");
    say(
      `whole folder pruned: nothing left in Harbor or the cluster ${empty === undefined ? "never" : seconds(empty - syncStarted)} ` +
        `after the sync started (${empty === undefined ? "-" : seconds(empty - committed)} after the commit; ` +
        `sync ${op?.startedAt} → ${op?.finishedAt}, ${op?.phase}: ${op?.message})`,
    );
    expect(left).toEqual([]);
    expect(app && settled(revision, "Healthy")(app), JSON.stringify(app?.status)).toBe(true);
    expect(op?.syncResult?.revision).toBe(revision);
    expect((empty as number) - syncStarted).toBeLessThanOrEqual(30_000);
    expect(app?.status?.resources ?? []).toEqual([]);
  });
});
