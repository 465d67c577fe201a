// What users read: `kubectl get -o wide` of every kind (the Harbor name never empty, no raw JSON),
// the end of a replication execution in status and in an Event, why a webhook
// delivery failed, and an Event when an object deleted outside the operator is created again.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { sharedControlPlane } from "../env/cluster.ts";
import { type LoopbackServer, listenOnLoopback } from "../env/http.ts";
import { useOperator } from "../env/operator.ts";
import { logEntries } from "../env/operator-log.ts";
import {
  eventsOf as eventsIn,
  harborIdOf,
  PULL,
  project,
  type ReplicationPolicyCR,
  registry,
  replicationPolicy,
  robot,
  type WebhookPolicyCR,
  webhookPolicy,
} from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

// Delivery status and runs Harbor starts by itself are looked at every status refresh: short here.
const op = useOperator({ namespacePrefix: "present", extraArgs: ["--status-refresh-interval=4s"] });

type Execution = NonNullable<NonNullable<ReplicationPolicyCR["status"]>["lastExecution"]>;

const eventsOf = (kind: string, name: string) => eventsIn(op.kubectl, name, kind);

/**
 * `kubectl get <resource> -o wide` as rows of named cells: kubectl pads every column to its
 * widest cell, so the header's word positions cut each line (a header such as "HARBOR ID" or a
 * cell such as "A, B" holds single spaces, columns are at least three apart).
 */
async function wide(resource: string): Promise<Array<Record<string, string>>> {
  const [header = "", ...lines] = (await op.kubectl.run(["get", resource, "-o", "wide"])).split("\n");
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines
    .filter((l) => l.trim())
    .map((line) =>
      Object.fromEntries(
        starts.map((c, i) => [c.name, line.slice(c.at, starts[i + 1]?.at ?? line.length).trim()]),
      ),
    );
}

/** A loopback webhook target that refuses every delivery with a 500 and a short text. */
let refuser: LoopbackServer | undefined;
let refuserUrl = "";

beforeAll(async () => {
  refuser = await listenOnLoopback((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(500).end("not today"));
  });
  refuserUrl = `${refuser.url}/hook`;
  await op.kubectl.apply([project("team"), registry("target")]);
  await op.waitReady("harborproject", "team");
  await op.waitReady("harborregistry", "target");
});

afterAll(async () => {
  await refuser?.close();
});

