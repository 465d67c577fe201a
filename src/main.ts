// The composition root: configuration → logger → clients → controllers → serve → run. Nothing
// here decides anything about Harbor or Kubernetes; it only wires the parts together and owns the
// process's lifecycle (leader election, graceful shutdown on SIGTERM/SIGINT).
import { type Config, ConfigError, parseConfig } from "./config.ts";
import { createConnectionControllers } from "./controllers/connection/index.ts";
import { createKinds } from "./controllers/index.ts";
import { secretUses } from "./controllers/shared/secret-uses.ts";
import { KubeClient } from "./kube/client.ts";
import { KubeEventRecorder } from "./kube/events.ts";
import { SecretWriter } from "./kube/secrets.ts";
import { createLogger, type Logger } from "./log.ts";
import { startHealthServer } from "./runtime/health.ts";
import { LeaderElector, leaderIdentity } from "./runtime/leader.ts";
import { Metrics } from "./runtime/metrics.ts";

/** The longest the kinds wait for the connections' first checks before they start anyway. */
const FIRST_CHECKS_WAIT_MS = 30_000;

export interface Operator {
  /** Resolves when the operator has stopped (signal, lost leadership, or stop()). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** Starts the operator with a parsed configuration. */
export async function startOperator(config: Config, logger: Logger): Promise<Operator> {
  const identity = leaderIdentity(config.podName);
  const kube = KubeClient.fromOptions({
    ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
    userAgent: "harbor-config-operator",
  });
  const metrics = new Metrics();
  const events = new KubeEventRecorder(kube, logger, "harbor-config-operator", identity);
  const secrets = new SecretWriter(kube);
  const scope = {
    ...(config.namespaces.length ? { namespaces: config.namespaces } : {}),
    ...(config.labelSelector ? { labelSelector: config.labelSelector } : {}),
  };

  // The controllers exist from the start, but only the leader runs them.
  // Connections are not sharded by the label selector: every shard needs them.
  const connections = createConnectionControllers({
    kube,
    metrics,
    events,
    logger,
    workers: config.workers,
    driftIntervalMs: config.driftIntervalMs,
    clusterResourceNamespace: config.clusterResourceNamespace,
    ...(config.namespaces.length ? { namespaces: config.namespaces } : {}),
  });
  const kinds = createKinds({
    kube,
    logger,
    metrics,
    events,
    connections: connections.connections,
    secrets,
    secretUses: secretUses({ secrets, connections: connections.connections }),
    workers: config.workers,
    driftIntervalMs: config.driftIntervalMs,
    statusRefreshIntervalMs: config.statusRefreshIntervalMs,
    reconcileTimeoutMs: config.reconcileTimeoutMs,
    dependencyTimeoutMs: config.dependencyTimeoutMs,
    copiesWithoutConsent: config.copiesWithoutConsent,
    clusterResourceNamespace: config.clusterResourceNamespace,
    secretChanged: (namespace, name) => connections.secretChanged(namespace, name),
    connectionUserGone: (key) => connections.userGone(key),
    ...scope,
  });
  connections.connections.onChange((key) => kinds.enqueueConnection(key));
  connections.setUsers((key) => kinds.usersOf(key));

  let running = false;
  let connectionsSynced = false;
  const health = await startHealthServer({
    metrics,
    metricsAddress: config.metricsAddress,
    probeAddress: config.probeAddress,
    logger,
    // A standby is ready to take over; a leader is ready once its caches are filled.
    ready: () => !running || (kinds.synced() && connectionsSynced) || "caches are syncing",
  });
  // Where they are served, port 0 resolved: what a supervisor that let the system pick reads.
  if (health.metricsUrl || health.probeUrl)
    logger.info({ metricsUrl: health.metricsUrl, probeUrl: health.probeUrl }, "serving metrics and probes");

  const work = async (signal: AbortSignal) => {
    running = true;
    connections.start();
    void connections.waitForSync(signal).then(
      () => {
        connectionsSynced = true;
      },
      () => undefined,
    );
    // The kinds' workers start once every connection has been checked once (at most the probe's
    // deadline plus a margin), so that a restart or a leader change never flaps the fleet.
    kinds.start(connections.waitForFirstChecks(signal, FIRST_CHECKS_WAIT_MS));
    logger.info(
      { namespaces: config.namespaces.length ? config.namespaces : "all", workers: config.workers },
      "operator started",
    );
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    logger.info("stopping controllers");
    await kinds.stop();
    await connections.stop();
    await events.flush();
    running = false;
  };

  const stopSignal = new AbortController();
  let elector: LeaderElector | undefined;
  let done: Promise<void>;
  if (config.leaderElection.enabled) {
    const le = config.leaderElection;
    elector = new LeaderElector({
      kube,
      namespace: le.namespace,
      name: le.name,
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger,
      metrics,
    });
    done = elector.run({
      onStartedLeading: work,
      onStoppedLeading: () => {
        // A process that lost its lease may still be mid-write; start over clean.
        logger.error("lost the leader lease; exiting so that a fresh process takes over");
        process.exitCode = 1;
      },
    });
  } else {
    // Without an election this process does the work: the series says so from the start.
    metrics.leaderStatus.set({ name: config.leaderElection.name }, 1);
    done = work(stopSignal.signal);
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (elector) await elector.stop();
      else stopSignal.abort();
      await done;
      await health.close();
      await connections.connections.close();
      kube.close();
    })();
    return stopping;
  };
  // Whatever ends the work (a signal, a lost lease) closes everything else too.
  return { done: done.then(() => stop()), stop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      (e.exitCode === 0 ? process.stdout : process.stderr).write(`${e.message}\n`);
      process.exit(e.exitCode);
    }
    throw e;
  }
  const logger = createLogger({ logLevel: config.logLevel, logFormat: config.logFormat });
  let operator: Operator;
  try {
    operator = await startOperator(config, logger);
  } catch (e) {
    logger.fatal({ err: e }, "could not start");
    process.exit(1);
  }
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      void operator.stop();
    });
  }
  await operator.done;
  logger.info("stopped");
}

if (import.meta.main) {
  main().catch((e: unknown) => {
    process.stderr.write(`harbor-config-operator: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
