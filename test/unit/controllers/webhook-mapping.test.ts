import { describe, expect, test } from "vitest";
import { HarborWebhookPolicySpec } from "../../../src/api/webhook.ts";
import {
  deliveryError,
  diff,
  lastTriggers,
  policyRequest,
  recentFailures,
  status,
  storedAsCreated,
  subscribedEvents,
} from "../../../src/controllers/webhook/mapping.ts";
import type { WebhookPolicy, WebhookPolicyInput } from "../../../src/harbor/webhooks.ts";

const spec = (s: Record<string, unknown>) =>
  HarborWebhookPolicySpec.parse({
    connectionRef: { name: "h" },
    projectRef: { name: "team" },
    eventTypes: ["PUSH_ARTIFACT"],
    targets: [{ address: "https://hooks.example.com/harbor" }],
    ...s,
  });

const none = { authHeaders: [] };

/** What Harbor stores and returns for a request, following its rules as seen on a running 2.12.4. */
function harborStores(id: number, req: WebhookPolicyInput): WebhookPolicy {
  return {
    id,
    name: req.name,
    ...(req.description ? { description: req.description } : {}),
    project_id: 3,
    event_types: req.event_types,
    ...(req.creator ? { creator: req.creator } : {}),
    enabled: req.enabled,
    targets: req.targets.map((t) => {
      const format = "payload_format" in t ? (t.payload_format ?? "") : "";
      const auth = "auth_header" in t ? (t.auth_header ?? "") : "";
      return {
        type: t.type,
        // Stored exactly as sent.
        address: t.address,
        ...(auth ? { auth_header: auth } : {}),
        ...(t.skip_cert_verify ? { skip_cert_verify: true } : {}),
        ...(t.type === "http" ? { payload_format: format || "Default" } : {}),
      };
    }),
  };
}

describe("addresses (Harbor stores them as sent)", () => {
  test.each([
    "https://hooks.example.com/harbor/",
    "http://h:8080/a?token=x",
    "http://h/a/?q=1",
    "http://h/a%20b",
  ])("%s is sent, stored and compared as written: no perpetual difference", (address) => {
    const s = spec({ targets: [{ address }] });
    const req = policyRequest(s, "hook", none, undefined, "me");
    expect(req.targets[0]?.address).toBe(address);
    expect(diff(s, "hook", none, harborStores(1, req))).toEqual([]);
  });

  test("an address Harbor holds in another spelling is a difference; no normalisation hides it", () => {
    const s = spec({ targets: [{ address: "https://hooks.example.com/harbor/" }] });
    const stored = harborStores(1, policyRequest(s, "hook", none, undefined, "me"));
    const trimmed = {
      ...stored,
      targets: [{ ...stored.targets?.[0], address: "https://hooks.example.com/harbor" }],
    };
    expect(diff(s, "hook", none, trimmed)).toEqual(["targets[0].address"]);
  });
});

describe("webhook request", () => {
  test("addresses go as written; http targets carry their format (Default when unset) and auth header; slack targets neither", () => {
    const s = spec({
      description: "to CI",
      eventTypes: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
      targets: [
        { address: "https://ci.example.com/hook/?x=1", authHeaderSecretRef: { name: "ci" } },
        { type: "slack", address: "https://hooks.slack.com/services/T/B/C" },
        { address: "http://events.example.com", payloadFormat: "CloudEvents", skipCertVerify: true },
      ],
    });
    expect(policyRequest(s, "ci", { authHeaders: ["Bearer t", "", ""] }, undefined, "me")).toEqual({
      name: "ci",
      description: "to CI",
      event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
      enabled: true,
      creator: "me",
      targets: [
        {
          type: "http",
          address: "https://ci.example.com/hook/?x=1",
          auth_header: "Bearer t",
          skip_cert_verify: false,
          payload_format: "Default",
        },
        { type: "slack", address: "https://hooks.slack.com/services/T/B/C", skip_cert_verify: false },
        {
          type: "http",
          address: "http://events.example.com",
          skip_cert_verify: true,
          payload_format: "CloudEvents",
        },
      ],
    });
  });

  test("an update keeps Harbor's creator, and its description when the spec has none", () => {
    const current: WebhookPolicy = { id: 1, name: "ci", description: "set in the UI", creator: "alice" };
    const req = policyRequest(spec({}), "ci", none, current, "me");
    expect(req.creator).toBe("alice");
    expect(req.description).toBe("set in the UI");
    expect(policyRequest(spec({ description: "mine" }), "ci", none, current, "me").description).toBe("mine");
  });

  test("enabled is always sent (Harbor stores false when it is left out)", () => {
    expect(policyRequest(spec({}), "ci", none, undefined, "me").enabled).toBe(true);
    expect(policyRequest(spec({ enabled: false }), "ci", none, undefined, "me").enabled).toBe(false);
  });
});

