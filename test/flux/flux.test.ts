// A real Flux kustomize-controller (built from its Go modules) applying deploy/examples/ against a
// real control plane, the operator and the Harbor emulator, as a platform team would set it up: one
// Kustomization for the connections, one for everything else that dependsOn it, both with
// `wait: true` and `prune: true`. The artifact each revision would come from is packed and served
// on loopback (test/env/flux/artifacts.ts) in place of source-controller.
//
// What Flux shows: Ready only once every resource is Ready; a resource that cannot become Ready
// fails the Kustomization with that resource named; a removed file prunes the resource and its
// Harbor object; a paused resource with a pending change; and deleting the Kustomizations removes
// everything, connections included. The steps build on each other; timings print as `[flux] …`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { isHarborError } from "../../src/harbor/errors.ts";
import { type ControlPlane, startControlPlane } from "../env/controlplane/launcher.ts";
import {
  addExampleAdapters,
  exampleFiles,
  exampleResources,
  type Manifest,
  OPERATOR_ENV,
  operatorNamespace,
  passExampleGcRun,
  webhooksOnLoopback,
} from "../env/examples.ts";
import { type ArtifactSource, startArtifactSource } from "../env/flux/artifacts.ts";
import { FLUX_NAMESPACE, type Flux, startFlux } from "../env/flux/launcher.ts";
import { useEmulator } from "../env/harbor.ts";
import { type Kubectl, kubectl } from "../env/kubectl.ts";
import { type OperatorProcess, spawnOperator } from "../env/operator.ts";
import { until } from "../env/until.ts";

