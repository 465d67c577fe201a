// Prometheus metrics under controller-runtime's names (so existing dashboards and alerts work),
// plus Harbor request counts and latency by operation and status code. One registry per process,
// passed to whoever records; nothing global.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

const RECONCILE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const QUEUE_BUCKETS = [0.001, 0.01, 0.1, 1, 10, 100, 1000];

export class Metrics {
  readonly registry = new Registry();

  readonly reconcileTotal = new Counter({
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"] as const,
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames: ["controller"] as const,
    registers: [this.registry],
  });
  readonly terminalReconcileErrors = new Counter({
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames: ["controller"] as const,
    registers: [this.registry],
  });
  readonly reconcileTime = new Histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"] as const,
    buckets: RECONCILE_BUCKETS,
    registers: [this.registry],
  });
  readonly maxConcurrentReconciles = new Gauge({
    name: "controller_runtime_max_concurrent_reconciles",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames: ["controller"] as const,
    registers: [this.registry],
  });
  readonly activeWorkers = new Gauge({
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames: ["controller"] as const,
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: "workqueue_depth",
    help: "Current depth of workqueue",
    labelNames: ["name", "controller"] as const,
    registers: [this.registry],
  });
  readonly queueAdds = new Counter({
    name: "workqueue_adds_total",
    help: "Total number of adds handled by workqueue",
    labelNames: ["name", "controller"] as const,
    registers: [this.registry],
  });
  readonly queueLatency = new Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames: ["name", "controller"] as const,
    buckets: QUEUE_BUCKETS,
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes",
    labelNames: ["name", "controller"] as const,
    buckets: QUEUE_BUCKETS,
    registers: [this.registry],
  });
  readonly queueRetries = new Counter({
    name: "workqueue_retries_total",
    help: "Total number of retries handled by workqueue",
    labelNames: ["name", "controller"] as const,
    registers: [this.registry],
  });

  readonly leaderStatus = new Gauge({
    name: "leader_election_master_status",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
    labelNames: ["name"] as const,
    registers: [this.registry],
  });

  readonly harborRequests = new Counter({
    name: "harbor_requests_total",
    help: "Harbor API requests by connection, operation, method and HTTP status code (0 = no response)",
    labelNames: ["connection", "operation", "method", "code"] as const,
    registers: [this.registry],
  });
  readonly harborRequestDuration = new Histogram({
    name: "harbor_request_duration_seconds",
    help: "Harbor API request latency by connection and operation",
    labelNames: ["connection", "operation", "method"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly robotSecretExpiry = new Gauge({
    name: "harbor_robot_secret_expiry_timestamp_seconds",
    help: "When each managed robot account expires (Unix time; absent for robots that never expire)",
    labelNames: ["namespace", "name"] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Every series of one controller at zero, as controller-runtime does: a dashboard or an alert on
   * an error rate sees 0, not "no data", before the first error.
   */
  initController(controller: string): void {
    for (const result of ["success", "error", "requeue", "requeue_after"])
      this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.terminalReconcileErrors.inc({ controller }, 0);
    this.activeWorkers.set({ controller }, 0);
    const queue = { name: controller, controller };
    this.queueDepth.set(queue, 0);
    this.queueAdds.inc(queue, 0);
    this.queueRetries.inc(queue, 0);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
