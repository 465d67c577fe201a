// kubectl, run the way users run it, against a given kubeconfig (never the machine's own). Tests,
// the demo and the benchmark drive the cluster through it, so what they prove is what a user sees.
// `get` alone reads over the REST API (kube-api.ts): the same JSON as `kubectl get -o json`,
// without a process per look.
import { spawn } from "node:child_process";
import { stringify } from "yaml";
import { budget } from "./budget.ts";
import { clusterApi } from "./kube-api.ts";

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class KubectlError extends Error {
  readonly result: KubectlResult;

  constructor(args: string[], result: KubectlResult) {
    super(
      `kubectl ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`,
    );
    this.name = "KubectlError";
    this.result = result;
  }
}

export interface RunOptions {
  /** Written to kubectl's standard input (for `-f -`). */
  input?: string;
  /** kubectl is killed after this long; the default suits one request. */
  timeoutMs?: number;
}

/** The parts of any Kubernetes object that tests look at. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface Kubectl {
  readonly kubeconfigPath: string;
  /** The namespace that commands default to (kubectl's `-n`), if bound. */
  readonly namespace: string | undefined;
  /** The same kubectl with commands defaulting to `namespace`. */
  inNamespace(namespace: string): Kubectl;
  /** Runs kubectl and returns its standard output; rejects with KubectlError when it fails. */
  run(args: string[], opts?: RunOptions): Promise<string>;
  /** Runs kubectl and returns how it went, for tests that expect it to fail. */
  tryRun(args: string[], opts?: RunOptions): Promise<KubectlResult>;
  /** `kubectl apply -f -` of YAML text or of objects. */
  apply(
    manifest: string | object | object[],
    opts?: { serverSide?: boolean; timeoutMs?: number },
  ): Promise<string>;
  /**
   * What `kubectl get -o json` shows of one object (with a name) or a list (without), read over the
   * REST API with the same credentials; a missing object rejects with KubeError (kind notFound).
   */
  get<T = KubeObject>(resource: string, name?: string): Promise<T>;
  /** `kubectl wait --for=<condition>`, e.g. `condition=Ready`, `delete`, `jsonpath={.status.x}=y`. */
  wait(resource: string, name: string, condition: string, timeoutMs?: number): Promise<string>;
  /** `kubectl delete`, not waiting for finalizers unless asked. */
  delete(resource: string, name: string, opts?: { wait?: boolean }): Promise<string>;
}

const defaultTimeoutMs = budget.requestMs;

/** @param command the kubectl binary, e.g. what the test environment found or built. */
export function kubectl(kubeconfigPath: string, command = "kubectl", namespace?: string): Kubectl {
  const baseArgs = ["--kubeconfig", kubeconfigPath, ...(namespace ? ["--namespace", namespace] : [])];
  const tryRun = (args: string[], opts: RunOptions = {}) =>
    execute(command, [...baseArgs, ...args], opts.input, opts.timeoutMs ?? defaultTimeoutMs);
  const run = async (args: string[], opts: RunOptions = {}) => {
    const result = await tryRun(args, opts);
    if (result.code !== 0) throw new KubectlError(args, result);
    return result.stdout;
  };
  return {
    kubeconfigPath,
    namespace,
    inNamespace: (ns) => kubectl(kubeconfigPath, command, ns),
    run,
    tryRun,
    apply: (manifest, opts = {}) =>
      run(["apply", ...(opts.serverSide ? ["--server-side", "--force-conflicts"] : []), "-f", "-"], {
        input: typeof manifest === "string" ? manifest : toYaml(manifest),
        ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      }),
    get: async <T>(resource: string, name?: string) => {
      const api = clusterApi(kubeconfigPath);
      // As kubectl: without -n, the kubeconfig context's namespace, else "default".
      const ns = namespace ?? api.client.contextNamespace ?? "default";
      return (
        name === undefined ? await api.list<T>(resource, ns) : await api.get<T>(resource, ns, name)
      ) as T;
    },
    wait: (resource, name, condition, timeoutMs = defaultTimeoutMs) =>
      run(
        ["wait", `${resource}/${name}`, `--for=${condition}`, `--timeout=${Math.ceil(timeoutMs / 1000)}s`],
        {
          // kubectl reports its own timeout; this one only catches a kubectl that hangs.
          timeoutMs: timeoutMs + 10_000,
        },
      ),
    // Waiting, it waits for the operator (its finalizer): the budget's operator wait, as wait() gets.
    delete: (resource, name, opts = {}) =>
      run(
        ["delete", resource, name, `--wait=${opts.wait ?? false}`],
        opts.wait ? { timeoutMs: budget.operatorMs + budget.requestMs } : {},
      ),
  };
}

function toYaml(manifest: object | object[]): string {
  const docs = Array.isArray(manifest) ? manifest : [manifest];
  return docs.map((doc) => stringify(doc)).join("---\n");
}

function execute(command: string, args: string[], input: string | undefined, timeoutMs: number) {
  return new Promise<KubectlResult>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", (err) => {
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(missing ? new Error(`kubectl not found (${command}): run \`npm run controlplane:build\``) : err);
    });
    child.once("close", (code, signal) => {
      if (signal === "SIGTERM") stderr += `\n(killed after ${timeoutMs} ms)`;
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}
