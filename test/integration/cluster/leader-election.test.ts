// Leader election on a real Lease: of two contenders exactly one leads; a stopping leader winds
// its work down, then releases and the other takes over without waiting for expiry; a leader that
// dies silently is replaced only after its lease expired; a leader that cannot renew, or sees
// another holder, stops before anyone else starts; 409 races on the Lease are survived.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { KubeError } from "../../../src/kube/errors.ts";
import { type KubeObject, type LeaseObject, Leases, type ResourceType } from "../../../src/kube/types.ts";
import { createLogger } from "../../../src/log.ts";
import { type LeaderCallbacks, LeaderElector, leaderIdentity } from "../../../src/runtime/leader.ts";
import { Metrics } from "../../../src/runtime/metrics.ts";
import { budget } from "../../env/budget.ts";
import { sharedControlPlane, useNamespace } from "../../env/cluster.ts";

const ns = useNamespace("leader");
const FAST = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };
const logger = createLogger(
  { logLevel: "debug" },
  // Silent unless asked: the failure scenarios log errors on purpose.
  { write: (s: string) => void (process.env.LEADER_TEST_LOG ? process.stderr.write(s) : undefined) },
);

let kube: KubeClient;
const clients: KubeClient[] = [];
const electors: LeaderElector[] = [];
let leaseSeq = 0;

beforeAll(() => {
  kube = newClient();
});

afterAll(async () => {
  await Promise.all(electors.map((e) => e.stop({ release: false })));
  for (const c of clients) c.close();
});

function newClient(): KubeClient {
  const c = KubeClient.fromOptions({ kubeconfig: sharedControlPlane().kubeconfigPath, timeoutMs: 5000 });
  clients.push(c);
  return c;
}

interface Candidate {
  elector: LeaderElector;
  metrics: Metrics;
  /** What happened, in order: started, work-stopped, stopped-leading, new-leader:<id>. */
  events: string[];
  /** The leading work's signal, once it leads. */
  signal: AbortSignal | undefined;
  /** When the work started and when onStoppedLeading came (performance.now()). */
  startedAt: number | undefined;
  /** When the work started, by the wall clock (Date.now()), to compare with a Lease's times. */
  startedAtWall: number | undefined;
  stoppedAt: number | undefined;
  done: Promise<void>;
}

function candidate(
  lease: string,
  o: { kube?: KubeClient; timings?: typeof FAST; name?: string; onWorkStopping?: () => Promise<void> } = {},
): Candidate {
  const metrics = new Metrics({ processMetrics: false });
  const elector = new LeaderElector({
    kube: o.kube ?? kube,
    namespace: ns.name,
    name: lease,
    identity: leaderIdentity(o.name ?? "pod"),
    ...(o.timings ?? FAST),
    logger,
    metrics,
  });
  electors.push(elector);
  const c: Candidate = {
    elector,
    metrics,
    events: [],
    signal: undefined,
    startedAt: undefined,
    startedAtWall: undefined,
    stoppedAt: undefined,
    done: Promise.resolve(),
  };
  const callbacks: LeaderCallbacks = {
    onStartedLeading: async (signal) => {
      c.signal = signal;
      c.startedAt = performance.now();
      c.startedAtWall = Date.now();
      c.events.push("started");
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      await o.onWorkStopping?.();
      c.events.push("work-stopped");
    },
    onStoppedLeading: () => {
      c.stoppedAt = performance.now();
      c.events.push("stopped-leading");
    },
    onNewLeader: (id) => c.events.push(`new-leader:${id}`),
  };
  c.done = elector.run(callbacks);
  return c;
}

function newLeaseName(): string {
  return `lease-${++leaseSeq}`;
}

async function readLease(name: string): Promise<LeaseObject> {
  return kube.get<LeaseObject>(Leases, ns.name, name);
}