describe("webhook diff", () => {
  test("what Harbor stores for our request shows no difference", () => {
    const cases = [
      spec({}),
      spec({
        description: "d",
        enabled: false,
        eventTypes: ["SCANNING_FAILED", "PUSH_ARTIFACT", "QUOTA_EXCEED"],
        targets: [
          { address: "https://a.example.com/x/?y=1", authHeaderSecretRef: { name: "s" } },
          { type: "slack", address: "https://hooks.slack.com/services/a/" },
          { address: "http://b.example.com:81/p%2Fq", payloadFormat: "CloudEvents", skipCertVerify: true },
        ],
      }),
    ];
    for (const s of cases) {
      const ctx = { authHeaders: ["Bearer secret", "", ""] };
      const stored = harborStores(7, policyRequest(s, "hook", ctx, undefined, "me"));
      expect(diff(s, "hook", ctx, stored)).toEqual([]);
      // And again after an update that replaced it.
      const updated = harborStores(7, policyRequest(s, "hook", ctx, stored, "me"));
      expect(diff(s, "hook", ctx, updated)).toEqual([]);
    }
  });

  test("a create taken as stored (no read-back) matches what Harbor stores, for the diff and the status", () => {
    const cases = [
      spec({}),
      spec({
        description: "d",
        enabled: false,
        eventTypes: ["PUSH_ARTIFACT", "SCANNING_FAILED", "PUSH_ARTIFACT"],
        targets: [
          { address: "https://a.example.com/x/?y=1", authHeaderSecretRef: { name: "s" } },
          { type: "slack", address: "https://hooks.slack.com/services/a/" },
          { address: "http://b.example.com:81/p", payloadFormat: "CloudEvents", skipCertVerify: true },
        ],
      }),
    ];
    for (const s of cases) {
      const ctx = { authHeaders: ["Bearer secret", "", ""] };
      const request = policyRequest(s, "hook", ctx, undefined, "me");
      const taken = storedAsCreated(request, 7, 3);
      const stored = harborStores(7, request);
      expect(diff(s, "hook", ctx, taken)).toEqual([]);
      expect(diff(s, "hook", ctx, stored)).toEqual([]);
      expect(status(3, taken)).toEqual(status(3, stored));
      expect(taken).toMatchObject({ id: 7, project_id: 3, name: "hook", creator: "me" });
    }
  });

  test("event types compare as a set", () => {
    const s = spec({ eventTypes: ["PUSH_ARTIFACT", "PULL_ARTIFACT"] });
    const base = harborStores(1, policyRequest(s, "hook", none, undefined, "me"));
    expect(diff(s, "hook", none, { ...base, event_types: ["PULL_ARTIFACT", "PUSH_ARTIFACT"] })).toEqual([]);
    expect(diff(s, "hook", none, { ...base, event_types: ["PULL_ARTIFACT"] })).toEqual(["eventTypes"]);
  });

  test("changes made in Harbor are named field by field", () => {
    const s = spec({ targets: [{ address: "https://a.example.com/x", authHeaderSecretRef: { name: "s" } }] });
    const ctx = { authHeaders: ["Bearer right"] };
    const base = harborStores(1, policyRequest(s, "hook", ctx, undefined, "me"));
    const edited: WebhookPolicy = {
      ...base,
      enabled: false,
      targets: [
        {
          type: "http",
          address: "https://elsewhere.example.com/x",
          auth_header: "Bearer wrong",
          skip_cert_verify: true,
          payload_format: "CloudEvents",
        },
      ],
    };
    expect(diff(s, "hook", ctx, edited)).toEqual([
      "enabled",
      "targets[0].address",
      "targets[0].authHeader",
      "targets[0].skipCertVerify",
      "targets[0].payloadFormat",
    ]);
    expect(diff(s, "hook", ctx, { ...base, targets: [] })).toEqual(["targets"]);
    expect(diff(s, "hook", ctx, { ...base, name: "renamed" })).toEqual(["name"]);
  });

  test("a changed auth header Secret shows as drift without its value", () => {
    const s = spec({ targets: [{ address: "https://a.example.com", authHeaderSecretRef: { name: "s" } }] });
    const stored = harborStores(
      1,
      policyRequest(s, "hook", { authHeaders: ["Bearer old"] }, undefined, "me"),
    );
    const fields = diff(s, "hook", { authHeaders: ["Bearer new"] }, stored);
    expect(fields).toEqual(["targets[0].authHeader"]);
    expect(fields.join()).not.toContain("Bearer");
  });

  test("an unset description is not managed; a set one is", () => {
    const base = harborStores(1, policyRequest(spec({}), "hook", none, undefined, "me"));
    expect(diff(spec({}), "hook", none, { ...base, description: "from the UI" })).toEqual([]);
    expect(diff(spec({ description: "" }), "hook", none, { ...base, description: "from the UI" })).toEqual([
      "description",
    ]);
  });

  test("an http target without a payload format (Harbor before 2.8) means Default", () => {
    const s = spec({});
    const base = harborStores(1, policyRequest(s, "hook", none, undefined, "me"));
    const old = { ...base, targets: [{ type: "http", address: "https://hooks.example.com/harbor" }] };
    expect(diff(s, "hook", none, old)).toEqual([]);
  });
});

