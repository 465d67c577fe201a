// The Argo CD health check (deploy/argocd/health.lua), run by a real Lua 5.1 interpreter in the
// sandbox Argo CD gives it, on the statuses the operator writes; and the argocd-cm snippet that
// carries it to Argo CD.
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { GROUP } from "../../src/api/common.ts";
import { ALL_DEFINITIONS as KINDS } from "../../src/controllers/kind-list.ts";
import { findLua, runArgoHealth } from "../env/lua.ts";

const argocd = join(import.meta.dirname, "..", "..", "deploy", "argocd");
const script = join(argocd, "health.lua");

interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

const at = "2026-01-01T00:00:00Z";
const cond = (type: string, status: Condition["status"], reason: string, message = "") => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
});

/** A HarborProject as the apiserver returns it, with the status the operator would write. */
function resource(
  o: {
    generation?: number;
    observedGeneration?: number;
    conditions?: object[];
    kind?: string;
    annotations?: Record<string, string>;
  } = {},
) {
  const status =
    o.observedGeneration === undefined && o.conditions === undefined
      ? undefined
      : {
          ...(o.observedGeneration === undefined ? {} : { observedGeneration: o.observedGeneration }),
          ...(o.conditions ? { conditions: o.conditions } : {}),
          harborId: 7,
        };
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: o.kind ?? "HarborProject",
    metadata: {
      name: "team",
      namespace: "apps",
      generation: o.generation ?? 2,
      uid: "u-1",
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: { connectionRef: { name: "harbor" }, public: false },
    ...(status ? { status } : {}),
  };
}

const ready = [cond("Ready", "True", "Synced"), cond("Synced", "True", "Synced")];

