// deploy/examples/ on each older Harbor release the operator supports (the rest of the end-to-end
// layer runs on the newest): every example becomes Ready, each connection shows the release, and
// once they are all deleted Harbor holds what it held before they were applied.
//
// The examples live in namespaces of their own and a ClusterHarborConnection, so the file starts a
// control plane of its own and one operator watching every namespace, as the demo does; each
// release gets a fresh emulator.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { type ControlPlane, startControlPlane } from "../env/controlplane/launcher.ts";
import { type Emulator, startEmulator } from "../env/emulator/index.ts";
import {
  addExampleAdapters,
  exampleManifests,
  exampleResources,
  OPERATOR_ENV,
  passExampleGcRun,
} from "../env/examples.ts";
import { clusterApi } from "../env/kube-api.ts";
import { type Kubectl, kubectl } from "../env/kubectl.ts";
import { type OperatorProcess, spawnOperator } from "../env/operator.ts";
import { until } from "../env/until.ts";

/** The supported releases older than the newest, each with every example. */
const OLDER_RELEASES = ["2.12.4", "2.13.5", "2.14.4"];

interface Example {
  kind: string;
  metadata: { namespace?: string; name: string };
  status?: {
    harborVersion?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

/** Every kind the examples have, as the REST API names it. */
const KINDS = [...new Set(exampleResources().map((o) => o.kind.toLowerCase()))];

let controlPlane: ControlPlane;
let k: Kubectl;
let operator: OperatorProcess;

beforeAll(async () => {
  controlPlane = await startControlPlane({ crds: `${import.meta.dirname}/../../crds` });
  k = kubectl(controlPlane.kubeconfigPath, controlPlane.binaries.kubectl);
  operator = spawnOperator(
    [
      `--kubeconfig=${controlPlane.kubeconfigPath}`,
      "--leader-elect=false",
      "--metrics-bind-address=127.0.0.1:0",
      "--health-probe-bind-address=127.0.0.1:0",
    ],
    OPERATOR_ENV,
  );
}, budget.startMs);

afterAll(async () => {
  await operator?.stop();
  await controlPlane?.stop();
});

/** Every example object in the cluster, of every kind. */
async function examples(): Promise<Example[]> {
  const api = clusterApi(controlPlane.kubeconfigPath);
  const lists = await Promise.all(KINDS.map((kind) => api.list<Example>(kind, undefined)));
  return lists.flatMap((l) => l.items);
}

const ready = (o: Example) => o.status?.conditions?.find((c) => c.type === "Ready");

/** What an example's Ready says, for a failure's message. */
const describeReady = (o: Example) => {
  const c = ready(o);
  return `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}: ${c ? `${c.status} ${c.reason}: ${c.message}` : "no status yet"}`;
};

/**
 * What a Harbor holds that the examples create or set, by name (and each system job's schedule
 * type): a fresh Harbor's is what it must hold again once the examples are gone.
 */
async function inventory(emulator: Emulator): Promise<Record<string, unknown>> {
  const get = async (path: string): Promise<unknown> => {
    const res = await fetch(`${emulator.url}/api/v2.0${path}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${emulator.adminUsername}:${emulator.adminPassword}`).toString("base64")}`,
      },
    });
    // Harbor cannot read a scan-all schedule while it has no scanner: that is what it holds then.
    if (res.status === 412) return { precondition: await res.text() };
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    // A schedule never set is an empty answer.
    return text ? JSON.parse(text) : null;
  };
  const names = async (path: string, key = "name") =>
    ((await get(path)) as Array<Record<string, unknown>>).map((i) => i[key]).sort();
  const scheduleType = async (path: string) => {
    const got = (await get(path)) as { schedule?: { type?: string }; precondition?: string } | null;
    return got?.precondition ? "unreadable: no scanner" : (got?.schedule?.type ?? "None");
  };
  return {
    projects: await names("/projects?page_size=100"),
    registries: await names("/registries?page_size=100"),
    replicationPolicies: await names("/replication/policies?page_size=100"),
    globalLabels: await names("/labels?scope=g&page_size=100"),
    userGroups: await names("/usergroups?page_size=100", "group_name"),
    users: await names("/users?page_size=100", "username"),
    robots: await names("/robots?page_size=100"),
    scanners: await names("/scanners?page_size=100"),
    preheatInstances: await names("/p2p/preheat/instances?page_size=100"),
    gcSchedule: await scheduleType("/system/gc/schedule"),
    purgeSchedule: await scheduleType("/system/purgeaudit/schedule"),
    scanAllSchedule: await scheduleType("/system/scanAll/schedule"),
  };
}

describe.each(OLDER_RELEASES)("Harbor %s", (release) => {
  test("every example Ready with the release in its connection's status; all deleted, Harbor holds what it held before", {
    timeout: budget.longTestMs,
  }, async () => {
    const emulator = await startEmulator({ host: "127.0.0.1", harborVersion: release });
    try {
      addExampleAdapters(emulator.control);
      const before = await inventory(emulator);
      const manifests = exampleManifests({
        url: emulator.url,
        username: emulator.adminUsername,
        password: emulator.adminPassword,
      });
      await k.apply(manifests);
      await passExampleGcRun(emulator.control);

      const all = await until(
        `every example Ready on Harbor ${release}`,
        async () => {
          const found = await examples();
          return found.length === exampleResources().length && found.every((o) => ready(o)?.status === "True")
            ? found
            : undefined;
        },
        budget.longTestMs / 2,
      ).catch(async (e: unknown) => {
        const waiting = (await examples()).filter((o) => ready(o)?.status !== "True");
        throw new Error(`${(e as Error).message}\n${waiting.map(describeReady).join("\n")}`);
      });
      const connections = all.filter((o) => o.kind.endsWith("HarborConnection"));
      expect(connections.length).toBeGreaterThan(0);
      for (const c of connections) expect(c.status?.harborVersion, c.metadata.name).toMatch(`v${release}`);

      // As a user removes them: the whole set, namespaces included, in one delete.
      await k.run(["delete", "--wait=false", "--ignore-not-found", "-f", "-"], {
        input: JSON.stringify({ kind: "List", apiVersion: "v1", items: manifests }),
      });
      await until(
        `every example gone on Harbor ${release}`,
        async () => ((await examples()).length === 0 ? true : undefined),
        budget.longTestMs / 2,
      ).catch(async (e: unknown) => {
        throw new Error(`${(e as Error).message}\n${(await examples()).map(describeReady).join("\n")}`);
      });
      expect(await inventory(emulator)).toEqual(before);
      // Their namespaces too, before the next release applies the same ones.
      const namespaces = manifests.filter((m) => m.kind === "Namespace").map((m) => m.metadata.name);
      const api = clusterApi(controlPlane.kubeconfigPath);
      await until(
        "the examples' namespaces gone",
        async () => {
          const left = await Promise.all(namespaces.map((n) => api.find("namespace", undefined, n)));
          return left.every((n) => n === undefined) ? true : undefined;
        },
        budget.longTestMs / 2,
      );
    } finally {
      await emulator.close();
    }
  });
});
