// HarborWebhookPolicy end to end: kubectl → apiserver → the operator process → Harbor (the emulator),
// and Harbor's deliveries → a receiver on loopback. The lifecycle every kind shares is decided in
// test/unit/runtime/managed-lifecycle.test.ts and walked end to end in project.test.ts; here the
// policy's own walk (apply, edit, drift, delete), its delivery status and its project's quirks.
// Admission refusals are rows of test/integration/cluster/admission.test.ts.
import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { WebhookPolicy, WebhookPolicyInput } from "../../src/harbor/webhooks.ts";
import { type LoopbackServer, listenOnLoopback } from "../env/http.ts";
import { useOperator } from "../env/operator.ts";
import { harborCallsPerSweep } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  eventsOf,
  harborIdOf,
  project,
  readyForSpec,
  secret,
  type WebhookPolicyCR as WebhookCR,
  webhookPolicy,
} from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

// Delivery status is refreshed every --status-refresh-interval (1 h by default; short here, but
// longer than two drift sweeps, which the steady-state test counts over). A short drift interval:
// a change made in Harbor is put back, and two sweeps pass, in seconds.
const op = useOperator({
  namespacePrefix: "hook",
  driftInterval: "1s",
  extraArgs: ["--status-refresh-interval=6s"],
});

const RESOURCE = "harborwebhookpolicy";

/** A policy in project "team". */
const webhook = (name: string, spec: Parameters<typeof webhookPolicy>[1]) =>
  webhookPolicy(name, { projectRef: { name: "team" }, ...spec });

/** The auth header Secret, opted in for that use (secret-opt-in.test.ts covers the rest). */
const authSecret = (value: string) =>
  secret("ci-auth", { authHeader: value }, { watched: true, usableAs: "webhook-auth-header" });

/** The Harbor policy with this name in the project, as an admin sees it. */
async function policy(projectName: string, name: string): Promise<WebhookPolicy | undefined> {
  return (await op.harbor.webhooks.listPolicies(projectName)).find((p) => p.name === name);
}

/** A loopback receiver: answers 200, or 500 below /fail, and remembers every request. */
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
let receiver: LoopbackServer | undefined;
let base = "";

beforeAll(async () => {
  receiver = await listenOnLoopback((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(req.url?.startsWith("/fail") ? 500 : 200).end();
    });
  });
  base = receiver.url;
  // "waiting" waits for a project applied later (see below); a new resource keeps quiet about such
  // a wait for a moment (10 s), which passes while the tests in between run.
  await op.kubectl.apply([
    project("team"),
    authSecret("Bearer first-token"),
    webhook("waiting", {
      projectRef: { name: "later" },
      eventTypes: ["PUSH_ARTIFACT"],
      targets: [{ address: base }],
    }),
  ]);
  await op.waitReady("harborproject", "team");
});

afterAll(async () => {
  await receiver?.close();
});