describe("kubectl get -o wide", () => {
  test("every kind shows its Harbor name and readable columns", async () => {
    await op.kubectl.apply([
      robot("puller", {
        projectRef: { name: "team" },
        permissions: [{ access: PULL }],
      }),
      replicationPolicy("mirror", {
        name: "Nightly mirror",
        direction: "push",
        registryRef: { name: "target" },
      }),
      webhookPolicy("ci", {
        projectRef: { name: "team" },
        eventTypes: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
        targets: [{ address: "https://ci.example.com/hooks" }],
      }),
    ]);
    for (const [kind, name] of [
      ["harborrobot", "puller"],
      ["harborreplicationpolicy", "mirror"],
      ["harborwebhookpolicy", "ci"],
    ] as const) {
      await op.waitReady(kind, name);
    }

    const expected: Array<[string, string, string]> = [
      // kind, resource name, name in Harbor (defaulted from metadata.name unless spec.name is set)
      ["harborproject", "team", "team"],
      ["harborregistry", "target", "target"],
      ["harborrobot", "puller", "puller"],
      ["harborreplicationpolicy", "mirror", "Nightly mirror"],
      ["harborwebhookpolicy", "ci", "ci"],
    ];
    for (const [kind, name, harborName] of expected) {
      const row = (await wide(kind)).find((r) => r.NAME === name);
      expect(row, `${kind} ${name}`).toBeDefined();
      expect(row?.["HARBOR NAME"], `${kind} HARBOR NAME`).toBe(harborName);
      expect(row?.READY).toBe("True");
      expect(row?.["HARBOR ID"]).toMatch(/^\d+$/);
      // No cell is a JSON list or object.
      for (const [column, cell] of Object.entries(row ?? {})) {
        expect(cell, `${kind} ${column}`).not.toMatch(/^[[{]/);
      }
    }
    const hook = (await wide("harborwebhookpolicy")).find((r) => r.NAME === "ci");
    expect(hook?.EVENTS).toBe("DELETE_ARTIFACT, PUSH_ARTIFACT");
    expect(hook?.PROJECT).toBe("team");
    const puller = (await wide("harborrobot")).find((r) => r.NAME === "puller");
    expect(puller?.ROBOT).toBe("robot$team+puller");
    expect(puller?.SECRET).toBe("puller");
    const connection = (await wide("harborconnection")).find((r) => r.NAME === op.connection);
    expect(connection?.READY).toBe("True");
    expect(connection?.URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(connection?.VERSION).toMatch(/^v\d/);
    // The category lists them all, across namespaces.
    const all = await op.kubectl.run(["get", "harbor", "-A"]);
    for (const [kind, name] of expected) expect(all).toContain(`${kind}.harborconfig.io/${name}`);
  });
});

describe("the documented check of a robot's pull secret", () => {
  /** The commands of docs/kinds/harbor-robot.md, with its placeholders set to this test's Harbor, Secret and repository. */
  async function readmeCheck(o: {
    secret: string;
    repo: string;
    wrongPassword?: boolean;
  }): Promise<string[]> {
    const readme = readFileSync(
      join(import.meta.dirname, "..", "..", "docs", "kinds", "harbor-robot.md"),
      "utf8",
    );
    const from = readme.indexOf("\n## Check that a robot's pull secret works\n");
    expect(from).toBeGreaterThan(0);
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from))?.[1] ?? "";
    const { kubeconfigPath, kubectl } = sharedControlPlane();
    const script = [
      "set -euo pipefail",
      `kubectl() { command ${JSON.stringify(kubectl)} --kubeconfig ${JSON.stringify(kubeconfigPath)} -n ${op.namespace} "$@"; }`,
      block
        .replace(/^harbor=\S+/m, `harbor=${op.emulator.url}`)
        .replace(/^secret=\S+/m, `secret=${o.secret}`)
        .replace(/^repo=\S+/m, `repo=${o.repo}`)
        .replace(/^(pass=.*)$/m, o.wrongPassword ? "$1\npass=not-the-secret" : "$1"),
    ].join("\n");
    // Not spawnSync: the emulator answering curl runs in this process.
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "bash",
        ["-c", script],
        { encoding: "utf8", timeout: budget.requestMs },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout.trim().split("\n");
  }

  test("tells a working secret from a wrong one, and shows what the robot may do", async () => {
    await op.kubectl.apply(
      robot("checker", {
        projectRef: { name: "team" },
        permissions: [{ access: PULL }],
      }),
    );
    await op.waitReady("harborrobot", "checker");
    expect(await readmeCheck({ secret: "checker", repo: "team/app" })).toEqual(["200", '["pull"]']);
    // A wrong secret: the login without a scope is refused; with a scope Harbor still answers 200
    // (anonymously), which is why the docs check the token's actions instead.
    expect(await readmeCheck({ secret: "checker", repo: "team/app", wrongPassword: true })).toEqual([
      "401",
      "[]",
    ]);
    // Where the robot has no permission, it may do nothing.
    await op.kubectl.apply(project("elsewhere"));
    await op.waitReady("harborproject", "elsewhere");
    expect(await readmeCheck({ secret: "checker", repo: "elsewhere/app" })).toEqual(["200", "[]"]);
  });
});

describe("replication executions", () => {
  const waitExecution = (name: string, done: (e: Execution) => boolean) =>
    op.waitFor<ReplicationPolicyCR>(
      "harborreplicationpolicy",
      name,
      (o) => o.status?.lastExecution !== undefined && done(o.status.lastExecution),
    );

  // A run copies what the policy's filters select of the emulated repositories.
  beforeAll(async () => {
    await op.harbor.projects.create({ project_name: "rep-src", metadata: { public: "false" } });
    op.emulator.control.projects.pushArtifact("rep-src", "a", { tag: "1" });
    op.emulator.control.projects.pushArtifact("rep-src", "b", { tag: "1" });
  });

  test("the end of a run shows in status, and an Event says how it went", async () => {
    op.emulator.control.replication.setPlan({ durationMs: 3_000 });
    try {
      await op.kubectl.apply(
        replicationPolicy("once", {
          direction: "push",
          registryRef: { name: "target" },
          filters: { name: "rep-src/a" },
          runOnCreate: true,
        }),
      );
      const started = await waitExecution("once", (e) => e.status === "InProgress");
      const done = await waitExecution("once", (e) => e.status === "Succeed");
      expect(done.status?.lastExecution).toMatchObject({
        id: started.status?.lastExecution?.id,
        total: 1,
        succeeded: 1,
      });
      // The Event is written after the status (expect.poll's own default is 1 s: the budget's wait).
      await expect
        .poll(async () => (await eventsOf("HarborReplicationPolicy", "once")).map((e) => e.reason), {
          timeout: budget.operatorMs,
        })
        .toContain("ReplicationSucceeded");
      const event = (await eventsOf("HarborReplicationPolicy", "once")).find(
        (e) => e.reason === "ReplicationSucceeded",
      );
      expect(event?.type).toBe("Normal");
      expect(event?.message).toMatch(
        new RegExp(
          `^Replication execution ${started.status?.lastExecution?.id} \\(manual\\) succeeded in \\d+ s: 1 of 1 tasks succeeded`,
        ),
      );
    } finally {
      op.emulator.control.replication.setPlan(null);
    }
  });

  test("a run that fails is a Warning Event with the counts", async () => {
    op.emulator.control.replication.setPlan({ durationMs: 500, failing: ["rep-src/b"] });
    try {
      await op.kubectl.apply(
        replicationPolicy("flaky", {
          direction: "push",
          registryRef: { name: "target" },
          filters: { name: "rep-src/**" },
          runOnCreate: true,
        }),
      );
      const done = await waitExecution("flaky", (e) => e.status === "Failed");
      expect(done.status?.lastExecution).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
      await expect
        .poll(async () => (await eventsOf("HarborReplicationPolicy", "flaky")).map((e) => e.reason), {
          timeout: budget.operatorMs,
        })
        .toContain("ReplicationFailed");
      const event = (await eventsOf("HarborReplicationPolicy", "flaky")).find(
        (e) => e.reason === "ReplicationFailed",
      );
      expect(event?.type).toBe("Warning");
      expect(event?.message).toContain("failed in");
      expect(event?.message).toContain("1 of 2 tasks succeeded, 1 failed");
    } finally {
      op.emulator.control.replication.setPlan(null);
    }
  });

  test("a run Harbor starts by itself reaches the status and an Event within the refresh interval", async () => {
    await op.kubectl.apply(
      replicationPolicy("nightly", {
        direction: "push",
        registryRef: { name: "target" },
        trigger: { type: "scheduled", cron: "0 0 2 * * *" },
      }),
    );
    const ready = await op.waitReady<ReplicationPolicyCR>("harborreplicationpolicy", "nightly");
    expect(ready.status?.lastExecution).toBeUndefined();
    const id = op.emulator.control.replication.trigger(harborIdOf(ready), "scheduled");
    // Nothing about the resource changed: only the refresh (4 s here) finds the run.
    const done = await waitExecution("nightly", (e) => e.id === id && e.status === "Succeed");
    expect(done.status?.lastExecution?.endTime).toBeDefined();
    await expect
      .poll(async () => (await eventsOf("HarborReplicationPolicy", "nightly")).map((e) => e.message), {
        timeout: budget.operatorMs,
      })
      .toContainEqual(
        expect.stringMatching(new RegExp(`^Replication execution ${id} \\(scheduled\\) succeeded`)),
      );
  });
});

describe("webhook deliveries", () => {
  test("a failed delivery shows why, in Harbor's words", async () => {
    // A project of its own: the event fires this policy alone, so every job log read is its own.
    await op.kubectl.apply([
      project("deliveries"),
      webhookPolicy("refused", {
        projectRef: { name: "deliveries" },
        eventTypes: ["PUSH_ARTIFACT"],
        targets: [{ address: refuserUrl }],
      }),
    ]);
    await op.waitReady("harborwebhookpolicy", "refused");
    op.emulator.control.webhooks.trigger({ project: "deliveries", eventType: "PUSH_ARTIFACT" });
    await op.emulator.control.webhooks.flush();
    const cr = await op.waitFor<WebhookPolicyCR>(
      "harborwebhookpolicy",
      "refused",
      (o) => (o.status?.recentFailures?.length ?? 0) > 0,
    );
    expect(cr.status?.recentFailures?.[0]).toMatchObject({
      eventType: "PUSH_ARTIFACT",
      error: "abnormal response code: 500, body: not today",
    });
    // The text is read once: later refreshes keep it without reading the log again.
    const logReads = () => op.emulator.counters.total({ op: "GetLogsOfWebhookTask" });
    // This policy's own refreshes, from the log: "ci" (project team) refreshes its deliveries too.
    const since = Date.now();
    const refreshes = () => {
      const own = new Set(op.reconciles("harborwebhookpolicy", "refused").map((e) => e.reconcileId));
      return logEntries(op.output()).filter(
        (e) =>
          e.msg === "Harbor call" &&
          e.operation === "ListWebhookJobs" &&
          own.has(e.reconcileId) &&
          Date.parse(e.time) >= since,
      ).length;
    };
    const before = logReads();
    await untilTrue("two more refreshes of the delivery status", () => refreshes() >= 2);
    expect(logReads()).toBe(before);
    const later = await op.kubectl.get<WebhookPolicyCR>("harborwebhookpolicy", "refused");
    expect(later.status?.recentFailures?.[0]?.error).toBe("abnormal response code: 500, body: not today");
  });
});

describe("objects deleted outside the operator", () => {
  test("are created again, with a Warning Event that says so", async () => {
    await op.kubectl.apply(
      webhookPolicy("gone", {
        projectRef: { name: "team" },
        eventTypes: ["PUSH_ARTIFACT"],
        targets: [{ address: "https://ci.example.com/gone" }],
      }),
    );
    const before = await op.waitReady<WebhookPolicyCR>("harborwebhookpolicy", "gone");
    const oldId = harborIdOf(before);
    await op.harbor.webhooks.deletePolicy("team", oldId);
    // The drift sweep (3 s here) finds it missing.
    const after = await op.waitFor<WebhookPolicyCR>(
      "harborwebhookpolicy",
      "gone",
      (o) => o.status?.harborId !== undefined && o.status.harborId !== oldId,
    );
    const newId = harborIdOf(after);
    expect((await op.harbor.webhooks.getPolicy("team", newId)).name).toBe("gone");
    await expect
      .poll(
        async () => (await eventsOf("HarborWebhookPolicy", "gone")).filter((e) => e.reason === "Recreated"),
        { timeout: budget.operatorMs },
      )
      .toEqual([
        expect.objectContaining({
          type: "Warning",
          message: `WebhookPolicy "gone" (id ${oldId}) was deleted outside the operator; created it again (id ${newId})`,
        }),
      ]);
  });
});
