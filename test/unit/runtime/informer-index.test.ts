// The informer's indexes: an object is found by the value its index derives from it, through adds,
// changes of that value, deletions, and objects the index cannot read (not indexed).
import pino from "pino";
import { expect, test } from "vitest";
import type { KubeClient, WatchEnd, WatchEvent } from "../../../src/kube/client.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { Informer } from "../../../src/runtime/informer.ts";

const type: ResourceType = {
  group: "x.io",
  version: "v1",
  plural: "things",
  kind: "Thing",
  namespaced: true,
};
type Thing = KubeObject & { spec?: { projectRef?: { name: string } } };
const thing = (name: string, rv: string, project?: string): Thing => ({
  apiVersion: "x.io/v1",
  kind: "Thing",
  metadata: { name, namespace: "ns", resourceVersion: rv },
  spec: project === undefined ? {} : { projectRef: { name: project } },
});

test("finds objects by index value through adds, changes and deletions", async () => {
  let send: (e: WatchEvent<Thing>) => void = () => {};
  let watching: () => void = () => {};
  const watched = new Promise<void>((resolve) => {
    watching = resolve;
  });
  const kube = {
    list: async () => ({
      items: [thing("a", "1", "p1"), thing("b", "1", "p1"), thing("c", "1")],
      resourceVersion: "1",
    }),
    watch: (_t: ResourceType, o: { signal?: AbortSignal }, onEvent: (e: WatchEvent<Thing>) => void) => {
      send = onEvent;
      watching();
      return new Promise<WatchEnd>((resolve) =>
        o.signal?.addEventListener("abort", () => resolve("aborted")),
      );
    },
  } as unknown as KubeClient;
  const informer = new Informer<Thing>({ client: kube, type, logger: pino({ level: "silent" }) });
  // Reads spec.projectRef.name without a guard: an object without one throws, and is not indexed.
  informer.addIndex(
    "project",
    (o) => `${o.metadata.namespace}/${(o.spec as { projectRef: { name: string } }).projectRef.name}`,
  );
  informer.start();
  await informer.waitForSync();
  await watched;
  const names = (value: string) =>
    informer
      .byIndex("project", value)
      .map((o) => o.metadata.name)
      .sort();
  expect(names("ns/p1")).toEqual(["a", "b"]);
  expect(names("ns/p2")).toEqual([]);

  send({ type: "MODIFIED", object: thing("b", "2", "p2") });
  send({ type: "ADDED", object: thing("d", "2", "p2") });
  send({ type: "MODIFIED", object: thing("c", "2", "p1") });
  expect(names("ns/p1")).toEqual(["a", "c"]);
  expect(names("ns/p2")).toEqual(["b", "d"]);

  send({ type: "DELETED", object: thing("a", "3", "p1") });
  send({ type: "MODIFIED", object: thing("d", "3") });
  expect(names("ns/p1")).toEqual(["c"]);
  expect(names("ns/p2")).toEqual(["b"]);
  await informer.stop();
});
