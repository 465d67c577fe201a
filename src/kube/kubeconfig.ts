// Where the apiserver is and how to authenticate to it, read without loading
// @kubernetes/client-node: that package loads its whole generated API (about 80 MiB of the
// operator's resident memory) even when only its kubeconfig code is used. The common cases are read
// here — a kubeconfig file (or a KUBECONFIG list, merged first-wins as kubectl does) with a bearer
// token, a token file or a client certificate, and the in-cluster service account (its token
// re-read every minute, as it rotates). Credentials this module does not implement (exec plugins,
// auth providers) are handed to client-node, imported only then.
import { existsSync, readFileSync } from "node:fs";
import type https from "node:https";
import { createRequire } from "node:module";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";

const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
const TOKEN_REREAD_MS = 60_000;

export interface KubeAuth {
  /** The apiserver's URL. */
  readonly server: URL;
  /** The namespace the kubeconfig's context names (kubectl's default namespace), if any. */
  readonly namespace?: string;
  /** Adds TLS settings and credentials to a request's options. */
  apply(opts: https.RequestOptions): Promise<void>;
}

interface NamedEntry<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}
type Fields = Record<string, unknown>;

interface KubeconfigFile {
  path: string;
  doc: {
    "current-context"?: string;
    clusters?: Array<NamedEntry<Fields>>;
    users?: Array<NamedEntry<Fields>>;
    contexts?: Array<NamedEntry<Fields>>;
  };
}

/** Where the default configuration comes from, as client-node's loadFromDefault looks. */
export interface KubeconfigHost {
  env: Readonly<Record<string, string | undefined>>;
  home: string | undefined;
  serviceAccountDir: string;
}

const defaultHost = (): KubeconfigHost => ({
  env: process.env,
  home: homedir() || undefined,
  serviceAccountDir: SERVICE_ACCOUNT,
});

/**
 * The apiserver and credentials of a kubeconfig file, or by default: the files of $KUBECONFIG,
 * else ~/.kube/config, else the in-cluster service account, else http://localhost:8080. `context`
 * picks a context of the kubeconfig instead of its current one.
 */
export function loadKubeAuth(
  kubeconfig?: string,
  host: KubeconfigHost = defaultHost(),
  context?: string,
): KubeAuth {
  if (kubeconfig) return fromFiles([kubeconfig], { kubeconfig, context });
  const list = (host.env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  if (list.length) return fromFiles(list, { context });
  const home = host.home ? join(host.home, ".kube", "config") : undefined;
  if (home && existsSync(home)) return fromFiles([home], { context });
  if (context !== undefined) throw new Error(`no kubeconfig was found to take the context "${context}" from`);
  const tokenPath = join(host.serviceAccountDir, "token");
  if (existsSync(tokenPath)) return inCluster(host, tokenPath);
  return { server: new URL("http://localhost:8080"), apply: async () => {} };
}

function inCluster(host: KubeconfigHost, tokenPath: string): KubeAuth {
  const name = host.env.KUBERNETES_SERVICE_HOST ?? "";
  const port = host.env.KUBERNETES_SERVICE_PORT ?? "";
  const scheme = ["80", "8080", "8001"].includes(port) ? "http" : "https";
  const server = new URL(`${scheme}://${isIPv6(name) ? `[${name}]` : name}:${port}`);
  const ca = readFileSync(join(host.serviceAccountDir, "ca.crt"));
  const token = rereadToken(tokenPath);
  return {
    server,
    apply: async (opts) => {
      opts.ca = ca;
      opts.headers = { ...opts.headers, authorization: `Bearer ${token()}` };
    },
  };
}

/** A token file's content, read again once a minute (a projected token rotates). */
function rereadToken(path: string): () => string {
  let value = "";
  let readAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (performance.now() - readAt > TOKEN_REREAD_MS) {
      value = readFileSync(path, "utf8").trim();
      readAt = performance.now();
    }
    return value;
  };
}

