// Which Harbor a command talks to, and as whom. Either a connection of the cluster
// (`--connection [namespace/]name`, read through the kubeconfig the way kubectl reads it: the
// connection's URL and TLS settings, and the credentials from its Secret, checked as the operator
// checks them) or `--harbor-url` with the credentials in flags or the environment. The password is
// never printed: error messages name the user and where the password came from.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { SECRET_USES } from "../api/common.ts";
import {
  ClusterHarborConnectionSpec,
  clusterHarborConnection,
  HarborConnectionSpec,
  harborConnection,
} from "../api/connection.ts";
import { credentialsFrom, insecureHttpRefusal } from "../controllers/connection/mapping.ts";
import { resourceType } from "../controllers/shared/kinds.ts";
import { refusal } from "../controllers/shared/secret-uses.ts";
import { HarborClient } from "../harbor/client.ts";
import { EndpointRegistry } from "../harbor/endpoints.ts";
import { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import { type KubeObject, type SecretObject, Secrets } from "../kube/types.ts";
import { flagSet, flagString, flagValue, type Invocation, type OptionSpec, wholeNumber } from "./command.ts";
import { CliError, type ErrorContext, UsageError } from "./errors.ts";

const SECTION = "Harbor and cluster";

/** The flags that choose a Harbor, shared by every command that talks to one. */
export const HARBOR_OPTIONS: OptionSpec[] = [
  {
    name: "connection",
    short: "c",
    arg: "[NS/]NAME",
    help: "a HarborConnection of the cluster (in NS, else --namespace, else the kubeconfig context's namespace); with no such HarborConnection, the ClusterHarborConnection NAME. Its Secret must be readable with the kubeconfig",
    section: SECTION,
  },
  {
    name: "namespace",
    short: "n",
    arg: "NS",
    help: "the namespace of --connection (and, for export, of the resources written)",
    section: SECTION,
  },
  {
    name: "kubeconfig",
    arg: "PATH",
    help: "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, as kubectl)",
    section: SECTION,
  },
  {
    name: "context",
    arg: "NAME",
    help: "kubeconfig context (default: its current context)",
    section: SECTION,
  },
  {
    name: "harbor-url",
    arg: "URL",
    help: "Harbor's URL, instead of --connection",
    env: "HARBOR_URL",
    section: SECTION,
  },
  {
    name: "username",
    short: "u",
    arg: "USER",
    help: "with --harbor-url",
    env: "HARBOR_USERNAME",
    section: SECTION,
  },
  {
    name: "password",
    arg: "PASSWORD",
    help: "with --harbor-url; a flag shows in the process list, so prefer HARBOR_PASSWORD or --password-file",
    env: "HARBOR_PASSWORD",
    section: SECTION,
  },
  { name: "password-file", arg: "PATH", help: "read the password from this file", section: SECTION },
  {
    name: "ca-file",
    arg: "PATH",
    help: "PEM certificates to trust for Harbor's TLS certificate (with --connection: the connection's caBundle)",
    section: SECTION,
  },
  {
    name: "insecure-skip-tls-verify",
    help: "do not verify Harbor's TLS certificate (with --connection: as the connection says)",
    section: SECTION,
  },
  {
    name: "rate",
    arg: "N",
    help: "requests per second sent to Harbor at most",
    default: "200",
    section: SECTION,
  },
  { name: "concurrency", arg: "N", help: "requests in flight at most", default: "8", section: SECTION },
  {
    name: "request-timeout",
    arg: "SECONDS",
    help: "how long one Harbor request may take",
    default: "30",
    section: SECTION,
  },
];

/** A Harbor to talk to, and how to speak of it in messages. */
export interface HarborTarget {
  client: HarborClient;
  url: string;
  /** For error messages: the URL and who logs in with a password from where. */
  errorContext: ErrorContext;
  /** The connection resources of an export should name, and their namespace. */
  connectionRef?: { kind: "HarborConnection" | "ClusterHarborConnection"; name: string };
  namespace?: string;
  close(): Promise<void>;
}

const harborUrl = z
  .string()
  .trim()
  .refine((v) => /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(v) && URL.canParse(v), {
    message: "must be an http:// or https:// URL of Harbor, e.g. https://harbor.example.com",
  })
  .refine((v) => !/^[^:/?#]+:\/\/[^/?#]*@/.test(v), {
    message: "must not carry credentials; use --username and HARBOR_PASSWORD",
  });

/** The Harbor the flags choose (see the file header). */
export async function connectHarbor(inv: Invocation): Promise<HarborTarget> {
  const where = inv.path.join(" ");
  const connection = flagString(inv, "connection");
  const urlValue = flagString(inv, "harbor-url");
  // A flag beats the environment: with --connection, HARBOR_URL from the environment is ignored.
  if (connection && urlValue !== undefined && urlValue !== inv.io.env.HARBOR_URL)
    throw new UsageError("give either --connection or --harbor-url, not both", where);
  const limits = {
    requestsPerSecond: flagValue(inv, "rate", wholeNumber(1, 100_000), "200"),
    maxConcurrency: flagValue(inv, "concurrency", wholeNumber(1, 256), "8"),
    timeoutMs: flagValue(inv, "request-timeout", wholeNumber(1, 3600), "30") * 1000,
  };
  const tls = {
    ...(flagString(inv, "ca-file")
      ? { caBundle: readText(flagString(inv, "ca-file") as string, "--ca-file") }
      : {}),
    ...(flagSet(inv, "insecure-skip-tls-verify") ? { insecureSkipTLSVerify: true } : {}),
  };
  if (connection) return fromConnection(inv, connection, { ...limits, ...tls });
  if (urlValue === undefined)
    throw new UsageError(
      "say which Harbor: --connection [NAMESPACE/]NAME (a HarborConnection of the cluster), or --harbor-url URL (or HARBOR_URL) with HARBOR_USERNAME and HARBOR_PASSWORD",
      where,
    );
  const url = flagValue(inv, "harbor-url", harborUrl) as string;
  const username = flagString(inv, "username");
  if (!username) throw new UsageError("--harbor-url needs --username (or HARBOR_USERNAME)", where);
  const passwordFile = flagString(inv, "password-file");
  const password = passwordFile
    ? readText(passwordFile, "--password-file").replace(/\r?\n$/, "")
    : flagString(inv, "password");
  if (!password)
    throw new UsageError(
      "--harbor-url needs a password: HARBOR_PASSWORD, --password-file or --password",
      where,
    );
  const source = passwordFile
    ? `file ${passwordFile}`
    : inv.io.env.HARBOR_PASSWORD === password
      ? "HARBOR_PASSWORD"
      : "--password";
  const client = newClient({ url, username, password, ...limits, ...tls });
  return {
    client,
    url,
    errorContext: { harborUrl: url, credentials: { username, source } },
    ...(flagString(inv, "namespace") ? { namespace: flagString(inv, "namespace") as string } : {}),
    close: () => client.close(),
  };
}

function newClient(settings: ConstructorParameters<typeof HarborClient>[0]): HarborClient {
  // Its own pool and limits: nothing else in the process talks to this Harbor.
  return new HarborClient({
    ...settings,
    burst: settings.requestsPerSecond ?? 200,
    endpoints: new EndpointRegistry(),
  });
}

function readText(path: string, flag: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError(
      `${flag} ${path}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`,
    );
  }
}

