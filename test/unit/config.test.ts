// Configuration from flags and environment: defaults, precedence (a flag wins), every kind of
// value, and errors that name what to fix.
import { describe, expect, it } from "vitest";
import { ConfigError, helpText, parseConfig } from "../../src/config.ts";

const noServiceAccount = { serviceAccountNamespace: () => undefined };

function parse(argv: string[], env: Record<string, string> = {}) {
  return parseConfig(argv, env, noServiceAccount);
}

function failure(argv: string[], env: Record<string, string> = {}): ConfigError {
  try {
    parse(argv, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("has documented defaults", () => {
    expect(parse([])).toEqual({
      kubeconfig: undefined,
      inCluster: false,
      podName: undefined,
      namespaces: [],
      labelSelector: undefined,
      workers: 4,
      driftIntervalMs: 300_000,
      statusRefreshIntervalMs: 3_600_000,
      reconcileTimeoutMs: 120_000,
      dependencyTimeoutMs: 120_000,
      leaderElection: {
        enabled: true,
        name: "harbor-config-operator",
        namespace: "default",
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      },
      clusterResourceNamespace: "default",
      copiesWithoutConsent: "keep",
      metricsAddress: { port: 8080 },
      probeAddress: { port: 8081 },
      logLevel: "info",
      logFormat: "json",
    });
  });

  it("reads every option from flags, in both --name=value and --name value forms", () => {
    const c = parse([
      "--kubeconfig=/tmp/kc",
      "--namespace",
      "team-a",
      "--namespace=team-b,team-c",
      "--label-selector",
      "shard=1",
      "--workers=8",
      "--drift-interval=1h30m",
      "--reconcile-timeout",
      "90s",
      "--dependency-timeout=45s",
      "--leader-elect=false",
      "--leader-election-id=my-lock",
      "--leader-election-namespace=ops",
      "--leader-elect-lease-duration=30s",
      "--leader-elect-renew-deadline=20s",
      "--leader-elect-retry-period=500ms",
      "--metrics-bind-address=127.0.0.1:9090",
      "--health-probe-bind-address=[::1]:9091",
      "--log-level=debug",
      "--log-format=json",
    ]);
    expect(c).toMatchObject({
      kubeconfig: "/tmp/kc",
      namespaces: ["team-a", "team-b", "team-c"],
      labelSelector: "shard=1",
      workers: 8,
      driftIntervalMs: 5_400_000,
      reconcileTimeoutMs: 90_000,
      dependencyTimeoutMs: 45_000,
      leaderElection: {
        enabled: false,
        name: "my-lock",
        namespace: "ops",
        leaseDurationMs: 30_000,
        renewDeadlineMs: 20_000,
        retryPeriodMs: 500,
      },
      metricsAddress: { host: "127.0.0.1", port: 9090 },
      probeAddress: { host: "::1", port: 9091 },
      logLevel: "debug",
    });
  });

  it("reads the environment, and a flag wins over its variable", () => {
    const env = {
      KUBECONFIG: "/env/kc",
      WATCH_NAMESPACES: "a, b ,a",
      LABEL_SELECTOR: "shard=2",
      WORKERS: "2",
      DRIFT_INTERVAL: "90s",
      LEADER_ELECT: "false",
      LOG_LEVEL: "warn",
      METRICS_BIND_ADDRESS: "0",
    };
    expect(parse([], env)).toMatchObject({
      kubeconfig: "/env/kc",
      namespaces: ["a", "b"],
      labelSelector: "shard=2",
      workers: 2,
      driftIntervalMs: 90_000,
      leaderElection: { enabled: false },
      logLevel: "warn",
      metricsAddress: undefined,
    });
    const c = parse(
      ["--kubeconfig=/flag/kc", "--namespace=c", "--workers=3", "--leader-elect", "--log-level=error"],
      env,
    );
    expect(c).toMatchObject({
      kubeconfig: "/flag/kc",
      namespaces: ["c"],
      workers: 3,
      leaderElection: { enabled: true },
      logLevel: "error",
    });
  });

  it("treats empty variables as unset and leaves a KUBECONFIG list to the kubeconfig loader", () => {
    expect(parse([], { WORKERS: "", LOG_LEVEL: " " })).toMatchObject({ workers: 4, logLevel: "info" });
    expect(parse([], { KUBECONFIG: "/a:/b" }).kubeconfig).toBeUndefined();
  });

  it("finds the lease namespace from the flag, POD_NAMESPACE, the service account, else default", () => {
    const sa = { serviceAccountNamespace: () => "from-sa\n" };
    expect(parseConfig([], {}, sa).leaderElection.namespace).toBe("from-sa");
    expect(parseConfig([], { POD_NAMESPACE: "from-env" }, sa).leaderElection.namespace).toBe("from-env");
    expect(
      parseConfig(["--leader-election-namespace=from-flag"], { POD_NAMESPACE: "x" }, sa).leaderElection
        .namespace,
    ).toBe("from-flag");
    expect(parse([]).leaderElection.namespace).toBe("default");
  });

  it("reads cluster connections' Secrets from the pod's namespace unless told otherwise; * allows any", () => {
    const sa = { serviceAccountNamespace: () => "from-sa" };
    expect(parseConfig([], {}, sa).clusterResourceNamespace).toBe("from-sa");
    expect(parseConfig([], { POD_NAMESPACE: "ops" }, sa).clusterResourceNamespace).toBe("ops");
    expect(parseConfig(["--cluster-resource-namespace=shared"], { POD_NAMESPACE: "ops" }, sa)).toMatchObject({
      clusterResourceNamespace: "shared",
      // The Lease stays in the pod's namespace.
      leaderElection: { namespace: "ops" },
    });
    expect(parse([], { CLUSTER_RESOURCE_NAMESPACE: "*" }).clusterResourceNamespace).toBe("*");
    expect(parse(["--copies-without-consent=remove"]).copiesWithoutConsent).toBe("remove");
  });

  it("knows whether it runs in a pod and the pod's name", () => {
    const c = parse([], {
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      POD_NAME: "op-7d9f",
    });
    expect(c.inCluster).toBe(true);
    expect(c.podName).toBe("op-7d9f");
  });

  it("accepts every form of bind address", () => {
    expect(parse(["--metrics-bind-address=:0"]).metricsAddress).toEqual({ port: 0 });
    expect(parse(["--metrics-bind-address=0.0.0.0:80"]).metricsAddress).toEqual({
      host: "0.0.0.0",
      port: 80,
    });
    expect(parse(["--health-probe-bind-address=0"]).probeAddress).toBeUndefined();
  });

  it.each([
    [["--workers=abc"], {}, '--workers: "abc" must be a whole number'],
    [["--workers=0"], {}, '--workers: "0" must be at least 1'],
    [[], { WORKERS: "-1" }, 'WORKERS: "-1" must be a whole number'],
    [["--drift-interval=5"], {}, '--drift-interval: "5" must be a duration'],
    [["--drift-interval=0s"], {}, "must be at least 1ms"],
    [[], { RECONCILE_TIMEOUT: "two minutes" }, 'RECONCILE_TIMEOUT: "two minutes" must be a duration'],
    [["--leader-elect=maybe"], {}, '--leader-elect: "maybe" must be "true" or "false"'],
    [["--namespace=Bad_NS"], {}, '"Bad_NS" must be a DNS label'],
    [["--leader-election-id=UPPER"], {}, "--leader-election-id"],
    [["--metrics-bind-address=8080"], {}, '--metrics-bind-address: "8080" must be "host:port"'],
    [["--health-probe-bind-address=:70000"], {}, "--health-probe-bind-address"],
    [[], { LOG_LEVEL: "verbose" }, 'LOG_LEVEL: "verbose" must be debug, info, warn or error'],
    [["--log-format=pretty"], {}, "--log-format"],
    [
      ["--cluster-resource-namespace=Team_A"],
      {},
      '--cluster-resource-namespace: "Team_A" must be a namespace name (a DNS label) or "*"',
    ],
    [[], { COPIES_WITHOUT_CONSENT: "delete" }, 'COPIES_WITHOUT_CONSENT: "delete" must be keep or remove'],
    [["--frobnicate"], {}, "unknown flag --frobnicate"],
    [["stray"], {}, 'unexpected argument "stray"'],
    [["--workers"], {}, "--workers needs a value"],
    [
      ["--leader-elect-renew-deadline=20s"],
      {},
      "lease-duration must be longer than --leader-elect-renew-deadline",
    ],
    [
      ["--leader-elect-retry-period=9s"],
      {},
      "renew-deadline must be longer than 1.2 × --leader-elect-retry-period",
    ],
  ])("rejects %j %j, naming the source", (argv, env, message) => {
    const e = failure(argv, env);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(message);
    expect(e.message).toContain("--help");
  });

  it("reports every problem at once", () => {
    const e = failure(["--workers=x"], { LOG_LEVEL: "loud", DRIFT_INTERVAL: "soon" });
    expect(e.message).toContain("--workers");
    expect(e.message).toContain("LOG_LEVEL");
    expect(e.message).toContain("DRIFT_INTERVAL");
  });

  it("does not check lease timings when leader election is off", () => {
    expect(parse(["--leader-elect=false", "--leader-elect-retry-period=1m"]).leaderElection.enabled).toBe(
      false,
    );
  });

  it("answers --help with the help text and exit code 0", () => {
    for (const flag of ["--help", "-h"]) {
      const e = failure(["--workers=x", flag]);
      expect(e.exitCode).toBe(0);
      expect(e.message).toBe(helpText());
    }
  });
});

describe("helpText", () => {
  it("lists every flag with its variable and default", () => {
    const text = helpText();
    for (const [flag, env] of [
      ["--kubeconfig", "KUBECONFIG"],
      ["--namespace", "WATCH_NAMESPACES"],
      ["--label-selector", "LABEL_SELECTOR"],
      ["--workers", "WORKERS"],
      ["--drift-interval", "DRIFT_INTERVAL"],
      ["--reconcile-timeout", "RECONCILE_TIMEOUT"],
      ["--leader-elect[=false]", "LEADER_ELECT"],
      ["--leader-election-id", "LEADER_ELECTION_ID"],
      ["--leader-election-namespace", "LEADER_ELECTION_NAMESPACE"],
      ["--leader-elect-lease-duration", "LEADER_ELECT_LEASE_DURATION"],
      ["--metrics-bind-address", "METRICS_BIND_ADDRESS"],
      ["--health-probe-bind-address", "HEALTH_PROBE_BIND_ADDRESS"],
      ["--log-level", "LOG_LEVEL"],
    ]) {
      const line = text.split("\n").find((l) => l.trimStart().startsWith(`${flag} `));
      expect(line, flag).toBeDefined();
      expect(line).toContain(`[env ${env}]`);
    }
    expect(text).toContain("(default 5m)");
    expect(text).toContain("(default :8080)");
  });
});