describe("HarborWebhookPolicy", () => {
  test("apply → Ready with the Harbor id in kubectl get, in one Harbor request (its project is new: no lookup; Harbor stores it as sent: no read-back)", async () => {
    // The emulator's request counter, in order, so that the reconcile's calls can be told apart
    // from the drift sweep's list that may follow once the policy has its id.
    const calls: string[] = [];
    const counters = op.emulator.counters;
    const count = counters.add;
    counters.add = (operation, method, status) => {
      calls.push(operation);
      count.call(counters, operation, method, status);
    };
    try {
      await op.kubectl.apply(
        webhook("ci", {
          description: "tell CI",
          eventTypes: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
          // Harbor keeps the address as written, query and trailing slash too: nothing may flap on that.
          targets: [{ address: `${base}/hooks/?source=harbor`, authHeaderSecretRef: { name: "ci-auth" } }],
        }),
      );
      const cr = await op.waitReady<WebhookCR>(RESOURCE, "ci");
      const webhookCalls = calls.filter((c) => /Webhook|LastTrigger/.test(c));
      // The operator created the project moments ago, so no policy can be in it: the first one's
      // lookup by name is skipped, and the create is not read back.
      expect(webhookCalls.slice(0, 1)).toEqual(["CreateWebhookPolicyOfProject"]);
      expect(webhookCalls.slice(1).every((c) => c === "ListWebhookPoliciesOfProject")).toBe(true);

      const inHarbor = await policy("team", "ci");
      expect(harborIdOf(cr)).toBe(inHarbor?.id);
      expect(inHarbor).toMatchObject({
        description: "tell CI",
        enabled: true,
        creator: "harbor-config-operator",
        targets: [
          {
            type: "http",
            address: `${base}/hooks/?source=harbor`,
            auth_header: "Bearer first-token",
            payload_format: "Default",
          },
        ],
      });
      expect([...(inHarbor?.event_types ?? [])].sort()).toEqual(["DELETE_ARTIFACT", "PUSH_ARTIFACT"]);
      expect(cr.metadata.finalizers).toContain("harborconfig.io/finalizer");

      const table = await op.kubectl.run(["get", "harborwebhookpolicies"]);
      expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+AGE/);
      expect(table).toMatch(new RegExp(`ci\\s+True\\s+Synced\\s+${inHarbor?.id}\\s+team\\s`));
      expect(await op.kubectl.run(["get", "harbor"])).toContain("harborwebhookpolicy.harborconfig.io/ci");
    } finally {
      counters.add = count;
    }
  });

  test("a real delivery reaches the receiver with the auth header, and the status shows it", async () => {
    await op.kubectl.apply(
      webhook("failing", { eventTypes: ["PUSH_ARTIFACT"], targets: [{ address: `${base}/fail` }] }),
    );
    await op.waitReady(RESOURCE, "failing");
    op.emulator.control.webhooks.trigger({ project: "team", eventType: "PUSH_ARTIFACT" });
    await op.emulator.control.webhooks.flush();

    // To the address as stored, query included.
    const delivered = received.filter((r) => r.path === "/hooks/?source=harbor");
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.headers.authorization).toBe("Bearer first-token");
    expect(JSON.parse(delivered[0]?.body ?? "{}")).toMatchObject({ type: "PUSH_ARTIFACT" });

    // Delivery status is refreshed by a reconcile one refresh interval after the last one.
    const ci = await op.waitFor<WebhookCR>(RESOURCE, "ci", (o) => (o.status?.lastTriggers?.length ?? 0) > 0);
    expect(ci.status?.lastTriggers?.map((t) => t.eventType)).toEqual(["PUSH_ARTIFACT"]);
    expect(ci.status?.recentFailures).toEqual([]);
    const failing = await op.waitFor<WebhookCR>(
      RESOURCE,
      "failing",
      (o) => (o.status?.recentFailures?.length ?? 0) > 0,
    );
    expect(failing.status?.recentFailures?.[0]).toMatchObject({
      eventType: "PUSH_ARTIFACT",
      notifyType: "http",
    });
    expect(condition(failing, "Ready")?.status).toBe("True");
  });

  test("editing the YAML changes Harbor", async () => {
    await op.kubectl.apply(
      webhook("ci", {
        description: "tell CI",
        enabled: false,
        eventTypes: ["PUSH_ARTIFACT", "SCANNING_FAILED"],
        targets: [
          { address: `${base}/hooks/?source=harbor`, authHeaderSecretRef: { name: "ci-auth" } },
          { type: "slack", address: "https://hooks.slack.com/services/T0/B0/xyz" },
        ],
      }),
    );
    const cr = await op.waitFor<WebhookCR>(RESOURCE, "ci", readyForSpec);
    const p = await policy("team", "ci");
    expect({
      enabled: p?.enabled,
      events: [...(p?.event_types ?? [])].sort(),
      targets: p?.targets?.length,
    }).toEqual({ enabled: false, events: ["PUSH_ARTIFACT", "SCANNING_FAILED"], targets: 2 });
    expect(cr.status?.lastDriftCorrection).toBeUndefined();
    await eventOf(op.kubectl, "ci", "HarborWebhookPolicy", "Updated");
  });

  test("a change made in Harbor behind the operator's back is reverted and named", async () => {
    const id = harborIdOf(await op.kubectl.get<WebhookCR>(RESOURCE, "ci"));
    // Harbor's PUT replaces the whole policy: what GET shows (the client checks it), two fields changed.
    const before = (await op.harbor.webhooks.getPolicy("team", id)) as WebhookPolicyInput;
    await op.harbor.webhooks.updatePolicy("team", id, {
      ...before,
      enabled: true,
      event_types: ["PUSH_ARTIFACT"],
    });
    const after = await op.waitFor<WebhookCR>(RESOURCE, "ci", (o) =>
      (o.status?.lastDriftCorrection?.fields ?? []).includes("enabled"),
    );
    expect(after.status?.lastDriftCorrection?.fields).toEqual(["enabled", "eventTypes"]);
    const reverted = await policy("team", "ci");
    expect(reverted?.enabled).toBe(false);
    expect([...(reverted?.event_types ?? [])].sort()).toEqual(["PUSH_ARTIFACT", "SCANNING_FAILED"]);
    expect(reverted?.id).toBe(id);
    await eventOf(op.kubectl, "ci", "HarborWebhookPolicy", "DriftCorrected");
  });

  test("steady state makes no Harbor writes and reads one list per project", async () => {
    const writes = op.emulator.counters.writes();
    // Each of two whole sweeps, from the operator's log between sweep lines: a snapshot of the
    // emulator's counters could miss the list of a sweep that had begun before it was taken.
    const sweeps = await harborCallsPerSweep(op, "HarborWebhookPolicy", 2);
    expect(op.emulator.counters.writes()).toBe(writes);
    for (const sweep of sweeps) expect(sweep.ListWebhookPoliciesOfProject).toBeGreaterThanOrEqual(1);
    // Two policies: the only per-policy reads are one delivery-status refresh each at most.
    const gets = sweeps.reduce((n, sweep) => n + (sweep.GetWebhookPolicyOfProject ?? 0), 0);
    expect(gets).toBeLessThanOrEqual(2);
  });

  test("a changed auth header Secret reaches Harbor, and its value appears nowhere", async () => {
    await op.kubectl.apply(authSecret("Bearer second-token"));
    await untilTrue(
      "the new auth header in Harbor",
      async () => (await policy("team", "ci"))?.targets?.[0]?.auth_header === "Bearer second-token",
    );
    const cr = await op.kubectl.run(["get", RESOURCE, "ci", "-o", "json"]);
    expect(cr).not.toContain("Bearer");
    expect(JSON.stringify(await eventsOf(op.kubectl, "ci"))).not.toContain("Bearer");
    expect(op.output()).not.toContain("Bearer");
  });

  test("what only Harbor can judge stalls the resource with Harbor's message", async () => {
    await op.kubectl.apply(
      webhook("bad-host", { eventTypes: ["PUSH_ARTIFACT"], targets: [{ address: "http://bad^host/x" }] }),
    );
    const cr = await op.waitFor<WebhookCR>(
      RESOURCE,
      "bad-host",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(cr, "Ready")).toMatchObject({ status: "False", reason: "HarborRejected" });
    expect(condition(cr, "Ready")?.message).toContain('invalid character "^" in host name');
    await op.kubectl.delete(RESOURCE, "bad-host", { wait: true });
  });

  test("a policy waits for its project to be Ready, then converges", async () => {
    // Applied before the first test.
    const waiting = await op.waitFor<WebhookCR>(
      RESOURCE,
      "waiting",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(condition(waiting, "Ready")?.message).toContain("later");
    await op.kubectl.apply(project("later"));
    const ready = await op.waitReady<WebhookCR>(RESOURCE, "waiting");
    expect(harborIdOf(ready)).toBe((await policy("later", "waiting"))?.id);
  });

  test("a project deleted and created again gets its policy back, in the new project", async () => {
    const before = await op.waitReady<WebhookCR>(RESOURCE, "waiting");
    const oldProject = before.status?.projectId as number;
    const oldPolicy = harborIdOf(before);
    await op.kubectl.delete("harborproject", "later", { wait: true });
    // Harbor does not delete a project's webhook policies with it: the old one stays in its
    // database, out of the API's reach. The operator must not count on it either way.
    expect(op.emulator.world.webhooks.get(oldPolicy)).toMatchObject({ project_id: oldProject });
    await op.kubectl.apply(project("later"));
    const after = await op.waitFor<WebhookCR>(
      RESOURCE,
      "waiting",
      (o) => condition(o, "Ready")?.status === "True" && o.status?.projectId !== oldProject,
    );
    const inHarbor = await policy("later", "waiting");
    expect(inHarbor).toBeDefined();
    expect(harborIdOf(after)).toBe(inHarbor?.id);
    expect(inHarbor?.id).not.toBe(oldPolicy);
    expect((await op.harbor.webhooks.listPolicies("later")).map((p) => p.name)).toEqual(["waiting"]);
  });

  test("a policy whose project went first is released, not stuck", async () => {
    await op.kubectl.delete("harborproject", "later", { wait: true });
    await op.kubectl.delete(RESOURCE, "waiting");
    await op.waitGone(RESOURCE, "waiting");
  });

  test("delete removes the policy from Harbor", async () => {
    await op.kubectl.delete(RESOURCE, "ci", { wait: true });
    await op.kubectl.delete(RESOURCE, "failing", { wait: true });
    expect((await op.harbor.webhooks.listPolicies("team")).map((p) => p.name)).toEqual([]);
  });
});