function fromFiles(paths: readonly string[], source: { kubeconfig?: string; context?: string }): KubeAuth {
  const files: KubeconfigFile[] = paths.map((path) => ({
    path,
    doc: (parseYaml(readFileSync(path, "utf8")) ?? {}) as KubeconfigFile["doc"],
  }));
  const currentContext = source.context ?? files.map((f) => f.doc["current-context"]).find((c) => c);
  if (!currentContext) throw new Error(`kubeconfig ${paths.join(delimiter)} has no current context`);
  const context = find(files, "contexts", "context", currentContext);
  if (!context) {
    throw new Error(
      source.context === undefined
        ? `kubeconfig has no context named ${currentContext}`
        : `the kubeconfig has no context "${source.context}"`,
    );
  }
  const namespace =
    typeof context.fields.namespace === "string" && context.fields.namespace
      ? context.fields.namespace
      : undefined;
  const clusterName = String(context.fields.cluster ?? "");
  const cluster = find(files, "clusters", "cluster", clusterName);
  if (!cluster || typeof cluster.fields.server !== "string") {
    throw new Error("kubeconfig has no current cluster");
  }
  const userName = context.fields.user === undefined ? undefined : String(context.fields.user);
  const user = userName === undefined ? undefined : find(files, "users", "user", userName);
  const server = new URL(cluster.fields.server.replace(/\/$/, ""));
  const c = cluster.fields;
  const u = user?.fields ?? {};

  // Plugins and auth providers are client-node's: loaded the first time a request needs them.
  if (u.exec || u["auth-provider"]) {
    let delegate: Promise<(opts: https.RequestOptions) => Promise<void>> | undefined;
    return {
      server,
      namespace,
      apply: async (opts) => {
        delegate ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
          const kc = new KubeConfig();
          if (source.kubeconfig) kc.loadFromFile(source.kubeconfig);
          else kc.loadFromDefault();
          kc.setCurrentContext(currentContext);
          return (o) => kc.applyToHTTPSOptions(o);
        });
        await (await delegate)(opts);
      },
    };
  }

  // Without a user, client-node applies nothing at all (not even the cluster's CA).
  if (!user) return { server, namespace, apply: async () => {} };
  const ca = bytes(cluster.dir, c["certificate-authority"], c["certificate-authority-data"]);
  const cert = bytes(user.dir, u["client-certificate"], u["client-certificate-data"]);
  const key = bytes(user.dir, u["client-key"], u["client-key-data"]);
  const tokenFile = typeof u["token-file"] === "string" ? absolute(user.dir, u["token-file"]) : undefined;
  const staticToken = typeof u.token === "string" && u.token ? u.token : undefined;
  const token = staticToken ? () => staticToken : tokenFile ? rereadToken(tokenFile) : undefined;
  const basic =
    typeof u.username === "string" && u.username ? `${u.username}:${String(u.password ?? "")}` : undefined;
  const impersonate = typeof u.as === "string" && u.as ? u.as : undefined;
  return {
    server,
    namespace,
    apply: async (opts) => {
      if (c["insecure-skip-tls-verify"] === true) opts.rejectUnauthorized = false;
      if (typeof c["tls-server-name"] === "string") opts.servername = c["tls-server-name"];
      if (ca) opts.ca = ca;
      if (cert) opts.cert = cert;
      if (key) opts.key = key;
      const headers: Record<string, string> = {};
      if (impersonate) headers["impersonate-user"] = impersonate;
      if (token) headers.authorization = `Bearer ${token()}`;
      if (basic) opts.auth = basic;
      opts.headers = { ...opts.headers, ...headers };
    },
  };
}

/**
 * YAML (JSON is YAML too), with the parser loaded only for a kubeconfig file: the in-cluster
 * operator never needs it, and it costs about 10 MiB of resident memory.
 */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yaml.parse(text);
}

/** The first entry of that name across the files (kubectl's merge: the first file wins). */
function find(
  files: readonly KubeconfigFile[],
  list: "clusters" | "users" | "contexts",
  field: "cluster" | "user" | "context",
  name: string,
): { fields: Fields; dir: string } | undefined {
  for (const f of files) {
    const entry = f.doc[list]?.find((e) => e.name === name);
    if (entry) return { fields: entry[field] ?? {}, dir: dirname(f.path) };
  }
  return undefined;
}

/** A file's bytes (a relative path is relative to its kubeconfig) or base64 data, else undefined. */
function bytes(dir: string, file: unknown, data: unknown): Buffer | undefined {
  if (typeof file === "string" && file) return readFileSync(absolute(dir, file));
  if (typeof data === "string" && data) return Buffer.from(data, "base64");
  return undefined;
}

function absolute(dir: string, file: string): string {
  return isAbsolute(file) ? file : join(dir, file);
}
