// The Helm chart in deploy/helm/ against the kustomize base in deploy/, with helm built from its Go
// module: `helm lint` passes, `helm template` with the default values renders exactly what `kubectl
// kustomize deploy/` does (but the Namespace, which Helm users create with the release), and, for a
// cluster that serves MutatingAdmissionPolicy v1, what deploy/ with its finalizer-at-admission
// component does; every value lands where a user expects it. Nothing here needs a cluster;
// install.test.ts installs it.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { prepareBinaries } from "../../env/controlplane/binaries.ts";
import { prepareHelm } from "../../env/helm/binaries.ts";
import { type Helm, helm as helmAt, OFFLINE_PROXY } from "../../env/helm/helm.ts";
import type { KubeObject } from "../../env/kubectl.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const chartDir = join(root, "deploy", "helm", "harbor-config-operator");
const NAMESPACE = "harbor-config-operator";
const RELEASE = "harbor-config-operator";
/** The objects' name (deploy/'s, and the chart's for a release of that name). */
const NAME = "harbor-config-operator";

/** What Helm adds to every object, wherever labels or annotations are: the only normalisation. */
const HELM_KEYS = [
  "helm.sh/chart",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/instance",
  "app.kubernetes.io/version",
  "helm.sh/resource-policy",
];

/** `helm template` as against a cluster that serves MutatingAdmissionPolicy v1 (Kubernetes 1.36+). */
const SERVES_MAP = ["--api-versions", "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy"];

const log = (line: string) => process.stderr.write(`[helm] ${line}\n`);
let helm: Helm;
let kubectlCommand = "kubectl";

beforeAll(async () => {
  // A first run on this machine builds helm here (minutes); `npm test` builds it in a step before.
  helm = helmAt(await prepareHelm(log));
  kubectlCommand = (await prepareBinaries(log)).kubectl;
});

afterAll(() => helm?.close());

const documents = (text: string): KubeObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);