type ConnectionObject = KubeObject & { spec?: unknown };

async function fromConnection(
  inv: Invocation,
  text: string,
  settings: {
    requestsPerSecond: number;
    maxConcurrency: number;
    timeoutMs: number;
    caBundle?: string;
    insecureSkipTLSVerify?: boolean;
  },
): Promise<HarborTarget> {
  const where = inv.path.join(" ");
  const m = /^(?:([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/)?([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
  if (!m) throw new UsageError(`--connection "${text}" must be NAME or NAMESPACE/NAME`, where);
  const kubeconfig = flagString(inv, "kubeconfig");
  const context = flagString(inv, "context");
  let kube: KubeClient;
  try {
    kube = KubeClient.fromOptions({
      ...(kubeconfig ? { kubeconfig } : {}),
      ...(context ? { context } : {}),
      userAgent: "kubectl-harbor",
      timeoutMs: 15_000,
    });
  } catch (e) {
    throw new CliError(
      `cannot use the kubeconfig${kubeconfig ? ` ${kubeconfig}` : ""}: ${(e as Error).message}`,
    );
  }
  try {
    const name = m[3] as string;
    const namespace = m[1] ?? flagString(inv, "namespace") ?? kube.contextNamespace ?? "default";
    let kind: "HarborConnection" | "ClusterHarborConnection" = "HarborConnection";
    let obj = await kube.find<ConnectionObject>(resourceType(harborConnection), namespace, name);
    if (!obj && !m[1]) {
      obj = await kube.find<ConnectionObject>(resourceType(clusterHarborConnection), undefined, name);
      kind = "ClusterHarborConnection";
    }
    if (!obj) {
      throw new CliError(
        `no HarborConnection ${namespace}/${name}${m[1] ? "" : ` and no ClusterHarborConnection ${name}`} in the cluster at ${kube.server}`,
      );
    }
    const what =
      kind === "HarborConnection"
        ? `HarborConnection ${namespace}/${name}`
        : `ClusterHarborConnection ${name}`;
    const parsed =
      kind === "HarborConnection"
        ? HarborConnectionSpec.safeParse(obj.spec ?? {})
        : ClusterHarborConnectionSpec.safeParse(obj.spec ?? {});
    if (!parsed.success)
      throw new CliError(`${what} has an invalid spec: ${parsed.error.issues[0]?.message ?? ""}`);
    const spec = parsed.data;
    // The operator's rules for a connection, so that running a command with it never sends its
    // Secret where the operator would not: no plain http:// off loopback unless the connection says
    // so, and only a Secret that opted in.
    const insecure = insecureHttpRefusal(spec);
    if (insecure) throw new CliError(`${what}: ${insecure.message}`);
    const ref = {
      namespace:
        "namespace" in spec.credentialsSecretRef
          ? (spec.credentialsSecretRef.namespace as string)
          : namespace,
      name: spec.credentialsSecretRef.name,
      usernameKey: spec.credentialsSecretRef.usernameKey,
      passwordKey: spec.credentialsSecretRef.passwordKey,
    };
    let secret: SecretObject | undefined;
    try {
      secret = await kube.find<SecretObject>(Secrets, ref.namespace, ref.name);
    } catch (e) {
      if (isKubeError(e, "forbidden"))
        throw new CliError(
          `the kubeconfig may not read Secret ${ref.namespace}/${ref.name}, which holds the credentials of ${what}; use an account that may, or --harbor-url with credentials`,
        );
      throw e;
    }
    const notAllowed =
      secret &&
      refusal(
        {
          name: ref.name,
          namespace: ref.namespace,
          connectionCredentials: false,
          annotations: secret.metadata.annotations,
        },
        SECRET_USES.harborConnection,
      );
    if (notAllowed) throw new CliError(`${what}: ${notAllowed}`);
    const values = secret
      ? Object.fromEntries(
          Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
        )
      : undefined;
    const creds = credentialsFrom(values, ref);
    if (!creds.ok) throw new CliError(`${what}: ${creds.failure.message}`);
    const client = newClient({
      url: spec.url,
      ...creds.credentials,
      ...(spec.caBundle ? { caBundle: spec.caBundle } : {}),
      ...(spec.caBundleOnly ? { caBundleOnly: true } : {}),
      ...(spec.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
      ...settings,
    });
    return {
      client,
      url: spec.url,
      errorContext: {
        harborUrl: spec.url,
        credentials: { username: creds.credentials.username, source: `Secret ${ref.namespace}/${ref.name}` },
      },
      connectionRef: { kind, name },
      ...(kind === "HarborConnection"
        ? { namespace }
        : flagString(inv, "namespace")
          ? { namespace: flagString(inv, "namespace") as string }
          : {}),
      close: () => client.close(),
    };
  } finally {
    kube.close();
  }
}
