// The shape of one benchmark result (written as JSON) and of a scaling series. Every figure the
// report prints comes from here, so a result file alone can be rendered again or compared later.

export type KindName =
  | "HarborProject"
  | "HarborRobot"
  | "HarborRegistry"
  | "HarborReplicationPolicy"
  | "HarborWebhookPolicy"
  | "HarborLabel"
  | "HarborUserGroup"
  | "HarborProjectMember"
  | "HarborRetentionPolicy"
  | "HarborImmutableTagRule"
  | "HarborPreheatInstance"
  | "HarborPreheatPolicy"
  | "HarborConfiguration"
  | "HarborScanAll";

export const KIND_NAMES: readonly KindName[] = [
  "HarborProject",
  "HarborRobot",
  "HarborRegistry",
  "HarborReplicationPolicy",
  "HarborWebhookPolicy",
  "HarborLabel",
  "HarborUserGroup",
  "HarborProjectMember",
  "HarborRetentionPolicy",
  "HarborImmutableTagRule",
  "HarborPreheatInstance",
  "HarborPreheatPolicy",
  "HarborConfiguration",
  "HarborScanAll",
];

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the run started: other work on the machine skews the figures. */
  loadAverage: number;
}

export interface BenchConfig {
  label: string;
  /** Extra node flags of the operator process (e.g. --max-semi-space-size=8). */
  operatorNodeOptions: string[];
  /** The mix is sized by its number of projects (see workload.ts). */
  projects: number;
  latencyMs: number;
  workers: number;
  /** The operator's drift interval while it converges, is updated and is deleted (its default). */
  convergeDriftIntervalMs: number;
  /** The shortened drift interval of the steady-state phase. */
  steadyDriftIntervalMs: number;
  steadyIntervals: number;
  createConcurrency: number;
  connection: { requestsPerSecond: number; burst: number; maxConcurrency: number };
  updateFraction: number;
  /**
   * The finalizer's admission policy installed before the operator starts, as the Helm chart does
   * where the cluster serves it (the floor runs without it: it sets no finalizer).
   */
  finalizerAtAdmission: boolean;
}

export interface Workload {
  perKind: Record<KindName, number>;
  total: number;
}