function kustomize(dir: string): KubeObject[] {
  const r = spawnSync(kubectlCommand, ["kustomize", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
  return documents(r.stdout);
}

/**
 * What an overlay next to deploy/ renders with these of its components, as the README's
 * my-install/ (kustomize refuses an overlay inside the base).
 */
function overlay(...components: string[]): KubeObject[] {
  const dir = mkdtempSync(join(tmpdir(), "hco-overlay-"));
  try {
    symlinkSync(join(root, "deploy"), join(dir, "deploy"));
    mkdirSync(join(dir, "my-install"));
    writeFileSync(
      join(dir, "my-install", "kustomization.yaml"),
      stringify({ resources: ["../deploy"], components: components.map((c) => `../deploy/components/${c}`) }),
    );
    return kustomize(join(dir, "my-install"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function template(args: string[] = [], chart = chartDir, release = RELEASE): Promise<KubeObject[]> {
  return documents(await helm.run(["template", release, chart, "--namespace", NAMESPACE, ...args]));
}

/** `helm template` with a values file written from `values`. */
async function withValues(values: object, args: string[] = [], release = RELEASE): Promise<KubeObject[]> {
  const dir = mkdtempSync(join(tmpdir(), "hco-values-"));
  try {
    writeFileSync(join(dir, "values.yaml"), stringify(values));
    return await template(["--values", join(dir, "values.yaml"), ...args], chartDir, release);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** A deep copy without Helm's own labels and annotations (and maps they leave empty). */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (HELM_KEYS.includes(k)) continue;
    const n = normalise(v);
    if ((k === "labels" || k === "annotations") && n && typeof n === "object" && Object.keys(n).length === 0)
      continue;
    out[k] = n;
  }
  return out;
}

interface Comparison {
  onlyKustomize: string[];
  onlyHelm: string[];
  /** Objects in both whose normalised forms differ. */
  differing: string[];
  pairs: Array<{ key: string; kustomize: unknown; helm: unknown }>;
}

/** The kustomize base and the chart's rendering, object by object. */
function compare(fromKustomize: KubeObject[], fromHelm: KubeObject[]): Comparison {
  const k = new Map(fromKustomize.map((o) => [key(o), normalise(o)]));
  const h = new Map(fromHelm.map((o) => [key(o), normalise(o)]));
  const pairs = [...k.keys()]
    .filter((x) => h.has(x))
    .sort()
    .map((x) => ({ key: x, kustomize: k.get(x), helm: h.get(x) }));
  return {
    onlyKustomize: [...k.keys()].filter((x) => !h.has(x)).sort(),
    onlyHelm: [...h.keys()].filter((x) => !k.has(x)).sort(),
    differing: pairs.filter((p) => !isDeepStrictEqual(p.kustomize, p.helm)).map((p) => p.key),
    pairs,
  };
}

interface Container {
  name: string;
  image: string;
  imagePullPolicy: string;
  args: string[];
  env: Array<{ name: string; value?: string }>;
  ports: Array<{ name: string; containerPort: number }>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Deployment extends KubeObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: Record<string, unknown> & { containers: Container[] };
    };
  };
}

const find = <T = KubeObject>(objects: KubeObject[], kind: string): T => {
  const found = objects.filter((o) => o.kind === kind);
  expect(
    found.map((o) => o.metadata.name),
    `one ${kind}`,
  ).toHaveLength(1);
  return found[0] as T;
};
const operator = (objects: KubeObject[]) => {
  const container = find<Deployment>(objects, "Deployment").spec.template.spec.containers[0];
  if (!container) throw new Error("the Deployment has no container");
  return container;
};
const nodeOptions = (objects: KubeObject[]) =>
  operator(objects).env.find((e) => e.name === "NODE_OPTIONS")?.value;

describe("the chart and the kustomize base", () => {
  test("helm lint --strict passes", async () => {
    const out = await helm.run(["lint", "--strict", chartDir]);
    expect(out).toContain("1 chart(s) linted, 0 chart(s) failed");
  });

  test("the default values render exactly what kubectl kustomize deploy/ renders", async () => {
    const c = compare(kustomize(join(root, "deploy")), await template());
    // Helm installs into a namespace that exists (`--create-namespace`, or deploy/namespace.yaml
    // for its Pod Security labels); everything else is in both.
    expect(c.onlyKustomize).toEqual([`Namespace//${NAMESPACE}`]);
    expect(c.onlyHelm).toEqual([]);
    const kinds = new Set(c.pairs.map((p) => p.key.split("/")[0]));
    expect([...kinds].sort()).toEqual(
      [
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "Deployment",
        "Role",
        "RoleBinding",
        "Service",
        "ServiceAccount",
      ].sort(),
    );
    // Every CRD of crds/, from the generated templates.
    const crds = c.pairs.filter((p) => p.key.startsWith("CustomResourceDefinition/"));
    const generated = kustomize(join(root, "crds")).map(
      (o) => `CustomResourceDefinition//${o.metadata.name}`,
    );
    expect(crds.map((p) => p.key)).toEqual(generated.sort());
    for (const p of c.pairs) expect(p.helm, p.key).toEqual(p.kustomize);
  });

  test("on a cluster that serves MutatingAdmissionPolicy, the finalizer policy too, as deploy/components/finalizer-at-admission", async () => {
    const c = compare(overlay("finalizer-at-admission"), await template(SERVES_MAP));
    expect(c.onlyKustomize).toEqual([`Namespace//${NAMESPACE}`]);
    expect(c.onlyHelm).toEqual([]);
    expect(c.pairs.map((p) => p.key)).toEqual(
      expect.arrayContaining([
        `MutatingAdmissionPolicy//${NAME}-finalizer`,
        `MutatingAdmissionPolicyBinding//${NAME}-finalizer`,
      ]),
    );
    for (const p of c.pairs) expect(p.helm, p.key).toEqual(p.kustomize);
  });

  test("the comparison fails when the chart drifts from the base", async () => {
    // A copy of the chart with three drifts: a hand edit of a template, a CRD missing, and a
    // permission dropped from the generated RBAC.
    const dir = mkdtempSync(join(tmpdir(), "hco-chart-"));
    try {
      const copy = join(dir, "harbor-config-operator");
      cpSync(chartDir, copy, { recursive: true });
      const edit = (file: string, from: string, to: string) => {
        const text = readFileSync(join(copy, file), "utf8");
        expect(text).toContain(from);
        writeFileSync(join(copy, file), text.replace(from, to));
      };
      edit("templates/deployment.yaml", "revisionHistoryLimit: 3", "revisionHistoryLimit: 5");
      edit("templates/rbac.yaml", "verbs: [get, list, watch, create, update, patch, delete]", "verbs: [get]");
      rmSync(join(copy, "templates", "crds", "harborconfig.io_harborrobots.yaml"));
      const c = compare(kustomize(join(root, "deploy")), await template([], copy));
      expect(c.onlyKustomize).toEqual([
        "CustomResourceDefinition//harborrobots.harborconfig.io",
        `Namespace//${NAMESPACE}`,
      ]);
      expect(c.differing).toEqual([`ClusterRole//${NAME}`, `Deployment/${NAMESPACE}/${NAME}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Helm's labels are on every object, and the pods are selected by release", async () => {
    const objects = await template();
    for (const o of objects) {
      expect(o.metadata.labels, key(o)).toMatchObject({
        "app.kubernetes.io/name": "harbor-config-operator",
        "app.kubernetes.io/part-of": "harbor-config-operator",
        "app.kubernetes.io/instance": RELEASE,
        "app.kubernetes.io/managed-by": "Helm",
        "helm.sh/chart": expect.stringMatching(/^harbor-config-operator-\d+\.\d+\.\d+/),
      });
    }
    const deployment = find<Deployment>(objects, "Deployment");
    expect(deployment.spec.selector.matchLabels).toEqual({
      "app.kubernetes.io/name": "harbor-config-operator",
      "app.kubernetes.io/component": "operator",
      "app.kubernetes.io/instance": RELEASE,
    });
    expect(deployment.spec.template.metadata.labels).toEqual(deployment.spec.selector.matchLabels);
    const service = find<KubeObject & { spec: { selector: object } }>(objects, "Service");
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });
});

describe("values", () => {
  test("every value lands where a user expects it", async () => {
    const objects = await withValues({
      image: {
        repository: "registry.example.com/platform/harbor-config-operator",
        tag: "0.2.0",
        pullPolicy: "Always",
      },
      imagePullSecrets: [{ name: "operator-pull" }],
      replicaCount: 2,
      resources: { requests: { cpu: "200m", memory: "512Mi" }, limits: { cpu: "2", memory: "1Gi" } },
      watchNamespaces: ["team-a", "team-b"],
      labelSelector: "shard in (a,b)",
      clusterResourceNamespace: "shared-logins",
      copiesWithoutConsent: "remove",
      driftInterval: "10m",
      statusRefreshInterval: "30m",
      logLevel: "debug",
      extraArgs: ["--workers=8"],
      extraEnv: [{ name: "TZ", value: "UTC" }],
      metrics: {
        port: 9090,
        serviceMonitor: {
          enabled: true,
          interval: "30s",
          scrapeTimeout: "10s",
          labels: { release: "prometheus" },
        },
      },
      probes: { port: 9091 },
      podDisruptionBudget: { enabled: true },
      podAnnotations: { "example.com/team": "platform" },
      podLabels: { team: "platform" },
      nodeSelector: { "kubernetes.io/os": "linux" },
      tolerations: [{ key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" }],
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: "kubernetes.io/hostname",
                labelSelector: { matchLabels: { "app.kubernetes.io/name": "harbor-config-operator" } },
              },
            },
          ],
        },
      },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway" },
      ],
      priorityClassName: "platform-critical",
    });
    const deployment = find<Deployment>(objects, "Deployment");
    const pod = deployment.spec.template.spec;
    const container = operator(objects);
    expect(deployment.spec.replicas).toBe(2);
    expect(container.image).toBe("registry.example.com/platform/harbor-config-operator:0.2.0");
    expect(container.imagePullPolicy).toBe("Always");
    expect(pod.imagePullSecrets).toEqual([{ name: "operator-pull" }]);
    expect(container.resources).toEqual({
      requests: { cpu: "200m", memory: "512Mi" },
      limits: { cpu: "2", memory: "1Gi" },
    });
    expect(nodeOptions(objects)).toBe("--max-old-space-size=384 --max-semi-space-size=2");
    expect(container.args).toEqual([
      "--leader-elect=true",
      "--metrics-bind-address=:9090",
      "--health-probe-bind-address=:9091",
      "--namespace=team-a,team-b",
      "--label-selector=shard in (a,b)",
      "--cluster-resource-namespace=shared-logins",
      "--copies-without-consent=remove",
      "--drift-interval=10m",
      "--status-refresh-interval=30m",
      "--log-level=debug",
      "--workers=8",
    ]);
    expect(container.env.map((e) => e.name)).toEqual(["POD_NAME", "POD_NAMESPACE", "NODE_OPTIONS", "TZ"]);
    expect(container.ports).toEqual([
      { name: "metrics", containerPort: 9090, protocol: "TCP" },
      { name: "health", containerPort: 9091, protocol: "TCP" },
    ]);
    expect(deployment.spec.template.metadata.labels).toMatchObject({ team: "platform" });
    expect(deployment.spec.template.metadata.annotations).toEqual({
      "kubectl.kubernetes.io/default-container": "operator",
      "example.com/team": "platform",
    });
    expect(pod.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
    expect(pod.tolerations).toEqual([
      { key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" },
    ]);
    expect(pod.affinity).toHaveProperty("podAntiAffinity");
    expect(pod.topologySpreadConstraints).toHaveLength(1);
    expect(pod.priorityClassName).toBe("platform-critical");

    // The Service carries the metrics port; the ServiceMonitor selects that Service and its port.
    const service = find<KubeObject & { spec: { ports: Array<{ name: string; port: number }> } }>(
      objects,
      "Service",
    );
    expect(service.spec.ports).toEqual([
      { name: "metrics", port: 9090, targetPort: "metrics", protocol: "TCP" },
    ]);
    const monitor = find<
      KubeObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: object[] } }
    >(objects, "ServiceMonitor");
    expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(monitor.metadata.labels).toMatchObject({ release: "prometheus" });
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints).toEqual([
      { port: "metrics", path: "/metrics", interval: "30s", scrapeTimeout: "10s" },
    ]);
    // The PodDisruptionBudget selects the operator's pods.
    const pdb = find<KubeObject & { spec: { selector: { matchLabels: object }; maxUnavailable?: number } }>(
      objects,
      "PodDisruptionBudget",
    );
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(
      (await withValues({ podDisruptionBudget: { enabled: true, minAvailable: 1 } })).find(
        (o) => o.kind === "PodDisruptionBudget",
      )?.spec,
    ).toMatchObject({ minAvailable: 1 });
  });

  test("an image digest wins over the tag", async () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    expect(operator(await withValues({ image: { tag: "0.2.0", digest } })).image).toBe(
      `ghcr.io/harbor-config-operator/harbor-config-operator@${digest}`,
    );
  });

  test("the Node heap follows the memory limit (3/8 of it), unless set", async () => {
    const heap = async (values: object) => nodeOptions(await withValues(values));
    const limit = (memory: string | number) => ({ resources: { limits: { memory } } });
    expect(await heap(limit("512Mi"))).toBe("--max-old-space-size=192 --max-semi-space-size=2");
    expect(await heap(limit("1Gi"))).toBe("--max-old-space-size=384 --max-semi-space-size=2");
    expect(await heap(limit("2048Mi"))).toBe("--max-old-space-size=768 --max-semi-space-size=2");
    // 768 MB is 732 MiB; 600,000,000 bytes 572 MiB.
    expect(await heap(limit("768M"))).toBe("--max-old-space-size=274 --max-semi-space-size=2");
    expect(await heap(limit(600_000_000))).toBe("--max-old-space-size=214 --max-semi-space-size=2");
    expect(await heap({ ...limit("1Gi"), nodeOptions: { maxOldSpaceSize: 600 } })).toBe(
      "--max-old-space-size=600 --max-semi-space-size=2",
    );
    expect(await heap({ nodeOptions: { maxSemiSpaceSize: 8, extra: "--enable-source-maps" } })).toBe(
      "--max-old-space-size=192 --max-semi-space-size=8 --enable-source-maps",
    );
    // Without a memory limit V8 sizes the heap itself.
    expect(nodeOptions(await template(["--set", "resources.limits=null"]))).toBe("--max-semi-space-size=2");
    const bad = await helm.tryRun(["template", RELEASE, chartDir, "--set", "resources.limits.memory=1.5Gb"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(
      'resources.limits.memory "1.5Gb": cannot derive nodeOptions.maxOldSpaceSize',
    );
  });

  test("a second release shards the work without touching the first one's objects", async () => {
    const objects = await withValues({ labelSelector: "shard=b", crds: { install: false } }, [], "shard-b");
    const name = "shard-b-harbor-config-operator";
    expect(objects.filter((o) => o.kind === "CustomResourceDefinition")).toEqual([]);
    for (const o of objects) expect(o.metadata.name, key(o)).toMatch(new RegExp(`^${name}`));
    expect(operator(objects).args).toEqual([
      "--leader-elect=true",
      `--leader-election-id=${name}`,
      "--metrics-bind-address=:8080",
      "--health-probe-bind-address=:8081",
      "--label-selector=shard=b",
    ]);
    // Its Lease is its own, and so are its bindings' subjects.
    const role = find<KubeObject & { rules: Array<{ resourceNames?: string[] }> }>(objects, "Role");
    expect(role.rules.flatMap((r) => r.resourceNames ?? [])).toEqual([name]);
    for (const kind of ["ClusterRoleBinding", "RoleBinding"]) {
      const binding = find<KubeObject & { subjects: object[] }>(objects, kind);
      expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name, namespace: NAMESPACE }]);
    }
    const fullname = await withValues({ fullnameOverride: "hco" });
    expect(fullname.map((o) => o.metadata.name)).toContain("hco-metrics");
  });

  test("with watchNamespaces, Secrets and ServiceAccounts are granted in those namespaces and the release's, not cluster-wide", async () => {
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    type Role = KubeObject & { rules: Rule[] };
    const perNamespace = (r: Rule) =>
      r.resources.includes("secrets") || r.resources.includes("serviceaccounts");
    const operatorRole = (objects: KubeObject[]) =>
      objects.find((o) => o.kind === "ClusterRole" && o.metadata.name === NAME) as Role;
    const roles = (objects: KubeObject[], kind: string) =>
      objects
        .filter((o) => o.kind === kind && o.metadata.name === NAME)
        .map((o) => o.metadata.namespace)
        .sort();
    // Without: cluster-wide, as in deploy/, and no Role but the Lease's.
    const everywhere = await template();
    const moved = operatorRole(everywhere).rules.filter(perNamespace);
    expect(moved.flatMap((r) => r.resources).sort()).toEqual(["secrets", "serviceaccounts"]);
    expect(roles(everywhere, "Role")).toEqual([]);

    const objects = await withValues({ watchNamespaces: ["team-a", "team-b"] });
    const clusterRole = operatorRole(objects);
    expect(clusterRole.rules.filter(perNamespace)).toEqual([]);
    // The rest stays, Namespaces included (copies go to namespaces chosen by labels).
    expect(clusterRole.rules).toEqual(operatorRole(everywhere).rules.filter((r) => !perNamespace(r)));
    expect(roles(objects, "Role")).toEqual(["harbor-config-operator", "team-a", "team-b"]);
    expect(roles(objects, "RoleBinding")).toEqual(["harbor-config-operator", "team-a", "team-b"]);
    for (const o of objects.filter((x) => x.metadata.name === NAME)) {
      if (o.kind === "Role") expect((o as Role).rules, key(o)).toEqual(moved);
      if (o.kind === "RoleBinding")
        expect(o, key(o)).toMatchObject({
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: NAME },
          subjects: [{ kind: "ServiceAccount", name: NAME, namespace: NAMESPACE }],
        });
    }
    // The release's namespace among the watched ones: one Role there.
    expect(roles(await withValues({ watchNamespaces: [NAMESPACE, "team-a"] }), "Role")).toEqual([
      NAMESPACE,
      "team-a",
    ]);
    // Cluster connections' Secrets kept in another namespace: a Role there too ("*": none can be).
    expect(
      roles(
        await withValues({ watchNamespaces: ["team-a"], clusterResourceNamespace: "shared-logins" }),
        "Role",
      ),
    ).toEqual([NAMESPACE, "shared-logins", "team-a"].sort());
    expect(
      roles(await withValues({ watchNamespaces: ["team-a"], clusterResourceNamespace: "*" }), "Role"),
    ).toEqual([NAMESPACE, "team-a"].sort());
  });

  test("deploy/components/namespaced renders what the chart renders with watchNamespaces", async () => {
    // The chart binds its finalizer policy to the watched namespaces; the component leaves that
    // patch to the user (its kustomization says how): compared without the policy.
    const c = compare(
      overlay("namespaced"),
      await withValues({ watchNamespaces: ["team-a"], finalizerAtAdmission: false }),
    );
    expect(c.onlyKustomize).toEqual([`Namespace//${NAMESPACE}`]);
    expect(c.onlyHelm).toEqual([]);
    expect(c.pairs.map((p) => p.key)).toEqual(
      expect.arrayContaining([`Role/team-a/${NAME}`, `RoleBinding/${NAMESPACE}/${NAME}`]),
    );
    for (const p of c.pairs) expect(p.helm, p.key).toEqual(p.kustomize);
  });

  test("the finalizer policy: bound to watchNamespaces, left out with a labelSelector, when turned off, or without the API", async () => {
    const policyNames = (objects: KubeObject[]) =>
      objects.filter((o) => o.kind.startsWith("MutatingAdmissionPolicy")).map((o) => o.kind);
    const bound = await withValues({ watchNamespaces: ["team-a", "team-b"] }, SERVES_MAP);
    expect(policyNames(bound)).toEqual(["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"]);
    const binding = find<KubeObject & { spec: Record<string, unknown> }>(
      bound,
      "MutatingAdmissionPolicyBinding",
    );
    expect(binding.spec).toEqual({
      policyName: `${NAME}-finalizer`,
      matchResources: {
        namespaceSelector: {
          matchExpressions: [
            { key: "kubernetes.io/metadata.name", operator: "In", values: ["team-a", "team-b"] },
          ],
        },
      },
    });
    expect(policyNames(await withValues({ labelSelector: "shard=a" }, SERVES_MAP))).toEqual([]);
    expect(policyNames(await withValues({ finalizerAtAdmission: false }, SERVES_MAP))).toEqual([]);
    // A cluster before Kubernetes 1.36: left out.
    expect(policyNames(await withValues({}))).toEqual([]);
  });

  test("the CRDs are kept on uninstall unless crds.keep is off", async () => {
    const crds = (objects: KubeObject[]) => objects.filter((o) => o.kind === "CustomResourceDefinition");
    const kept = crds(await template());
    expect(kept.length).toBeGreaterThan(0);
    for (const crd of kept) expect(crd.metadata.annotations).toEqual({ "helm.sh/resource-policy": "keep" });
    const notKept = crds(await template(["--set", "crds.keep=false"]));
    expect(notKept).toHaveLength(kept.length);
    for (const crd of notKept) expect(crd.metadata.annotations).toBeUndefined();
  });

  test("values the schema does not allow are refused with their name", async () => {
    for (const [set, message] of [
      ["logLevel=verbose", "logLevel"],
      ["driftInterval=5 minutes", "driftInterval"],
      ["replicas=2", "replicas"],
      ["watchNamespaces[0]=Team_A", "watchNamespaces"],
      ["metrics.port=0", "metrics"],
    ] as const) {
      const r = await helm.tryRun(["template", RELEASE, chartDir, "--set", set]);
      expect(r.code, set).not.toBe(0);
      expect(r.stderr, set).toContain("values don't meet the specifications of the schema");
      expect(r.stderr, set).toContain(message);
    }
  });
});

test("helm reaches nothing outside the machine", async () => {
  const r = await helm.tryRun(["pull", "https://charts.example.com/harbor-config-operator-0.1.0.tgz"]);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`proxyconnect tcp: dial tcp ${new URL(OFFLINE_PROXY).host}`);
});