async function leaderGauge(c: Candidate): Promise<number | undefined> {
  const m = await c.metrics.leaderStatus.get();
  return m.values[0]?.value;
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = budget.operatorMs,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Samples both candidates until `until` resolves, failing if both ever lead at once. */
async function neverBothLead(a: Candidate, b: Candidate, until: Promise<unknown>): Promise<void> {
  let over = false;
  void until.finally(() => {
    over = true;
  });
  while (!over) {
    expect(a.elector.isLeader && b.elector.isLeader, "two leaders at once").toBe(false);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function leaderOf(a: Candidate, b: Candidate): [Candidate, Candidate] | undefined {
  if (a.elector.isLeader && !b.elector.isLeader) return [a, b];
  if (b.elector.isLeader && !a.elector.isLeader) return [b, a];
  return undefined;
}

interface Faults {
  /** Every call fails as if the apiserver were out of reach. */
  unreachable: boolean;
  /** 409s the client has seen. */
  conflicts: number;
  /** Runs once, just before the next replace (to change the Lease under the caller's feet). */
  beforeReplace: (() => Promise<void>) | undefined;
  /** The next this-many lookups wait for each other, so their callers race. */
  holdLookups: number;
}

/** A client of its own whose Lease calls can be made to misbehave. */
function faultyClient(): { client: KubeClient; faults: Faults } {
  const client = newClient();
  const faults: Faults = { unreachable: false, conflicts: 0, beforeReplace: undefined, holdLookups: 0 };
  const { find, create, replace } = {
    find: client.find.bind(client),
    create: client.create.bind(client),
    replace: client.replace.bind(client),
  };
  const reachable = () => {
    if (faults.unreachable) throw new KubeError("network", "connect ECONNREFUSED (simulated)");
  };
  const counting = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (e) {
      if (e instanceof KubeError && e.kind === "conflict") faults.conflicts++;
      throw e;
    }
  };
  const held: (() => void)[] = [];
  client.find = (async (type: ResourceType, namespace: string | undefined, name: string) => {
    reachable();
    const result = await find(type, namespace, name);
    if (faults.holdLookups > 0) {
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length < faults.holdLookups) return;
        faults.holdLookups = 0;
        for (const release of held.splice(0)) release();
      });
    }
    return result;
  }) as KubeClient["find"];
  client.create = (async (type: ResourceType, object: KubeObject) => {
    reachable();
    return counting(create(type, object));
  }) as KubeClient["create"];
  client.replace = (async (type: ResourceType, object: KubeObject) => {
    reachable();
    const before = faults.beforeReplace;
    faults.beforeReplace = undefined;
    await before?.();
    return counting(replace(type, object));
  }) as KubeClient["replace"];
  return { client, faults };
}