export interface Latency {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface HarborCost {
  total: number;
  perObject: number;
  byMethod: Record<string, number>;
  byKind: Record<string, number>;
  /** operationId → count, largest first. */
  byOperation: Record<string, number>;
  /** Responses by HTTP status ("0": none, the connection dropped); 404s of lookups are expected. */
  byStatus: Record<string, number>;
}

export interface KubeCost {
  /** Writes (create, update, patch, delete) by the operator's identity. */
  writes: number;
  writesPerObject: number;
  /** cr (metadata: finalizers), status, secret, event, other. */
  writesByClass: Record<string, number>;
  writesByKind: Record<string, number>;
  /** Every request of the operator by "verb resource[/subresource]", reads included. */
  requests: Record<string, number>;
  /** Answers 409 to the operator's writes: stale writes it had to retry. */
  conflicts: number;
}

export interface CpuAndMemory {
  /** CPU seconds used during the phase, by process (operator, kube-apiserver, etcd, emulator, driver, …). */
  cpuSeconds: Record<string, number>;
  /** The operator's peak resident set so far (VmHWM), in MiB. */
  operatorPeakRssMiB: number;
  /** The operator's V8 heap (used / total) and memory outside it, at the end of the phase. */
  operatorHeapMiB: { used: number; total: number; external: number };
}

export interface ConvergencePhase {
  /**
   * "The limit": how long the same creates took with no operator running, earlier in the same run
   * (the objects were deleted again before the operator started).
   */
  baselineCreateSeconds: number;
  /** How long the driver took to create every object through the Kubernetes API. */
  createSeconds: number;
  /** From the first create until the last object turned Ready. */
  readySeconds: number;
  ready: number;
  latencySeconds: Latency;
  byKind: Record<string, { objects: number; readySeconds: number; latencySeconds: Latency }>;
  /** How long the operator kept writing after the last object turned Ready (Events, mostly). */
  settleSeconds: number;
  harbor: HarborCost;
  kube: KubeCost;
  resources: CpuAndMemory;
  /** Objects not Ready at the deadline, by Ready reason (empty when all converged). */
  notReady: Record<string, number>;
}

/**
 * The floor: the same creates and deletes with the benchmark's reference controller running
 * (test/bench/floor.ts), which writes one Ready condition per object and nothing else. Earlier in
 * the same run than the operator; what the operator's figures are judged against.
 */
export interface FloorPhase {
  /** How long the driver took to create every object with the reference controller running. */
  createSeconds: number;
  /** From the first create until every object showed Ready. */
  readySeconds: number;
  ready: number;
  latencySeconds: Latency;
  /** From the first delete until every object was gone. */
  deleteSeconds: number;
  /** The reference controller's status writes: one per object when nothing got in its way. */
  statusWrites: number;
  /** CPU seconds from the first create until all were Ready, by process. */
  cpuSeconds: Record<string, number>;
}

export interface WavePhase {
  objects: number;
  seconds: number;
  done: number;
  latencySeconds: Latency;
  harbor: HarborCost;
  kube: KubeCost;
  resources: CpuAndMemory;
  notDone: Record<string, number>;
}

export interface RestartPhase {
  /** From spawning the new operator process until its caches were synced (/readyz). */
  startSeconds: number;
  /**
   * From spawning it until its last reconcile caused by the restart: every object looked at once,
   * and the retries that follows from it (the phase lasts at least 20 s to see those).
   */
  resyncSeconds: number;
  reconciles: number;
  harbor: HarborCost;
  kube: KubeCost;
  resources: CpuAndMemory;
}

export interface SteadyKind {
  objects: number;
  /** The projects this kind's objects live in (per-project kinds are listed once per project). */
  projects: number;
  requests: number;
  /** Of those, the drift sweep's list calls. */
  sweepRequests: number;
  /** How Harbor lists it: once for all objects (global) or once per project. */
  listing: "global" | "per-project";
  /**
   * Drift sweeps in the window (bursts of the kind's list calls; a sweep cut by the window's edges
   * counts by the share of its list calls that fell inside) and how long the longest took.
   */
  sweeps: number;
  longestSweepSeconds: number;
  /**
   * Reads per drift interval: one sweep's list calls, plus the other reads (reconciles on a timer,
   * e.g. a webhook's delivery status) per configured interval. A sweep starts an interval after
   * the previous one ended, so with a shortened interval a long sweep runs less often than once
   * per interval; counting its calls per sweep gives what each interval costs at the default.
   */
  perObjectPerInterval: number;
  perProjectPerInterval: number;
}

export interface SteadyPhase {
  intervalSeconds: number;
  intervals: number;
  windowSeconds: number;
  harborWrites: number;
  harbor: HarborCost;
  byKind: Record<string, SteadyKind>;
  kube: KubeCost;
  resources: CpuAndMemory;
}

export interface DeletePhase extends WavePhase {
  /** Harbor objects of the workload still present after the wave. */
  leftInHarbor: Record<string, number>;
}

export interface TargetCheck {
  name: string;
  target: string;
  measured: string;
  /** undefined: not measured by this run (e.g. RSS at 5,000 objects in a small run). */
  met: boolean | undefined;
}

export interface BenchResult {
  version: 1;
  startedAt: string;
  /** The commit measured (`git describe --always --dirty`). */
  revision: string;
  machine: Machine;
  config: BenchConfig;
  workload: Workload;
  floor: FloorPhase;
  convergence: ConvergencePhase;
  update: WavePhase;
  restart: RestartPhase;
  steady: SteadyPhase;
  delete: DeletePhase;
  operator: {
    /** Resident set of the operator started, caches synced, with nothing to do (its fixed cost). */
    fixedRssMiB: number;
    peakRssMiB: number;
    cpuSeconds: number;
    cpuSecondsPerObject: number;
  };
  /** The benchmark's own CPU seconds, to show it does not dominate the machine. */
  driverCpuSeconds: number;
  totalSeconds: number;
  targets: TargetCheck[];
}

export interface ScalingResult {
  version: 1;
  startedAt: string;
  revision: string;
  machine: Machine;
  runs: BenchResult[];
}
