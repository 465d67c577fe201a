// The operator's configuration, from command-line flags and environment variables (a flag wins
// over its variable). One table of options drives parsing, validation and the --help text, so
// they cannot drift apart. parseConfig is pure apart from one optional file read (the pod's
// namespace from its service account), which callers can replace; it fails fast with a
// ConfigError that names every bad flag or variable and says what is wrong with it.
import { readFileSync } from "node:fs";
import { delimiter } from "node:path";
import { z } from "zod";
import type { BindAddress } from "./runtime/health.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json";

export interface LeaderElectionConfig {
  enabled: boolean;
  /** The Lease's name. */
  name: string;
  /** The Lease's namespace. */
  namespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface Config {
  /** A kubeconfig file; undefined: the defaults ($KUBECONFIG list, ~/.kube/config, in-cluster; see src/kube/kubeconfig.ts). */
  kubeconfig: string | undefined;
  /** Whether the process runs in a pod (the apiserver's service variables are set). */
  inCluster: boolean;
  /** The pod's name (POD_NAME, set through the downward API), for the leader identity. */
  podName: string | undefined;
  /** Namespaces to watch; empty means all. */
  namespaces: string[];
  /** Only resources matching this label selector are handled (to shard across instances). */
  labelSelector: string | undefined;
  workers: number;
  driftIntervalMs: number;
  /** How often status fields that cost extra Harbor reads are refreshed (webhook deliveries). */
  statusRefreshIntervalMs: number;
  reconcileTimeoutMs: number;
  /** How long a resource waits on something it needs before it is reported Stalled too. */
  dependencyTimeoutMs: number;
  leaderElection: LeaderElectionConfig;
  /**
   * The only namespace a ClusterHarborConnection's credentials Secret may be in (default: the
   * operator's own), or "*" for any namespace (the rule before this setting existed).
   */
  clusterResourceNamespace: string;
  /** What happens to pull-secret copies in namespaces that do not accept them: kept and named, or removed. */
  copiesWithoutConsent: "keep" | "remove";
  /** Where /metrics is served; undefined: disabled. */
  metricsAddress: BindAddress | undefined;
  /** Where /healthz and /readyz are served; undefined: disabled. */
  probeAddress: BindAddress | undefined;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** A bad command line or environment (exitCode 2), or a request for help (exitCode 0, message = help). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly exitCode: 0 | 2;

  constructor(message: string, exitCode: 0 | 2 = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

export interface ParseConfigHost {
  /** Reads the pod's namespace; default: the service-account namespace file, if present. */
  serviceAccountNamespace?: () => string | undefined;
}

const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

// ---------------------------------------------------------------------------------------------
// value schemas: each turns the text a user wrote into a typed value, or says what is wrong

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const dnsLabel = z
  .string()
  .trim()
  .max(63, "must be at most 63 characters")
  .regex(DNS_LABEL, "must be a DNS label (lower-case letters, digits and '-')");

const dnsSubdomain = z
  .string()
  .trim()
  .max(253, "must be at most 253 characters")
  .regex(DNS_SUBDOMAIN, "must be a DNS subdomain (lower-case letters, digits, '-' and '.')");

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations: "90s", "5m", "1h30m", "500ms"; always positive. */
const duration = z
  .string()
  .trim()
  .transform((text, ctx) => {
    if (!DURATION.test(text)) {
      ctx.addIssue({ code: "custom", message: 'must be a duration such as "500ms", "90s", "5m" or "1h30m"' });
      return z.NEVER;
    }
    let ms = 0;
    for (const m of text.matchAll(DURATION_PART)) ms += Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? 0);
    if (!(ms >= 1)) {
      ctx.addIssue({ code: "custom", message: "must be at least 1ms" });
      return z.NEVER;
    }
    return Math.round(ms);
  });

const boolean = z.stringbool({ error: 'must be "true" or "false"' });

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** "host:port", ":port" (every interface), "[::1]:port"; "0" disables the server. */
const bindAddress = z
  .string()
  .trim()
  .transform((text, ctx): BindAddress | undefined => {
    if (text === "0") return undefined;
    const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
    const port = Number(m?.[3]);
    if (!m || port > 65535) {
      ctx.addIssue({ code: "custom", message: 'must be "host:port", ":port" or "0" (disabled)' });
      return z.NEVER;
    }
    const host = m[1] ?? m[2] ?? "";
    return host === "" ? { port } : { host, port };
  });

const namespaceList = z.array(z.string()).transform((values, ctx) => {
  const names = values.flatMap((v) => v.split(",")).map((s) => s.trim());
  const out: string[] = [];
  for (const name of names) {
    if (name === "") continue;
    const r = dnsLabel.safeParse(name);
    if (!r.success) {
      ctx.addIssue({
        code: "custom",
        message: `"${name}" ${r.error.issues[0]?.message ?? "is not a namespace name"}`,
      });
      continue;
    }
    if (!out.includes(r.data)) out.push(r.data);
  }
  return out;
});

// ---------------------------------------------------------------------------------------------
// the options: the single source of parsing and of --help

type Kind = "value" | "list" | "boolean";

interface OptionDef {
  flag: string;
  env: string;
  kind: Kind;
  /** The value's name in --help, e.g. DURATION. */
  arg?: string;
  /** The default, as a user would write it (undefined: none, or computed; see help). */
  default?: string;
  help: string;
  schema: z.ZodType;
}

const OPTIONS = {
  kubeconfig: {
    flag: "kubeconfig",
    env: "KUBECONFIG",
    kind: "value",
    arg: "PATH",
    help: "kubeconfig file (default: in-cluster service account in a pod, else ~/.kube/config)",
    schema: z.string().trim().min(1, "must not be empty"),
  },
  namespaces: {
    flag: "namespace",
    env: "WATCH_NAMESPACES",
    kind: "list",
    arg: "NS[,NS...]",
    help: "namespace to watch; repeat or separate with commas (default: all namespaces)",
    schema: namespaceList,
  },
  labelSelector: {
    flag: "label-selector",
    env: "LABEL_SELECTOR",
    kind: "value",
    arg: "SELECTOR",
    help: "handle only resources with these labels, to shard work across instances (default: all)",
    schema: z.string().trim().min(1, "must not be empty"),
  },
  workers: {
    flag: "workers",
    env: "WORKERS",
    kind: "value",
    arg: "N",
    default: "4",
    help: "concurrent reconciles per kind",
    schema: wholeNumber(1, 256),
  },
  driftInterval: {
    flag: "drift-interval",
    env: "DRIFT_INTERVAL",
    kind: "value",
    arg: "DURATION",
    default: "5m",
    help: "how often each resource is compared with Harbor again (jittered)",
    schema: duration,
  },
  statusRefreshInterval: {
    flag: "status-refresh-interval",
    env: "STATUS_REFRESH_INTERVAL",
    kind: "value",
    arg: "DURATION",
    default: "1h",
    help: "how often status that costs extra Harbor reads (webhook deliveries) is refreshed",
    schema: duration,
  },
  reconcileTimeout: {
    flag: "reconcile-timeout",
    env: "RECONCILE_TIMEOUT",
    kind: "value",
    arg: "DURATION",
    default: "2m",
    help: "deadline of one reconcile",
    schema: duration,
  },
  dependencyTimeout: {
    flag: "dependency-timeout",
    env: "DEPENDENCY_TIMEOUT",
    kind: "value",
    arg: "DURATION",
    default: "2m",
    help: "how long a resource waits on a connection, a referenced resource, a Secret or (robots) a copy it cannot write before it is also reported Stalled (it keeps retrying and recovers by itself)",
    schema: duration,
  },
  clusterResourceNamespace: {
    flag: "cluster-resource-namespace",
    env: "CLUSTER_RESOURCE_NAMESPACE",
    kind: "value",
    arg: "NS",
    help: 'the namespace ClusterHarborConnections read their credentials Secrets from, and no other (default: the pod\'s namespace, as for the Lease); "*" allows any namespace, so whoever may write a ClusterHarborConnection may send any opted-in Secret of the cluster to a URL of their choice',
    schema: z
      .string()
      .trim()
      .refine(
        (v) => v === "*" || dnsLabel.safeParse(v).success,
        'must be a namespace name (a DNS label) or "*"',
      ),
  },
  copiesWithoutConsent: {
    flag: "copies-without-consent",
    env: "COPIES_WITHOUT_CONSENT",
    kind: "value",
    arg: "keep|remove",
    default: "keep",
    help: "what happens to a robot's pull-secret copy in a namespace that does not accept copies from the robot's namespace (annotation harborconfig.io/accept-pull-secrets-from), such as one made before namespaces had to accept them: keep it (and keep it current) while the robot's status and an Event name it, or remove it. No new copy goes to such a namespace either way",
    schema: z.enum(["keep", "remove"], { error: "must be keep or remove" }),
  },
  leaderElect: {
    flag: "leader-elect",
    env: "LEADER_ELECT",
    kind: "boolean",
    default: "true",
    help: "elect a leader on a Lease so that one instance works at a time",
    schema: boolean,
  },
  leaderElectionId: {
    flag: "leader-election-id",
    env: "LEADER_ELECTION_ID",
    kind: "value",
    arg: "NAME",
    default: "harbor-config-operator",
    help: "name of the Lease",
    schema: dnsSubdomain,
  },
  leaderElectionNamespace: {
    flag: "leader-election-namespace",
    env: "LEADER_ELECTION_NAMESPACE",
    kind: "value",
    arg: "NS",
    help: "namespace of the Lease (default: the pod's namespace from POD_NAMESPACE or its service account, else default)",
    schema: dnsLabel,
  },
  leaseDuration: {
    flag: "leader-elect-lease-duration",
    env: "LEADER_ELECT_LEASE_DURATION",
    kind: "value",
    arg: "DURATION",
    default: "15s",
    help: "how long standby instances wait after the last renewal before taking over",
    schema: duration,
  },
  renewDeadline: {
    flag: "leader-elect-renew-deadline",
    env: "LEADER_ELECT_RENEW_DEADLINE",
    kind: "value",
    arg: "DURATION",
    default: "10s",
    help: "how long the leader keeps trying to renew before it gives up leading",
    schema: duration,
  },
  retryPeriod: {
    flag: "leader-elect-retry-period",
    env: "LEADER_ELECT_RETRY_PERIOD",
    kind: "value",
    arg: "DURATION",
    default: "2s",
    help: "pause between attempts to acquire or renew the Lease",
    schema: duration,
  },
  metricsBindAddress: {
    flag: "metrics-bind-address",
    env: "METRICS_BIND_ADDRESS",
    kind: "value",
    arg: "ADDR",
    default: ":8080",
    help: 'address of /metrics (port 0: any free port, logged); "0" disables it',
    schema: bindAddress,
  },
  healthProbeBindAddress: {
    flag: "health-probe-bind-address",
    env: "HEALTH_PROBE_BIND_ADDRESS",
    kind: "value",
    arg: "ADDR",
    default: ":8081",
    help: 'address of /healthz and /readyz (port 0: any free port, logged); "0" disables them',
    schema: bindAddress,
  },
  logLevel: {
    flag: "log-level",
    env: "LOG_LEVEL",
    kind: "value",
    arg: "LEVEL",
    default: "info",
    help: "debug, info, warn or error",
    schema: z.enum(["debug", "info", "warn", "error"], { error: "must be debug, info, warn or error" }),
  },
  logFormat: {
    flag: "log-format",
    env: "LOG_FORMAT",
    kind: "value",
    arg: "FORMAT",
    default: "json",
    help: "json (one object per line)",
    schema: z.enum(["json"], { error: "must be json" }),
  },
} satisfies Record<string, OptionDef>;

type OptionKey = keyof typeof OPTIONS;
type Parsed = { [K in OptionKey]: z.output<(typeof OPTIONS)[K]["schema"]> | undefined };

const BY_FLAG = new Map<string, OptionKey>(
  (Object.entries(OPTIONS) as [OptionKey, OptionDef][]).map(([key, def]) => [def.flag, key]),
);

// ---------------------------------------------------------------------------------------------

/** Where a value came from, so an error can say which flag or variable to fix. */
interface RawValue {
  source: string;
  value: string | string[];
}

/**
 * Parses the command line (without node and the script) and the environment. Throws ConfigError:
 * exitCode 2 with every problem found, or exitCode 0 with the help text for --help / -h.
 */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  host: ParseConfigHost = {},
): Config {
  const problems: string[] = [];
  const fromFlags = readFlags(argv, problems);
  if (fromFlags === "help") throw new ConfigError(helpText(), 0);

  const parsed: Partial<Record<OptionKey, unknown>> = {};
  for (const [key, def] of Object.entries(OPTIONS) as [OptionKey, OptionDef][]) {
    const raw = fromFlags.get(key) ?? fromEnv(def, env) ?? fromDefault(def);
    if (raw === undefined) continue;
    const r = def.schema.safeParse(raw.value);
    if (r.success) parsed[key] = r.data;
    else {
      // A list's messages name the bad item themselves.
      const value = Array.isArray(raw.value) ? "" : `${JSON.stringify(raw.value)} `;
      problems.push(`${raw.source}: ${value}${r.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  const p = parsed as Parsed;

  const lease = {
    leaseDurationMs: p.leaseDuration ?? 15_000,
    renewDeadlineMs: p.renewDeadline ?? 10_000,
    retryPeriodMs: p.retryPeriod ?? 2_000,
  };
  if (p.leaderElect !== false && problems.length === 0) {
    // The same rules as client-go: a leader must give up before others may take over, and it
    // needs time for more than one renewal attempt (retries are jittered by up to 1.2×).
    if (lease.leaseDurationMs <= lease.renewDeadlineMs)
      problems.push("--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline");
    if (lease.renewDeadlineMs <= lease.retryPeriodMs * 1.2)
      problems.push("--leader-elect-renew-deadline must be longer than 1.2 × --leader-elect-retry-period");
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n${problems.map((s) => `  ${s}`).join("\n")}\nRun with --help for the options.`,
    );
  }

  const ownNamespace = podNamespace(env, host);
  return {
    kubeconfig: p.kubeconfig,
    inCluster: Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT),
    podName: nonEmpty(env.POD_NAME),
    namespaces: p.namespaces ?? [],
    labelSelector: p.labelSelector,
    workers: p.workers ?? 4,
    driftIntervalMs: p.driftInterval ?? 300_000,
    statusRefreshIntervalMs: p.statusRefreshInterval ?? 3_600_000,
    reconcileTimeoutMs: p.reconcileTimeout ?? 120_000,
    dependencyTimeoutMs: p.dependencyTimeout ?? 120_000,
    leaderElection: {
      enabled: p.leaderElect ?? true,
      name: p.leaderElectionId ?? "harbor-config-operator",
      namespace: p.leaderElectionNamespace ?? ownNamespace,
      ...lease,
    },
    clusterResourceNamespace: p.clusterResourceNamespace ?? ownNamespace,
    copiesWithoutConsent: p.copiesWithoutConsent ?? "keep",
    metricsAddress: p.metricsBindAddress,
    probeAddress: p.healthProbeBindAddress,
    logLevel: p.logLevel ?? "info",
    logFormat: p.logFormat ?? "json",
  };
}

/** The --help text, generated from the option table. */
export function helpText(): string {
  const rows = (Object.values(OPTIONS) as OptionDef[]).map((def) => {
    const left = def.kind === "boolean" ? `--${def.flag}[=false]` : `--${def.flag} ${def.arg ?? "VALUE"}`;
    const dflt = def.default === undefined ? "" : ` (default ${def.default})`;
    return { left, right: `${def.help}${dflt} [env ${def.env}]` };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 2;
  return [
    "Usage: harbor-config-operator [flags]",
    "",
    "Keeps a Harbor registry's configuration equal to custom resources.",
    "Every flag can also be set through the environment variable in brackets; a flag wins.",
    "",
    ...rows.map((r) => `  ${r.left.padEnd(width)}${r.right}`),
    `  ${"--help".padEnd(width)}show this text`,
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------

function readFlags(argv: readonly string[], problems: string[]): Map<OptionKey, RawValue> | "help" {
  const out = new Map<OptionKey, RawValue>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--help" || arg === "-h") return "help";
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      problems.push(`unexpected argument ${JSON.stringify(arg)} (flags look like --name=value)`);
      continue;
    }
    const name = m[1] ?? "";
    const key = BY_FLAG.get(name);
    if (!key) {
      problems.push(`unknown flag --${name}`);
      continue;
    }
    const def: OptionDef = OPTIONS[key];
    let value = m[2];
    if (value === undefined) {
      if (def.kind === "boolean")
        value = "true"; // as Go's flag package: a bare boolean flag is true
      else if (i + 1 < argv.length && !(argv[i + 1] ?? "").startsWith("--")) value = argv[++i] ?? "";
      else {
        problems.push(`--${name} needs a value`);
        continue;
      }
    }
    const source = `--${name}`;
    if (def.kind === "list") {
      const prev = out.get(key)?.value;
      out.set(key, { source, value: [...(Array.isArray(prev) ? prev : []), value] });
    } else out.set(key, { source, value }); // the last occurrence wins
  }
  return out;
}

function fromEnv(def: OptionDef, env: Readonly<Record<string, string | undefined>>): RawValue | undefined {
  // An empty variable counts as unset: manifests often template variables that end up empty.
  const value = nonEmpty(env[def.env]);
  if (value === undefined) return undefined;
  // KUBECONFIG may be a list of files; src/kube/kubeconfig.ts merges such a list itself when given none.
  if (def.env === "KUBECONFIG" && value.includes(delimiter)) return undefined;
  return { source: def.env, value: def.kind === "list" ? [value] : value };
}

function fromDefault(def: OptionDef): RawValue | undefined {
  if (def.default === undefined) return undefined;
  return { source: `--${def.flag} default`, value: def.kind === "list" ? [def.default] : def.default };
}

function podNamespace(env: Readonly<Record<string, string | undefined>>, host: ParseConfigHost): string {
  const candidates = [
    () => nonEmpty(env.POD_NAMESPACE),
    host.serviceAccountNamespace ?? readServiceAccountNamespace,
  ];
  for (const read of candidates) {
    const ns = read()?.trim();
    if (ns !== undefined && dnsLabel.safeParse(ns).success) return ns;
  }
  return "default";
}

function readServiceAccountNamespace(): string | undefined {
  try {
    return nonEmpty(readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, "utf8").trim());
  } catch {
    return undefined;
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s.trim() === "" ? undefined : s;
}