describe("LeaderElector", () => {
  it("lets exactly one of two contenders lead and records it on the Lease", async () => {
    const lease = newLeaseName();
    // Room for a slow renewal: a leader whose renewals stall past FAST's 1.5 s deadline on a busy
    // machine rightly steps down, which is not what this test is about.
    const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };
    const a = candidate(lease, { name: "a", timings });
    const b = candidate(lease, { name: "b", timings });
    const [leader, follower] = await waitFor("a leader", () => leaderOf(a, b));

    // Several renewals later, still one leader, the same one.
    await neverBothLead(
      a,
      b,
      new Promise((r) => setTimeout(r, 4 * timings.retryPeriodMs + timings.leaseDurationMs)),
    );
    expect(leader.elector.isLeader).toBe(true);
    expect(follower.elector.isLeader).toBe(false);
    expect(follower.events).not.toContain("started");

    const l = await readLease(lease);
    expect(l.spec?.holderIdentity).toBe(leader.elector.identity);
    expect(l.spec?.leaseDurationSeconds).toBe(4);
    expect(l.spec?.leaseTransitions).toBe(0);
    expect(l.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Date.parse(l.spec?.renewTime ?? "")).toBeGreaterThan(Date.parse(l.spec?.acquireTime ?? ""));
    expect(follower.elector.observedLeader).toBe(leader.elector.identity);
    expect(follower.events).toContain(`new-leader:${leader.elector.identity}`);
    expect(await leaderGauge(leader)).toBe(1);
    expect(await leaderGauge(follower)).toBe(0);
  });

  it("winds the work down, then releases, and the other takes over without waiting for expiry", async () => {
    const lease = newLeaseName();
    // A lease far longer than the wait below: only a release can explain a takeover in time.
    const timings = { leaseDurationMs: 60_000, renewDeadlineMs: 1500, retryPeriodMs: 250 };
    let holderWhileStopping: string | null | undefined;
    let leaderWhileStopping: boolean | undefined;
    const a: Candidate = candidate(lease, {
      name: "a",
      timings,
      onWorkStopping: async () => {
        // Still renewing while the work winds down; the Lease is still ours.
        await new Promise((r) => setTimeout(r, 3 * timings.retryPeriodMs));
        holderWhileStopping = (await readLease(lease)).spec?.holderIdentity;
        leaderWhileStopping = a.elector.isLeader;
      },
    });
    await waitFor("a leads", () => a.elector.isLeader);
    const b = candidate(lease, { name: "b", timings });
    await waitFor("b sees a", () => b.elector.observedLeader === a.elector.identity);

    const stopped = a.elector.stop();
    await neverBothLead(a, b, stopped);
    await a.done;
    expect(holderWhileStopping).toBe(a.elector.identity);
    expect(leaderWhileStopping).toBe(true);
    expect(a.signal?.aborted).toBe(true);
    expect(a.events).toEqual([`new-leader:${a.elector.identity}`, "started", "work-stopped"]);
    expect(a.events).not.toContain("stopped-leading");
    expect(a.elector.isLeader).toBe(false);
    expect(await leaderGauge(a)).toBe(0);

    await waitFor("b takes over", () => b.elector.isLeader, 10_000);
    const l = await readLease(lease);
    expect(l.spec?.holderIdentity).toBe(b.elector.identity);
    expect(l.spec?.leaseTransitions).toBe(1);
    expect(l.spec?.leaseDurationSeconds).toBe(60);
    await b.elector.stop();
    expect((await readLease(lease)).spec?.holderIdentity).toBe("");
  });

  it("takes over from a leader that stopped renewing only once its lease expired", async () => {
    const lease = newLeaseName();
    const a = candidate(lease, { name: "a" });
    await waitFor("a leads", () => a.elector.isLeader);
    const b = candidate(lease, { name: "b" });
    await waitFor("b sees a", () => b.elector.observedLeader === a.elector.identity);
    // Let b watch a renew for a while, so b's expiry clock follows a's renewals.
    await new Promise((r) => setTimeout(r, 3 * FAST.retryPeriodMs));

    await a.elector.stop({ release: false }); // as if killed: no release, no more renewals
    const last = await readLease(lease);
    expect(last.spec?.holderIdentity).toBe(a.elector.identity);

    await waitFor("b takes over", () => b.startedAt);
    // b must not have taken over before a's last renewal expired: a lease duration after its
    // renewTime (a's clock, this machine's), which b saw only once it was written. Measured from
    // that renewal itself, not from the stop: on a busy machine a's renewals may come later than
    // every retry period, so the last one may be well before the stop. (A few ms: renewTime is
    // read to the millisecond, and the wall clock may be slewed.)
    expect((b.startedAtWall ?? 0) - Date.parse(last.spec?.renewTime ?? "")).toBeGreaterThanOrEqual(
      FAST.leaseDurationMs - 10,
    );
    const l = await readLease(lease);
    expect(l.spec?.holderIdentity).toBe(b.elector.identity);
    expect(l.spec?.leaseTransitions).toBe(1);
  });

  it("stops leading when it cannot renew within the renew deadline, before anyone else starts", async () => {
    const lease = newLeaseName();
    const { client, faults } = faultyClient();
    const a = candidate(lease, { name: "a", kube: client });
    await waitFor("a leads", () => a.elector.isLeader);
    const b = candidate(lease, { name: "b" });
    await waitFor("b sees a", () => b.elector.observedLeader === a.elector.identity);

    faults.unreachable = true;
    await waitFor("a gives up", () => a.events.includes("stopped-leading"));
    expect(a.elector.isLeader).toBe(false);
    expect(a.signal?.aborted).toBe(true);
    expect(await leaderGauge(a)).toBe(0);
    await a.done;
    expect(a.events).toContain("work-stopped");

    await waitFor("b takes over", () => b.startedAt);
    expect(b.startedAt).toBeGreaterThan(a.stoppedAt ?? Number.POSITIVE_INFINITY);
  });

  it("stops leading at once when another holder has taken the Lease", async () => {
    const lease = newLeaseName();
    const a = candidate(lease, { name: "a" });
    await waitFor("a leads", () => a.elector.isLeader);
    const current = await readLease(lease);
    await kube.replace(Leases, {
      ...current,
      spec: {
        ...current.spec,
        holderIdentity: "intruder",
        leaseDurationSeconds: 60,
        renewTime: current.spec?.renewTime ?? null,
      },
    });

    await waitFor("a gives up", () => a.events.includes("stopped-leading"));
    await a.done;
    expect(a.elector.isLeader).toBe(false);
    expect(a.events).toContain("new-leader:intruder");
    // a did not fight back: the Lease still names the intruder.
    await new Promise((r) => setTimeout(r, 2 * FAST.retryPeriodMs));
    expect((await readLease(lease)).spec?.holderIdentity).toBe("intruder");
  });

  it("survives a 409 on the Lease: reads it again and decides again", async () => {
    const lease = newLeaseName();
    // Someone else writes the Lease between our read and our write of it.
    const { client, faults } = faultyClient();
    const a = candidate(lease, { name: "a" });
    await waitFor("a leads", () => a.elector.isLeader);
    await a.elector.stop(); // released: free for the taking
    faults.beforeReplace = async () => {
      const l = await readLease(lease);
      await kube.replace(Leases, { ...l, metadata: { ...l.metadata, labels: { touched: "yes" } } });
    };
    const b = candidate(lease, { name: "b", kube: client });
    await waitFor("b leads", () => b.elector.isLeader);
    expect(faults.beforeReplace).toBeUndefined();
    expect(faults.conflicts).toBe(1);
    const l = await readLease(lease);
    expect(l.spec?.holderIdentity).toBe(b.elector.identity);
    expect(l.metadata.labels?.touched).toBe("yes");
    expect(l.spec?.leaseTransitions).toBe(1);
  });

  it("survives two contenders creating the Lease at the same moment", async () => {
    const lease = newLeaseName();
    const { client, faults } = faultyClient();
    // Both first lookups wait for each other: both see no Lease, and both create it. The first
    // waits as long as the second takes to start, which on a busy machine can outlast FAST's renew
    // deadline (the attempt would give up and look again, seeing the other's Lease): a deadline
    // from the budget keeps both in their first attempt.
    faults.holdLookups = 2;
    const timings = { ...FAST, leaseDurationMs: budget.requestMs + 2_000, renewDeadlineMs: budget.requestMs };
    const a = candidate(lease, { name: "a", kube: client, timings });
    const b = candidate(lease, { name: "b", kube: client, timings });
    const [leader, follower] = await waitFor("a leader", () => leaderOf(a, b));
    expect(faults.holdLookups).toBe(0);
    // The winner may lead before the loser's create has come back refused: wait for that answer.
    await waitFor("the second create refused", () => faults.conflicts > 0);
    expect(faults.conflicts).toBe(1);
    await waitFor(
      "the other sees the leader",
      () => follower.elector.observedLeader === leader.elector.identity,
    );
    await neverBothLead(a, b, new Promise((r) => setTimeout(r, 4 * FAST.retryPeriodMs)));
    expect((await readLease(lease)).spec?.holderIdentity).toBe(leader.elector.identity);
  });
});