const root = join(import.meta.dirname, "..", "..");
const say = (line: string) => process.stderr.write(`[flux] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const NAMESPACE = "harbor-examples";
/** The files of the connections' Kustomization; every other example file is the resources'. */
const CONNECTION_FILES = ["namespaces.yaml", "harbor-connection.yaml", "cluster-harbor-connection.yaml"];

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Kustomization {
  metadata: { generation?: number };
  status?: {
    conditions?: Condition[];
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    observedGeneration?: number;
  };
}
interface Resource {
  kind: string;
  metadata: { name: string; namespace?: string; generation?: number };
  status?: { conditions?: Condition[]; observedGeneration?: number };
}

const h = useEmulator();
let cp: ControlPlane;
let admin: Kubectl;
let operator: OperatorProcess;
let flux: Flux;
let source: ArtifactSource;
let repo = "";
let files: Map<string, Manifest[]>;

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
  flux = await startFlux({ kubeconfigPath: cp.kubeconfigPath, kubectl: cp.binaries.kubectl, log: say });
  // The operator's namespace exists before the configuration, as deploy/ makes it.
  await admin.apply(operatorNamespace());
  const { emulator } = h;
  addExampleAdapters(emulator.control);
  files = exampleFiles({
    url: emulator.url,
    username: emulator.adminUsername,
    password: emulator.adminPassword,
  });
  webhooksOnLoopback(files);
  repo = mkdtempSync(join(tmpdir(), "hco-flux-repo-"));
  source = await startArtifactSource(admin, { namespace: FLUX_NAMESPACE, name: "platform" });
}, 30 * 60_000);

afterAll(async () => {
  await flux?.stop();
  await operator?.stop();
  await source?.close();
  await cp?.stop();
  if (repo) rmSync(repo, { recursive: true, force: true });
}, 120_000);

/** Writes the repository's two folders (the files given, or the examples'), then packs a revision. */
async function commit(message: string, changes: Record<string, Manifest[] | null> = {}): Promise<string> {
  for (const [file, docs] of Object.entries(changes)) {
    if (docs === null) files.delete(file);
    else files.set(file, docs);
  }
  rmSync(join(repo, "connections"), { recursive: true, force: true });
  rmSync(join(repo, "resources"), { recursive: true, force: true });
  mkdirSync(join(repo, "connections"));
  mkdirSync(join(repo, "resources"));
  for (const [file, docs] of files) {
    const folder = CONNECTION_FILES.includes(file) ? "connections" : "resources";
    writeFileSync(join(repo, folder, file), docs.map((d) => stringify(d)).join("---\n"));
  }
  const revision = await source.commit(repo);
  say(`commit "${message}": ${revision}`);
  return revision;
}

/**
 * The two Kustomizations, from the shipped example (deploy/flux/kustomization-example.yaml, with its
 * health check for every kind): connections first, everything else after them.
 */
function kustomizations(): Manifest[] {
  const example = parse(
    readFileSync(join(root, "deploy", "flux", "kustomization-example.yaml"), "utf8"),
  ) as Manifest & {
    spec: Record<string, unknown>;
  };
  const named = (name: string, spec: Record<string, unknown>): Manifest => ({
    ...example,
    metadata: { name, namespace: FLUX_NAMESPACE },
    // A retry every few seconds and a short timeout: the test waits on them.
    spec: {
      ...example.spec,
      sourceRef: { kind: "GitRepository", name: source.name },
      retryInterval: "5s",
      timeout: "30s",
      ...spec,
    },
  });
  return [
    named("harbor-connections", { path: "./connections" }),
    named("harbor-resources", { path: "./resources", dependsOn: [{ name: "harbor-connections" }] }),
  ];
}

const ready = (o: { status?: { conditions?: Condition[] } }) =>
  o.status?.conditions?.find((c) => c.type === "Ready");

async function kustomization(name: string): Promise<Kustomization> {
  return JSON.parse(await admin.run(["get", "kustomization", name, "-n", FLUX_NAMESPACE, "-o", "json"]));
}

/** Follows a Kustomization until `holds`, recording each Ready reason it shows on the way. */
async function follow(
  name: string,
  what: string,
  holds: (k: Kustomization) => boolean,
  timeoutMs: number,
  seen: string[] = [],
): Promise<Kustomization> {
  let last: Kustomization | undefined;
  return until(
    `Kustomization ${name}: ${what}`,
    async () => {
      const k = await kustomization(name);
      last = k;
      const r = ready(k);
      const shown = r ? `${r.status} ${r.reason}` : "no Ready yet";
      if (seen.at(-1) !== shown) seen.push(shown);
      return holds(k) ? k : undefined;
    },
    timeoutMs,
  ).catch((e: unknown) => {
    throw new Error(
      `${(e as Error).message}; seen: ${seen.join(" → ")}; last Ready: ${JSON.stringify(last && ready(last))}\nkustomize-controller:\n${flux.logTail(40)}`,
    );
  });
}

const appliedReady = (revision: string) => (k: Kustomization) =>
  k.status?.lastAppliedRevision === revision &&
  ready(k)?.status === "True" &&
  k.status?.observedGeneration === k.metadata.generation;

/** Every resource of the examples' kinds in the cluster. */
async function ours(): Promise<Resource[]> {
  const kinds = [...new Set(exampleResources().map((o) => o.kind.toLowerCase()))].join(",");
  return (JSON.parse(await admin.run(["get", kinds, "-A", "-o", "json"])) as { items: Resource[] }).items;
}

describe("Flux with deploy/examples/", () => {
  test("connections first, then the rest; each Kustomization Ready only once every resource it applied is", {
    timeout: 240_000,
  }, async () => {
    const started = Date.now();
    const revision = await commit("Harbor configuration of the examples");
    await admin.apply(kustomizations());
    // Harbor shows a finished GC as running for 25 s more: moved past, as in the other example tests.
    const gcPassed = passExampleGcRun(h.emulator.control);
    const seen: string[] = [];
    const resourcesReady = follow("harbor-resources", "Ready", appliedReady(revision), 180_000, seen);
    await follow("harbor-connections", "Ready", appliedReady(revision), 120_000);
    say(`connections Ready ${seconds(Date.now() - started)} after the Kustomizations were created`);
    await resourcesReady;
    await gcPassed;
    say(`resources Ready ${seconds(Date.now() - started)} after; Ready on the way: ${seen.join(" → ")}`);
    // It waited for its dependency before applying anything.
    expect(seen.some((s) => s.endsWith("DependencyNotReady"))).toBe(true);
    // `wait: true`: Ready means every resource is.
    const resources = await ours();
    expect(resources.length).toBe(exampleResources().length);
    const notReady = resources
      .filter((o) => ready(o)?.status !== "True")
      .map((o) => `${o.kind} ${o.metadata.name}: ${JSON.stringify(o.status?.conditions)}`);
    expect(notReady.join("\n")).toBe("");
  });

  test("a resource that cannot become Ready fails the Kustomization, naming it; removing its file prunes it and its Harbor object", {
    timeout: 240_000,
  }, async () => {
    // The CRD takes any type name; only the Harbor behind the connection knows which it supports.
    const rejected = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborRegistry",
      metadata: { name: "example-odd-type", namespace: NAMESPACE },
      spec: { connectionRef: { name: "harbor" }, type: "quay-io", url: "https://odd.example.com" },
    };
    let started = Date.now();
    let revision = await commit("A registry of a type Harbor does not support", {
      "odd-type.yaml": [rejected],
    });
    const failed = await follow(
      "harbor-resources",
      "health check failed",
      (k) => k.status?.lastAttemptedRevision === revision && ready(k)?.reason === "HealthCheckFailed",
      120_000,
    );
    say(
      `failed ${seconds(Date.now() - started)} after the commit: ${ready(failed)?.reason}: ${ready(failed)?.message}`,
    );
    expect(ready(failed)?.reason).toBe("HealthCheckFailed");
    expect(ready(failed)?.message).toContain("HarborRegistry/harbor-examples/example-odd-type");

    started = Date.now();
    revision = await commit("Remove the registry Harbor refuses", { "odd-type.yaml": null });
    await follow("harbor-resources", "Ready again", appliedReady(revision), 120_000);
    say(`pruned and Ready ${seconds(Date.now() - started)} after the commit`);
    expect(
      (await admin.tryRun(["get", "harborregistry", "example-odd-type", "-n", NAMESPACE])).code,
    ).not.toBe(0);
    // Harbor never created it (it refused the type), and holds the examples' registry still.
    const registries = await h.admin.registries.list();
    expect(registries.map((r) => r.name)).not.toContain("example-odd-type");
  });

  test("a paused resource with a change pending: what Flux shows, and Ready again once resumed", {
    timeout: 300_000,
  }, async () => {
    const project = files.get("harbor-project.yaml") as Manifest[];
    const pausedWithChange: Manifest[] = project.map((m) => ({
      ...m,
      metadata: { ...m.metadata, annotations: { "harborconfig.io/paused": "true" } },
      spec: { ...(m.spec as object), severity: "high" },
    }));
    let started = Date.now();
    let revision = await commit("Pause the project and change it", {
      "harbor-project.yaml": pausedWithChange,
    });
    const waiting = await follow(
      "harbor-resources",
      "the paused change shown",
      (k) => k.status?.lastAttemptedRevision === revision && ready(k)?.reason === "HealthCheckFailed",
      120_000,
    );
    say(
      `paused with a change: ${seconds(Date.now() - started)} after the commit: ${ready(waiting)?.status} ${ready(waiting)?.reason}: ${ready(waiting)?.message}`,
    );
    // kstatus has no "suspended": a resource whose status describes an older generation is in
    // progress, so the health check waits out its timeout.
    expect(ready(waiting)?.status).toBe("False");
    expect(ready(waiting)?.message).toContain("HarborProject/harbor-examples/example-team");
    // What uses the project's Harbor object stays Ready meanwhile.
    const robot = (await ours()).find((o) => o.kind === "HarborRobot");
    expect(robot && ready(robot)?.status).toBe("True");

    started = Date.now();
    revision = await commit("Resume the project", { "harbor-project.yaml": project });
    await follow("harbor-resources", "Ready again", appliedReady(revision), 150_000);
    say(`resumed: Ready ${seconds(Date.now() - started)} after the commit`);
  });

  test("deleting both Kustomizations removes everything, connections included, from the cluster and Harbor", {
    timeout: 240_000,
  }, async () => {
    const started = Date.now();
    await admin.run(
      ["delete", "kustomization", "--all", "-n", FLUX_NAMESPACE, "--wait=true", "--timeout=180s"],
      {
        timeoutMs: 200_000,
      },
    );
    await until(
      "nothing of the examples left in the cluster",
      async () => ((await ours()).length === 0 ? true : undefined),
      60_000,
    );
    say(`everything gone ${seconds(Date.now() - started)} after the delete`);
    const left = await h.admin.projects.get("example-team").then(
      () => "example-team",
      (e: unknown) => (isHarborError(e) && e.status === 404 ? undefined : Promise.reject(e)),
    );
    expect(left).toBeUndefined();
    expect((await admin.tryRun(["get", "namespace", NAMESPACE])).stdout).not.toMatch(/Active/);
  });
});