describe("Argo CD health check", () => {
  beforeAll(() => {
    findLua();
  }, 240_000);

  test("Ready=True for the current generation → Healthy", async () => {
    expect(await runArgoHealth(script, resource({ observedGeneration: 2, conditions: ready }))).toEqual({
      status: "Healthy",
      message: "Synced",
    });
  });

  test("Ready=False with a reason → Progressing, with the reason and message", async () => {
    const waiting = [
      cond(
        "Ready",
        "False",
        "ConnectionNotReady",
        'HarborConnection "harbor" in namespace "apps" does not exist',
      ),
      cond("Synced", "False", "ConnectionNotReady", "…"),
    ];
    expect(await runArgoHealth(script, resource({ observedGeneration: 2, conditions: waiting }))).toEqual({
      status: "Progressing",
      message: 'ConnectionNotReady: HarborConnection "harbor" in namespace "apps" does not exist',
    });
    // Unknown (e.g. while a call to Harbor is still failing) waits as well.
    const unknown = [cond("Ready", "Unknown", "Error", "connect ECONNREFUSED")];
    expect(await runArgoHealth(script, resource({ observedGeneration: 2, conditions: unknown }))).toEqual({
      status: "Progressing",
      message: "Error: connect ECONNREFUSED",
    });
  });

  test("Stalled=True → Degraded with its message", async () => {
    const stalled = [
      cond("Ready", "False", "InvalidReference", "HarborProject team uses another Harbor connection"),
      cond("Synced", "False", "InvalidReference", "HarborProject team uses another Harbor connection"),
      cond("Stalled", "True", "InvalidReference", "HarborProject team uses another Harbor connection"),
    ];
    expect(await runArgoHealth(script, resource({ observedGeneration: 2, conditions: stalled }))).toEqual({
      status: "Degraded",
      message: "InvalidReference: HarborProject team uses another Harbor connection",
    });
  });

  test("a status of an older generation → Progressing, even if it said Ready or Stalled", async () => {
    const expected = {
      status: "Progressing",
      message: "Waiting for the operator to act on generation 3 (the status describes generation 2)",
    };
    expect(
      await runArgoHealth(script, resource({ generation: 3, observedGeneration: 2, conditions: ready })),
    ).toEqual(expected);
    // The user may just have fixed what stalled it.
    const stalled = [cond("Ready", "False", "Invalid", "bad"), cond("Stalled", "True", "Invalid", "bad")];
    expect(
      await runArgoHealth(script, resource({ generation: 3, observedGeneration: 2, conditions: stalled })),
    ).toEqual(expected);
  });

  test("no status yet → Progressing", async () => {
    expect(await runArgoHealth(script, resource())).toEqual({
      status: "Progressing",
      message: "Waiting for the operator to report a status",
    });
    // A status without conditions is not an answer either.
    expect(await runArgoHealth(script, resource({ observedGeneration: 2 }))).toEqual({
      status: "Progressing",
      message: "Waiting for the Ready condition",
    });
  });

  test("paused by annotation → Suspended", async () => {
    const paused = [
      cond("Ready", "True", "Paused", "reconciliation is paused by the harborconfig.io/paused annotation"),
      cond("Synced", "False", "Paused", "reconciliation is paused by the harborconfig.io/paused annotation"),
    ];
    expect(await runArgoHealth(script, resource({ observedGeneration: 2, conditions: paused }))).toEqual({
      status: "Suspended",
      message: "Paused: reconciliation is paused by the harborconfig.io/paused annotation",
    });
  });

  test("paused, then changed in Git: still Suspended, saying the change waits for the unpause", async () => {
    // The operator keeps the generation it last applied (2) while the spec moves on to 3.
    const paused = [
      cond("Ready", "True", "Paused", "reconciliation is paused by the harborconfig.io/paused annotation"),
    ];
    const annotations = { "harborconfig.io/paused": "true" };
    expect(
      await runArgoHealth(
        script,
        resource({ generation: 3, observedGeneration: 2, conditions: paused, annotations }),
      ),
    ).toEqual({
      status: "Suspended",
      message:
        "Paused by the harborconfig.io/paused annotation: generation 3 waits for the unpause (the status describes generation 2)",
    });
    // Annotated before the operator said so, or even before any status: Suspended at once.
    expect(
      await runArgoHealth(script, resource({ observedGeneration: 2, conditions: ready, annotations })),
    ).toEqual({
      status: "Suspended",
      message: "Paused by the harborconfig.io/paused annotation",
    });
    expect(await runArgoHealth(script, resource({ annotations }))).toMatchObject({ status: "Suspended" });
    // The annotation taken off: the pending change is work in progress again.
    expect(
      await runArgoHealth(script, resource({ generation: 3, observedGeneration: 2, conditions: ready })),
    ).toMatchObject({ status: "Progressing" });
  });

  test("runs: Pending and Running → Progressing, Succeeded → Healthy, Failed/Stopped/Skipped → Degraded", async () => {
    // The conditions the run lifecycle writes (src/runtime/run.ts) for each phase.
    const run = (phase: string, conditions: object[]) => ({
      ...resource({ kind: "HarborGarbageCollectionRun", generation: 1, observedGeneration: 1, conditions }),
      status: { observedGeneration: 1, phase, conditions },
    });
    const health = async (phase: string, conditions: object[]) =>
      runArgoHealth(script, run(phase, conditions));
    expect(
      await health("Pending", [
        cond("Ready", "False", "WaitingForGC", "GC 3 is running in Harbor"),
        cond("Reconciling", "True", "WaitingForGC", "GC 3 is running in Harbor"),
      ]),
    ).toEqual({ status: "Progressing", message: "WaitingForGC: GC 3 is running in Harbor" });
    expect(
      await health("Running", [
        cond("Ready", "False", "Running", "GC 12 is running in Harbor"),
        cond("Reconciling", "True", "Running", "GC 12 is running in Harbor"),
      ]),
    ).toEqual({ status: "Progressing", message: "Running: GC 12 is running in Harbor" });
    expect(
      await health("Succeeded", [cond("Ready", "True", "Succeeded", "GC 12 succeeded: freed 5 MiB")]),
    ).toEqual({ status: "Healthy", message: "Succeeded: GC 12 succeeded: freed 5 MiB" });
    for (const phase of ["Failed", "Stopped", "Skipped"]) {
      const ended = [
        cond("Ready", "False", phase, `GC 12: ${phase}`),
        cond("Stalled", "True", phase, `GC 12: ${phase}`),
      ];
      expect(await health(phase, ended), phase).toEqual({
        status: "Degraded",
        message: `${phase}: GC 12: ${phase}`,
      });
    }
  });

  test("every kind of the group is judged the same way", async () => {
    for (const def of KINDS) {
      const obj = resource({ kind: def.kind, observedGeneration: 2, conditions: ready });
      expect((await runArgoHealth(script, obj)).status, def.kind).toBe("Healthy");
    }
  });

  test("the sandbox is Argo CD's: a script that needs the string library fails", async () => {
    // Proves that the checks above would catch a health.lua that only works with open libraries.
    const dir = tmpdir();
    const uses = join(dir, `hco-uses-string-${process.pid}.lua`);
    writeFileSync(uses, 'return { status = string.upper("healthy") }');
    await expect(runArgoHealth(uses, resource())).rejects.toThrow(/string/);
    const method = join(dir, `hco-uses-method-${process.pid}.lua`);
    writeFileSync(method, 'local s = "Healthy" return { status = s:sub(1) }');
    await expect(runArgoHealth(method, resource())).rejects.toThrow(/index/);
  });

  test("argocd-cm.yaml carries health.lua verbatim, for every kind of the group", () => {
    const cm = parse(readFileSync(join(argocd, "argocd-cm.yaml"), "utf8")) as {
      metadata: { name: string; namespace: string };
      data: Record<string, string>;
    };
    expect(cm.metadata).toEqual({ name: "argocd-cm", namespace: "argocd" });
    const customizations = parse(cm.data["resource.customizations"] ?? "") as Record<
      string,
      { "health.lua"?: string }
    >;
    expect(Object.keys(customizations)).toEqual([`${GROUP}/*`]);
    expect(customizations[`${GROUP}/*`]?.["health.lua"]).toBe(readFileSync(script, "utf8"));
    // Argo CD matches "<group>/<kind>" against the key; every kind is in the one group.
    for (const def of KINDS)
      expect(`${GROUP}/${def.kind}`).toMatch(new RegExp(`^${GROUP.replace(".", "\\.")}/`));
  });
});
