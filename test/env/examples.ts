// deploy/examples/, one working example of every kind: as the tests check them, and as the demo and
// the real-Argo CD test apply them, with the connections' URL and credentials (the placeholders a
// user replaces) pointed at a given Harbor.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { API_VERSION } from "../../src/api/common.ts";
import { insecureHttpRefusal } from "../../src/controllers/connection/mapping.ts";
import { GC_STATUS_LAG_MS } from "./emulator/areas/garbage-collection.ts";
import type { Control } from "./emulator/index.ts";
import type { KubeObject } from "./kubectl.ts";
import { untilTrue } from "./until.ts";

export const examplesDir = join(import.meta.dirname, "..", "..", "deploy", "examples");

/**
 * The namespace deploy/ installs the operator in. The examples' ClusterHarborConnection keeps its
 * Secret there (the only namespace the operator reads such a Secret from by default), so an
 * operator started outside a pod stands in for the installed one with OPERATOR_ENV.
 */
export const OPERATOR_NAMESPACE = "harbor-config-operator";
/** The environment the Deployment gives the operator that the examples rely on: its namespace. */
export const OPERATOR_ENV = { POD_NAMESPACE: OPERATOR_NAMESPACE };
/** The operator's Namespace, as deploy/ creates it (the examples do not: they are not the install). */
export const operatorNamespace = (): Manifest => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: OPERATOR_NAMESPACE },
});

export interface HarborLogin {
  url: string;
  username: string;
  password: string;
}

export type Manifest = Record<string, unknown> & {
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
};

/** The example documents file by file (the Kustomization left out), in file-name order; fresh copies. */
function readExamples(): Map<string, Manifest[]> {
  const files = new Map<string, Manifest[]>();
  for (const file of readdirSync(examplesDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    const docs: Manifest[] = [];
    for (const doc of parseAllDocuments(readFileSync(join(examplesDir, file), "utf8"))) {
      const obj = doc.toJSON() as Manifest | null;
      if (obj && typeof obj === "object" && obj.kind && obj.kind !== "Kustomization") docs.push(obj);
    }
    if (docs.length > 0) files.set(file, docs);
  }
  return files;
}

/** Every example object as written, files in name order. */
export function exampleObjects(): KubeObject[] {
  return [...readExamples().values()].flat() as unknown as KubeObject[];
}

/** The examples of the operator's own kinds (the API group's objects). */
export const exampleResources = (): KubeObject[] =>
  exampleObjects().filter((o) => o.apiVersion === API_VERSION);

/** The examples file by file, with the connections and their credentials pointed at `harbor`. */
export function exampleFiles(harbor: HarborLogin): Map<string, Manifest[]> {
  const files = readExamples();
  const all = [...files.values()].flat();
  const credentialSecrets = new Set<string>();
  for (const d of all) {
    if (d.kind === "HarborConnection" || d.kind === "ClusterHarborConnection") {
      const spec = d.spec as {
        url: string;
        credentialsSecretRef?: { name: string };
        allowInsecureHTTP?: boolean;
      };
      spec.url = harbor.url;
      // A plain http:// Harbor named on purpose (the demo's --harbor-url): said so, as its YAML would.
      if (insecureHttpRefusal(spec)) spec.allowInsecureHTTP = true;
      if (spec.credentialsSecretRef) credentialSecrets.add(spec.credentialsSecretRef.name);
    }
  }
  for (const d of all) {
    if (d.kind === "Secret" && credentialSecrets.has(d.metadata.name)) {
      d.stringData = { username: harbor.username, password: harbor.password };
      delete d.data;
    }
  }
  return files;
}

/** The examples' webhook receivers (placeholders) moved to a closed loopback port: nothing goes off the machine. */
export function webhooksOnLoopback(files: Map<string, Manifest[]>): void {
  for (const m of files.get("harbor-webhook-policy.yaml") ?? []) {
    for (const target of (m.spec as { targets?: Array<{ address: string }> } | undefined)?.targets ?? []) {
      target.address = "http://127.0.0.1:9/hooks/harbor";
    }
  }
}

/**
 * Every example in one list, with the operator's Namespace they need: Namespaces first, then
 * Secrets and connections, then what uses them.
 */
export function exampleManifests(harbor: HarborLogin): Manifest[] {
  const order = (k: string) =>
    k === "Namespace" ? 0 : k === "Secret" ? 1 : k.endsWith("HarborConnection") ? 2 : 3;
  return [operatorNamespace(), ...[...exampleFiles(harbor).values()].flat()].sort(
    (a, b) => order(a.kind) - order(b.kind),
  );
}

/**
 * The scanner adapters and P2P providers the examples register, put where the emulator's Harbor
 * finds them: Harbor asks an adapter for its metadata before it registers it (and the operator has
 * Harbor ping a provider before it creates an instance), and in the emulator's world only an adapter
 * or provider a test put there answers. A real Harbor needs the services the examples' URLs name.
 */
export function addExampleAdapters(control: Pick<Control, "scanners" | "preheat">): void {
  for (const o of exampleResources()) {
    const url = (o as { spec?: { url?: unknown } }).spec?.url;
    if (o.kind === "HarborScannerRegistration" && typeof url === "string") control.scanners.addAdapter(url);
    const endpoint = (o as { spec?: { endpoint?: unknown } }).spec?.endpoint;
    if (o.kind === "HarborPreheatInstance" && typeof endpoint === "string")
      control.preheat.addProvider(endpoint);
  }
}

/**
 * Moves the emulator's world clock past the examples' GC run once Harbor has started it. Harbor shows
 * a GC as Running for another 25 s after its job ended (GC_STATUS_LAG_MS), which a test of every
 * example would otherwise wait out in real time; the operator's follow-up of a running GC is tested
 * on its own (test/e2e/gc-run.test.ts).
 */
export async function passExampleGcRun(control: Pick<Control, "gc" | "clock">): Promise<void> {
  await untilTrue("the example GC run started in Harbor", () => control.gc.runs().length > 0);
  control.clock.advance(GC_STATUS_LAG_MS + 5_000);
}
