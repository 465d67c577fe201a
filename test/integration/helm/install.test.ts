// helm install, upgrade and uninstall of the chart in deploy/helm/ into a real control plane of this
// file's own (the chart installs the CRDs, which the cluster project's control plane has already).
// No kubelet runs, so the operator's pod never starts: what is checked is what Helm creates,
// changes and removes, as a user would see it with kubectl.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { type ControlPlane, startControlPlane } from "../../env/controlplane/launcher.ts";
import { prepareHelm } from "../../env/helm/binaries.ts";
import { type Helm, helm as helmAt } from "../../env/helm/helm.ts";
import { clusterApi } from "../../env/kube-api.ts";
import { type Kubectl, type KubeObject, kubectl } from "../../env/kubectl.ts";
import { project } from "../../env/resources.ts";
import { until } from "../../env/until.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const chartDir = join(root, "deploy", "helm", "harbor-config-operator");
const NAMESPACE = "harbor-config-operator";
const RELEASE = "harbor-config-operator";
/** The kind that the "earlier" chart of the upgrade test lacks. */
const NEW_KIND_CRD = "harborwebhookpolicies.harborconfig.io";

const log = (line: string) => process.stderr.write(`[helm] ${line}\n`);
let controlPlane: ControlPlane | undefined;
let admin: Kubectl;
let helm: Helm;
let scratch = "";
let earlierChart = "";

beforeAll(async () => {
  const binary = await prepareHelm(log);
  controlPlane = await startControlPlane({ log });
  admin = kubectl(controlPlane.kubeconfigPath, controlPlane.binaries.kubectl);
  helm = helmAt(binary, controlPlane.kubeconfigPath);
  scratch = mkdtempSync(join(tmpdir(), "hco-helm-install-"));
  // The chart as an earlier release of it would be: one kind fewer, and a CRD without a short name.
  earlierChart = join(scratch, "harbor-config-operator");
  cpSync(chartDir, earlierChart, { recursive: true });
  rmSync(join(earlierChart, "templates", "crds", `harborconfig.io_${NEW_KIND_CRD.split(".")[0]}.yaml`));
  const projects = join(earlierChart, "templates", "crds", "harborconfig.io_harborprojects.yaml");
  const text = readFileSync(projects, "utf8");
  expect(text).toContain("    shortNames:\n      - hproj\n");
  writeFileSync(projects, text.replace("    shortNames:\n      - hproj\n", ""));
  // The namespace as the README creates it: with its Pod Security labels.
  await admin.run(["apply", "-f", join(root, "deploy", "namespace.yaml")]);
  await admin.run(["create", "namespace", "apps"]);
});