describe("delivery status", () => {
  test("last triggers: this policy's fired event types only, by type", () => {
    expect(
      lastTriggers("hook", [
        { policy_name: "hook", event_type: "PUSH_ARTIFACT", last_trigger_time: "2025-03-01T10:00:00.123Z" },
        { policy_name: "hook", event_type: "DELETE_ARTIFACT", last_trigger_time: "0001-01-01T00:00:00.000Z" },
        { policy_name: "other", event_type: "PULL_ARTIFACT", last_trigger_time: "2025-03-01T11:00:00.000Z" },
        { policy_name: "hook", event_type: "PULL_ARTIFACT", last_trigger_time: "2025-02-01T09:00:00.000Z" },
      ]),
    ).toEqual([
      { eventType: "PULL_ARTIFACT", time: "2025-02-01T09:00:00Z" },
      { eventType: "PUSH_ARTIFACT", time: "2025-03-01T10:00:00Z" },
    ]);
  });

  test("recent failures: errors only, newest first, at most five", () => {
    const jobs = Array.from({ length: 8 }, (_, i) => ({
      id: i + 1,
      event_type: "PUSH_ARTIFACT",
      notify_type: "http",
      status: i === 7 ? "Success" : "Error",
      creation_time: `2025-03-01T10:00:0${i}.000Z`,
    }));
    const failures = recentFailures(jobs);
    expect(failures.map((f) => f.jobId)).toEqual([7, 6, 5, 4, 3]);
    expect(failures[0]).toEqual({
      jobId: 7,
      eventType: "PUSH_ARTIFACT",
      notifyType: "http",
      time: "2025-03-01T10:00:06Z",
    });
  });
});

describe("presentation", () => {
  test("a delivery's error is the last ERROR line of its job log, without jobservice's preamble", () => {
    const log = [
      "2025-03-01T10:00:00Z [INFO] [/jobservice/job/impl/notification/webhook_job.go:72]: start to run webhook job",
      '2025-03-01T10:00:00Z [INFO] [/jobservice/job/impl/notification/webhook_job.go:113]: send request to remote endpoint, body: {"type":"PUSH_ARTIFACT"}',
      "2025-03-01T10:00:01Z [ERROR] [/jobservice/job/impl/notification/webhook_job.go:77]: exit webhook job, error: abnormal response code: 502, body: bad gateway",
      "2025-03-01T10:00:09Z [ERROR] [/jobservice/job/impl/notification/webhook_job.go:77]: exit webhook job, error: abnormal response code: 500, body: <html>\u001b[31mno</html>",
      "",
    ].join("\n");
    // Retries append to the same log: the last run's error is the one shown; hidden characters go.
    expect(deliveryError(log)).toBe("abnormal response code: 500, body: <html>[31mno</html>");
    expect(
      deliveryError(
        '2025-03-01T10:00:01Z [ERROR] [/jobservice/job/impl/notification/slack_job.go]: exit slack job, error: error to send request: Post "https://hooks.slack.com/x": dial tcp: lookup hooks.slack.com: no such host',
      ),
    ).toBe(
      'error to send request: Post "https://hooks.slack.com/x": dial tcp: lookup hooks.slack.com: no such host',
    );
    expect(deliveryError("2025-03-01T10:00:00Z [INFO] [x.go]: success to run webhook job\n")).toBeUndefined();
    expect(deliveryError("")).toBeUndefined();
    const long = deliveryError(`x [ERROR] [y.go]: exit webhook job, error: ${"a".repeat(5000)}`);
    expect(long?.length).toBeLessThanOrEqual(512);
  });

  test("event types read as one sorted line for kubectl's EVENTS column", () => {
    expect(subscribedEvents({ event_types: ["SCANNING_FAILED", "PUSH_ARTIFACT", "PUSH_ARTIFACT"] })).toBe(
      "PUSH_ARTIFACT, SCANNING_FAILED",
    );
    expect(subscribedEvents({})).toBe("");
  });
});

describe("schema", () => {
  test("targets default to http without certificate skipping; event types are required", () => {
    const s = spec({});
    expect(s.targets[0]).toEqual({
      type: "http",
      address: "https://hooks.example.com/harbor",
      skipCertVerify: false,
    });
    expect(s.enabled).toBe(true);
    expect(HarborWebhookPolicySpec.safeParse({ ...s, eventTypes: [] }).success).toBe(false);
  });

  test.each(["ftp://h/x", "https://user:pw@h/x", "https://h/x#frag", "https://h /x", "https:///x"])(
    "the address %s is refused",
    (address) => {
      expect(HarborWebhookPolicySpec.safeParse({ ...spec({}), targets: [{ address }] }).success).toBe(false);
    },
  );
});
