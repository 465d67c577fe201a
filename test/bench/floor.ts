// The floor: a reference controller, part of the benchmark and not of the operator, that does the
// least any controller of these kinds must do to show an object Ready: it watches every kind of the
// mix and writes one Ready condition into each object's status, as fast as the apiserver takes it.
// No Harbor, no finalizer, no Events. Its time from the first create until all Ready is the
// yardstick the operator's convergence is judged against (see docs/performance.md).
//
//   node test/bench/floor.ts --kubeconfig=FILE --namespace=NS [--workers=N]
//
// Prints "floor ready" once every kind is listed; on SIGTERM prints "floor writes N" and exits.
import { parseArgs } from "node:util";
import { KubeClient } from "../../src/kube/client.ts";
import type { ManagedObject } from "../../src/runtime/external-client.ts";
import { workloadInformers } from "./tracker.ts";
import type { KindName } from "./types.ts";
import { TYPES } from "./workload.ts";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    namespace: { type: "string" },
    workers: { type: "string", default: "16" },
  },
});
const namespace = values.namespace ?? "";
const kube = KubeClient.fromOptions({
  ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
  userAgent: "bench-floor",
});

/** Whether the object already shows Ready for its generation. */
function showsReady(o: ManagedObject): boolean {
  const generation = o.metadata.generation ?? 0;
  const ready = o.status?.conditions?.find((c) => c.type === "Ready");
  return ready?.status === "True" && (o.status?.observedGeneration ?? 0) >= generation;
}

// The queue: keys waiting, each at most once, worked by a fixed number of workers.
const queued = new Set<string>();
let writes = 0;
/** Idle workers, each woken by the next key queued. */
const idle: Array<() => void> = [];

function enqueue(kind: KindName, o: ManagedObject): void {
  if (o.metadata.deletionTimestamp || showsReady(o)) return;
  queued.add(`${kind}/${o.metadata.name}`);
  idle.shift()?.();
}

async function worker(): Promise<never> {
  for (;;) {
    const key = queued.values().next().value;
    if (key === undefined) {
      await new Promise<void>((resolve) => idle.push(resolve));
      continue;
    }
    queued.delete(key);
    const [kind, name] = key.split("/") as [KindName, string];
    const o = informers.get(kind)?.get(`${namespace}/${name}`);
    if (!o || o.metadata.deletionTimestamp || showsReady(o)) continue;
    const generation = o.metadata.generation ?? 1;
    try {
      await kube.patchStatus(TYPES[kind], namespace, name, {
        observedGeneration: generation,
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "Floor",
            message: "Written by the benchmark's reference controller",
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
            observedGeneration: generation,
          },
        ],
      });
      writes++;
    } catch {
      // Deleted meanwhile, or a conflict: the watch brings the object back if it still needs it.
    }
  }
}

const informers = workloadInformers(kube, namespace);
for (const [kind, informer] of informers) {
  informer.on({ add: (o) => enqueue(kind, o), update: (_old, o) => enqueue(kind, o) });
  informer.start();
}
await Promise.all([...informers.values()].map((i) => i.waitForSync(AbortSignal.timeout(60_000))));
for (let i = 0; i < Number(values.workers); i++) void worker();
process.stdout.write("floor ready\n");

process.once("SIGTERM", () => {
  process.stdout.write(`floor writes ${writes}\n`, () => process.exit(0));
});