afterAll(async () => {
  helm?.close();
  await controlPlane?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const documents = (text: string): KubeObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);

/** What the chart renders with these arguments: what an install with them must create. */
async function rendered(chart: string, args: string[] = [], release = RELEASE, namespace = NAMESPACE) {
  return documents(await helm.run(["template", release, chart, "--namespace", namespace, ...args]));
}

/** kubectl's name for an object's resource, e.g. role.rbac.authorization.k8s.io. */
function resource(o: KubeObject): string {
  const group = o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "";
  return group ? `${o.kind.toLowerCase()}.${group}` : o.kind.toLowerCase();
}

/** The object as the cluster has it now, or undefined (read over the API: no kubectl per object). */
const live = <T = KubeObject>(o: KubeObject): Promise<T | undefined> =>
  clusterApi(admin.kubeconfigPath).find<T>(resource(o), o.metadata.namespace ?? "default", o.metadata.name);

/** Resolves once the CRD serves its kind (what `kubectl wait --for=condition=Established` waits for). */
const established = (name: string) =>
  clusterApi(admin.kubeconfigPath).waitFor<{
    status?: { conditions?: Array<{ type: string; status: string }> };
  }>(
    "customresourcedefinition",
    undefined,
    name,
    (crd) => crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true,
  );

const names = (objects: KubeObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();

async function missing(objects: KubeObject[]): Promise<string[]> {
  const out: string[] = [];
  for (const o of objects) if ((await live(o)) === undefined) out.push(`${o.kind}/${o.metadata.name}`);
  return out.sort();
}

async function releases(
  namespace: string,
): Promise<Array<{ name: string; status: string; revision: string }>> {
  return JSON.parse(await helm.run(["list", "--namespace", namespace, "--output", "json"]));
}

const crdsOf = (objects: KubeObject[]) => objects.filter((o) => o.kind === "CustomResourceDefinition");
const withoutCrds = (objects: KubeObject[]) => objects.filter((o) => o.kind !== "CustomResourceDefinition");

interface LiveDeployment {
  spec: {
    replicas: number;
    template: {
      spec: { containers: Array<{ args: string[]; env: Array<{ name: string; value?: string }> }> };
    };
  };
}

describe("helm install, upgrade and uninstall", () => {
  test("install creates every object the chart renders, CRDs established", async () => {
    const objects = await rendered(earlierChart);
    const r = await helm.tryRun(["install", RELEASE, earlierChart, "--namespace", NAMESPACE]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("STATUS: deployed");
    expect(await missing(objects)).toEqual([]);
    expect(await releases(NAMESPACE)).toMatchObject([{ name: RELEASE, status: "deployed", revision: "1" }]);
    for (const crd of crdsOf(objects)) await established(crd.metadata.name);
    // The server holds the Deployment as rendered (plus the defaults it fills in).
    const deployment = objects.find((o) => o.kind === "Deployment") as KubeObject;
    expect((await live(deployment))?.spec).toMatchObject(deployment.spec as object);
    // A resource of ours, to see that upgrades and uninstalls leave it alone.
    await admin.apply(project("team", {}, { namespace: "apps" }));
  });

  test("upgrade brings a new kind, a changed CRD and changed values", async () => {
    expect(await admin.tryRun(["get", "crd", NEW_KIND_CRD])).toMatchObject({ code: 1 });
    expect((await admin.tryRun(["get", "hproj", "-n", "apps"])).code).toBe(1);
    const values = [
      "--set",
      "replicaCount=2",
      "--set",
      "podDisruptionBudget.enabled=true",
      "--set",
      "logLevel=debug",
      "--set",
      "resources.limits.memory=1Gi",
    ];
    const objects = await rendered(chartDir, values);
    const r = await helm.tryRun(["upgrade", RELEASE, chartDir, "--namespace", NAMESPACE, ...values]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(await missing(objects)).toEqual([]);
    await established(NEW_KIND_CRD);
    // The changed CRD: the short name it gained works, once the apiserver's discovery has it (its
    // CRD stays Established throughout, so that says nothing about the new name).
    const byShortName = await until("the short name hproj to be served", async () => {
      try {
        return await admin.run(["get", "hproj", "-n", "apps", "-o", "name"]);
      } catch {
        return undefined;
      }
    });
    expect(byShortName).toBe("harborproject.harborconfig.io/team\n");
    const deployment = await live<LiveDeployment>(objects.find((o) => o.kind === "Deployment") as KubeObject);
    expect(deployment?.spec.replicas).toBe(2);
    const container = deployment?.spec.template.spec.containers[0];
    expect(container?.args).toContain("--log-level=debug");
    expect(container?.env.find((e) => e.name === "NODE_OPTIONS")?.value).toBe(
      "--max-old-space-size=384 --max-semi-space-size=2",
    );
    expect(names(objects)).toContain(`PodDisruptionBudget/${RELEASE}`);
    expect(await releases(NAMESPACE)).toMatchObject([{ name: RELEASE, status: "deployed", revision: "2" }]);
  });

  test("upgrade back to the defaults removes what they leave out", async () => {
    const before = await rendered(chartDir, ["--set", "podDisruptionBudget.enabled=true"]);
    const objects = await rendered(chartDir);
    await helm.run(["upgrade", RELEASE, chartDir, "--namespace", NAMESPACE, "--reset-values"]);
    expect(await missing(objects)).toEqual([]);
    const pdb = before.find((o) => o.kind === "PodDisruptionBudget") as KubeObject;
    expect(await live(pdb)).toBeUndefined();
    const deployment = objects.find((o) => o.kind === "Deployment") as KubeObject;
    expect((await live(deployment))?.spec).toMatchObject(deployment.spec as object);
  });

  test("uninstall removes the operator's objects and keeps the CRDs and the resources", async () => {
    const objects = await rendered(chartDir);
    const r = await helm.run(["uninstall", RELEASE, "--namespace", NAMESPACE, "--wait"]);
    expect(r).toContain("These resources were kept due to the resource policy");
    expect(await missing(withoutCrds(objects))).toEqual(names(withoutCrds(objects)));
    expect(await missing(crdsOf(objects))).toEqual([]);
    expect(await releases(NAMESPACE)).toEqual([]);
    expect(await admin.run(["get", "harborproject", "team", "-n", "apps", "-o", "name"])).toContain("team");
    // The namespace is not the release's.
    expect(await admin.run(["get", "namespace", NAMESPACE, "-o", "name"])).toBe(`namespace/${NAMESPACE}\n`);
  });

  test("installing again takes the kept CRDs back into the release", async () => {
    const objects = await rendered(chartDir);
    await helm.run(["install", RELEASE, chartDir, "--namespace", NAMESPACE]);
    expect(await missing(objects)).toEqual([]);
    for (const crd of crdsOf(objects)) {
      expect((await live(crd))?.metadata.annotations).toMatchObject({
        "meta.helm.sh/release-name": RELEASE,
        "meta.helm.sh/release-namespace": NAMESPACE,
        "helm.sh/resource-policy": "keep",
      });
    }
  });

  test("a second release, a shard without CRDs, installs next to the first and goes alone", async () => {
    const shard = ["--set", "crds.install=false", "--set", "labelSelector=shard=b"];
    await admin.run(["create", "namespace", "shard-b"]);
    const first = await rendered(chartDir);
    const objects = await rendered(chartDir, shard, "shard-b", "shard-b");
    expect(crdsOf(objects)).toEqual([]);
    await helm.run(["install", "shard-b", chartDir, "--namespace", "shard-b", ...shard]);
    expect(await missing(objects)).toEqual([]);
    expect(await missing(first)).toEqual([]);
    await helm.run(["uninstall", "shard-b", "--namespace", "shard-b", "--wait"]);
    expect(await missing(objects)).toEqual(names(objects));
    expect(await missing(first)).toEqual([]);
  });

  test("with crds.keep off, uninstall deletes the CRDs and the resources with them", async () => {
    const objects = await rendered(chartDir, ["--set", "crds.keep=false"]);
    await helm.run(["upgrade", RELEASE, chartDir, "--namespace", NAMESPACE, "--set", "crds.keep=false"]);
    for (const crd of crdsOf(objects))
      expect((await live(crd))?.metadata.annotations).not.toHaveProperty("helm.sh/resource-policy");
    // Not --wait: the project got the operator's finalizer at admission (the chart's policy, on
    // this 1.36 cluster), and with no operator running here it is taken off as a user would, so
    // that the CRDs' deletion can delete the resource.
    const r = await helm.run(["uninstall", RELEASE, "--namespace", NAMESPACE]);
    expect(r).not.toContain("kept due to the resource policy");
    await until("the project to be deleted with its CRD", async () => {
      const project = await clusterApi(admin.kubeconfigPath).find<KubeObject>(
        "harborproject",
        "apps",
        "team",
      );
      if (!project) return true;
      if (project.metadata.deletionTimestamp && project.metadata.finalizers)
        await admin.tryRun([
          "patch",
          "harborproject",
          "team",
          "-n",
          "apps",
          "--type=merge",
          "-p",
          '{"metadata":{"finalizers":null}}',
        ]);
      return undefined;
    });
    for (const crd of crdsOf(objects))
      await clusterApi(admin.kubeconfigPath).waitGone(
        "customresourcedefinition",
        undefined,
        crd.metadata.name,
      );
    expect(await missing(objects)).toEqual(names(objects));
    // kubectl words it by what its discovery cache still holds; either way the type is gone.
    expect((await admin.tryRun(["get", "harborproject", "-n", "apps"])).stderr).toMatch(
      /the server doesn't have a resource type|the server could not find the requested resource/,
    );
  });
});
