// Project webhooks: policy rules (validation messages, addresses kept as sent, defaults, names unique
// per project, full replace, project ownership), the event type lists, and deliveries that really
// reach a loopback receiver in Harbor's Default, CloudEvents and Slack formats, with the policy's
// auth header; the jobs and last-trigger views that follow them; project-role permissions.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import type { WebhookPolicyInput } from "../../../src/harbor/webhooks.ts";
import type { ProjectRecord } from "../../env/emulator/areas/projects.ts";
import { startEmulator } from "../../env/emulator/index.ts";
import { firstError, harborError, harborErrorOf, useEmulator } from "../../env/harbor.ts";
import { GUARD_PATH, guardRecords } from "../../env/net-guard-env.ts";

const h = useEmulator();
const hooks = () => h.emulator.control.webhooks;

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** A loopback webhook receiver; paths starting with /fail answer 500 "receiver says no". */
class Receiver {
  readonly requests: Received[] = [];
  readonly #server: Server;
  readonly #scheme: string;

  constructor(tls?: { key: string; cert: string }) {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.requests.push({
          path: req.url ?? "",
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        });
        if (req.url?.startsWith("/fail")) res.writeHead(500).end("receiver says no");
        else res.writeHead(200).end();
      });
    };
    this.#server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
    this.#scheme = tls ? "https" : "http";
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `${this.#scheme}://127.0.0.1:${this.port}${path}`;
  }

  take(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

let receiver: Receiver;
let project: ProjectRecord;
let other: ProjectRecord;

function newProject(name: string): ProjectRecord {
  return h.emulator.world.projects.insert({
    name,
    ownerId: 1,
    metadata: { public: "false" },
    storageLimit: -1,
  });
}

const base = (over: Partial<WebhookPolicyInput> = {}): WebhookPolicyInput => ({
  name: "ci",
  event_types: ["PUSH_ARTIFACT"],
  targets: [{ type: "http", address: receiver.url("/hook"), auth_header: "Bearer s3cret-token" }],
  enabled: true,
  ...over,
});

/** Keeps a failing test's policies from leaking into the next test. */
function dropPolicies(): void {
  for (const p of [project, other]) {
    for (const policy of h.emulator.world.webhooks.byProject(p.project_id))
      h.emulator.world.webhooks.delete(policy.id);
  }
}

beforeAll(async () => {
  receiver = await new Receiver().start();
  project = newProject("hooks");
  other = newProject("elsewhere");
});
afterAll(async () => {
  await receiver.close();
});

describe("policies", () => {
  afterEach(dropPolicies);

  test("create: 201 with a path-only Location; GET shows the stored policy, addresses as sent", async () => {
    const res = await h.api(`/projects/${project.name}/webhook/policies`, {
      method: "POST",
      headers: { "x-is-resource-name": "true" },
      body: JSON.stringify({
        name: "as-sent",
        description: "first",
        project_id: 999, // ignored: the path decides
        creator: "someone-else",
        enabled: true,
        event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
        targets: [
          {
            type: "http",
            address: `127.0.0.1:${receiver.port}/in?token=abc#frag`,
            auth_header: "Basic eA==",
          },
          { type: "http", address: "  https://user:pw@example.com/x/  ", skip_cert_verify: true },
        ],
      }),
    });
    expect(res.status).toBe(201);
    const location = res.headers.get("location") as string;
    expect(location).toMatch(new RegExp(`^/api/v2\\.0/projects/${project.name}/webhook/policies/\\d+$`));
    const id = Number(location.split("/").pop());

    const policy = await h.admin.webhooks.getPolicy(project.name, id);
    expect(policy).toMatchObject({
      id,
      name: "as-sent",
      description: "first",
      project_id: project.project_id,
      creator: "someone-else", // stored as sent
      enabled: true,
      event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
      // Addresses exactly as sent (Harbor only checks their scheme): no http:// added, spaces,
      // trailing slashes, user info, query and fragment kept. The Default format is filled in.
      targets: [
        {
          type: "http",
          address: `127.0.0.1:${receiver.port}/in?token=abc#frag`,
          auth_header: "Basic eA==",
          payload_format: "Default",
        },
        {
          type: "http",
          address: "  https://user:pw@example.com/x/  ",
          skip_cert_verify: true,
          payload_format: "Default",
        },
      ],
    });
    expect(policy.targets?.[0]?.skip_cert_verify).toBeUndefined(); // false is omitted
    await h.admin.webhooks.deletePolicy(project.project_id, id);
  });

  test("an omitted `enabled` stores false, and false is still on the wire", async () => {
    const res = await h.api(`/projects/${project.project_id}/webhook/policies`, {
      method: "POST",
      body: JSON.stringify({
        name: "off",
        event_types: ["PULL_ARTIFACT"],
        targets: [{ type: "slack", address: "https://hooks.slack.example/x" }],
      }),
    });
    const id = Number(res.headers.get("location")?.split("/").pop());
    const raw = (await (
      await h.api(`/projects/${project.project_id}/webhook/policies/${id}`)
    ).json()) as Record<string, unknown>;
    expect(raw.enabled).toBe(false);
    expect(raw.targets).toEqual([{ type: "slack", address: "https://hooks.slack.example/x" }]); // no format for slack
    await h.admin.webhooks.deletePolicy(project.project_id, id);
  });

  test("many policies per project; names are unique within a project only", async () => {
    const a = await h.admin.webhooks.createPolicy(project.name, base({ name: "dup" }));
    const b = await h.admin.webhooks.createPolicy(project.name, base({ name: "dup-2" }));
    const c = await h.admin.webhooks.createPolicy(other.name, base({ name: "dup" }));
    await expect(h.admin.webhooks.createPolicy(project.name, base({ name: "dup" }))).rejects.toMatchObject(
      harborError(409, "notification policy named dup already exists"),
    );
    // Renaming onto a taken name conflicts too.
    await expect(h.admin.webhooks.updatePolicy(project.name, b, base({ name: "dup" }))).rejects.toMatchObject(
      {
        status: 409,
      },
    );
    const names = (await h.admin.webhooks.listPolicies(project.name)).map((p) => p.name);
    expect(names).toEqual(["dup-2", "dup"]); // newest first
    for (const [p, id] of [
      [project, a],
      [project, b],
      [other, c],
    ] as const) {
      await h.admin.webhooks.deletePolicy(p.name, id);
    }
  });

  test("PUT replaces the whole policy: fields left out are cleared, enabled becomes false", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({ name: "replace", description: "keep?" }),
    );
    const res = await h.api(`/projects/${project.name}/webhook/policies/${id}`, {
      method: "PUT",
      headers: { "x-is-resource-name": "true" },
      body: JSON.stringify({
        name: "replaced",
        event_types: ["QUOTA_EXCEED"],
        targets: [{ type: "http", address: "http://example.com/q" }],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    const after = await h.admin.webhooks.getPolicy(project.name, id);
    expect(after).toMatchObject({ name: "replaced", event_types: ["QUOTA_EXCEED"], enabled: false });
    expect(after.description).toBeUndefined();
    await h.admin.webhooks.updatePolicy(project.name, id, base({ name: "replaced", description: "back" }));
    expect(await h.admin.webhooks.getPolicy(project.name, id)).toMatchObject({
      description: "back",
      enabled: true,
    });
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("a policy must belong to the project in the path; unknown ids are 404", async () => {
    const id = await h.admin.webhooks.createPolicy(other.name, base({ name: "theirs" }));
    const wrong = `resource not found: project id:${project.project_id}, webhook policy id: ${id} not found`;
    await expect(h.admin.webhooks.getPolicy(project.name, id)).rejects.toMatchObject({
      status: 404,
      harborMessage: wrong,
    });
    await expect(h.admin.webhooks.updatePolicy(project.name, id, base())).rejects.toMatchObject({
      status: 404,
      harborMessage: wrong,
    });
    await expect(h.admin.webhooks.deletePolicy(project.name, id)).rejects.toMatchObject({
      status: 404,
      harborMessage: wrong,
    });
    await expect(h.admin.webhooks.getPolicy(other.name, 999999)).rejects.toMatchObject({
      kind: "notFound",
      harborMessage: "notificationPolicy 999999 not found",
    });
    await h.admin.webhooks.deletePolicy(other.name, id);
    await expect(h.admin.webhooks.getPolicy(other.name, id)).rejects.toMatchObject({ status: 404 });
  });

  test("list: q, sort and paging headers", async () => {
    const ids: number[] = [];
    for (const name of ["list-a", "list-b", "list-c"])
      ids.push(await h.admin.webhooks.createPolicy(project.name, base({ name })));
    const res = await h.api(`/projects/${project.project_id}/webhook/policies?page_size=2&sort=name`);
    expect(res.headers.get("x-total-count")).toBe("3");
    expect(res.headers.get("link")).toBe(
      `</api/v2.0/projects/${project.project_id}/webhook/policies?page=2&page_size=2&sort=name>; rel="next"`,
    );
    expect(((await res.json()) as Array<{ name: string }>).map((p) => p.name)).toEqual(["list-a", "list-b"]);
    const fuzzy = await h.admin.webhooks.listPolicies(project.name, { q: q().fuzzy("name", "T-B") });
    expect(fuzzy.map((p) => p.name)).toEqual(["list-b"]);
    for (const id of ids) await h.admin.webhooks.deletePolicy(project.name, id);
  });
});

describe("validation", () => {
  const post = (body: Record<string, unknown>) =>
    h.api(`/projects/${project.project_id}/webhook/policies`, { method: "POST", body: JSON.stringify(body) });
  const http = { type: "http", address: "http://example.com/h" };

  test.each([
    ["no event types", { name: "v", targets: [http] }, "empty event type"],
    [
      "an unknown event type",
      { name: "v", event_types: ["PUSH_IMAGE"], targets: [http] },
      "unsupported event type PUSH_IMAGE",
    ],
    [
      "no targets",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [] },
      "empty notification target with policy v",
    ],
    [
      "a non-http scheme",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [{ type: "http", address: "ftp://x/y" }] },
      "invalid scheme: ftp",
    ],
    [
      "an upper-case scheme",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [{ type: "http", address: "HTTP://x/y" }] },
      "invalid scheme: HTTP",
    ],
    [
      "an empty address",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [{ type: "http", address: " / " }] },
      "empty URL",
    ],
    [
      "an unknown target type",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [{ type: "email", address: "http://x" }] },
      "unsupported target type email with policy v",
    ],
    [
      "a payload format on slack",
      {
        name: "v",
        event_types: ["PUSH_ARTIFACT"],
        targets: [{ type: "slack", address: "http://x", payload_format: "Default" }],
      },
      "set payload format is not allowed for slack",
    ],
    [
      "an unknown payload format",
      { name: "v", event_types: ["PUSH_ARTIFACT"], targets: [{ ...http, payload_format: "XML" }] },
      "unsupported payload format type: XML",
    ],
  ])("%s: 400 with Harbor's message", async (_what, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await firstError(res)).toEqual({ code: "BAD_REQUEST", message });
  });

  test("wrong JSON types are swagger-level 422s", async () => {
    const res = await post({ name: "v", enabled: "yes", event_types: ["PUSH_ARTIFACT"], targets: [http] });
    expect(res.status).toBe(422);
    expect((await firstError(res)).code).toBe("UNPROCESSABLE_ENTITY");
  });
});

describe("event types", () => {
  test("the exact lists of Harbor 2.8 – 2.12", async () => {
    expect(await h.admin.webhooks.supportedEventTypes(project.name)).toEqual({
      event_type: [
        "PUSH_ARTIFACT",
        "PULL_ARTIFACT",
        "DELETE_ARTIFACT",
        "QUOTA_EXCEED",
        "QUOTA_WARNING",
        "SCANNING_FAILED",
        "SCANNING_STOPPED",
        "SCANNING_COMPLETED",
        "REPLICATION",
        "TAG_RETENTION",
      ],
      notify_type: ["http", "slack"],
      payload_formats: [{ notify_type: "http", formats: ["Default", "CloudEvents"] }],
    });
  });
});

describe("deliveries", () => {
  afterEach(dropPolicies);

  test("an event reaches the target in the Default format, with the auth header, without blocking", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "default",
        targets: [{ type: "http", address: receiver.url("/default"), auth_header: "Bearer s3cret-token" }],
      }),
    );
    // occur_at is the second of the trigger (read around it: a second may turn meanwhile).
    const before = Math.floor(h.emulator.control.clock.now() / 1000);
    const [jobId] = hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT", operator: "alice" });
    const after = Math.floor(h.emulator.control.clock.now() / 1000);
    // The trigger returns before anything is sent.
    expect(
      hooks()
        .deliveries()
        .find((d) => d.id === jobId)?.status,
    ).toBe("Pending");
    expect(receiver.take("/default")).toEqual([]);

    await hooks().flush();
    const [got] = receiver.take("/default");
    expect(got?.headers.authorization).toBe("Bearer s3cret-token");
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.body).toMatchObject({
      type: "PUSH_ARTIFACT",
      operator: "alice",
      event_data: {
        repository: { namespace: project.name, repo_full_name: `${project.name}/app`, repo_type: "private" },
      },
    });
    expect(Object.keys(got?.body ?? {})).toEqual(["type", "occur_at", "operator", "event_data"]);
    expect(got?.body.occur_at).toBeGreaterThanOrEqual(before);
    expect(got?.body.occur_at).toBeLessThanOrEqual(after);
    expect(
      hooks()
        .deliveries()
        .find((d) => d.id === jobId),
    ).toMatchObject({ status: "Success", response: 200 });
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("CloudEvents targets get a CloudEvents 1.0 envelope", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "ce",
        event_types: ["DELETE_ARTIFACT"],
        targets: [{ type: "http", address: receiver.url("/ce"), payload_format: "CloudEvents" }],
      }),
    );
    hooks().trigger({
      project: project.project_id,
      eventType: "DELETE_ARTIFACT",
      data: { resources: [{ tag: "v1" }] },
      operator: "bob",
    });
    await hooks().flush();
    const [got] = receiver.take("/ce");
    expect(got?.headers["content-type"]).toBe("application/cloudevents+json");
    expect(got?.headers.authorization).toBeUndefined();
    expect(got?.body).toMatchObject({
      specversion: "1.0",
      source: `/projects/${project.project_id}/webhook/policies/${id}`,
      type: "harbor.artifact.deleted",
      datacontenttype: "application/json",
      data: { resources: [{ tag: "v1" }] },
      operator: "bob",
    });
    expect(got?.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(got?.body.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("slack targets get a Slack message", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({ name: "slack", targets: [{ type: "slack", address: receiver.url("/slack") }] }),
    );
    hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" });
    await hooks().flush();
    const [got] = receiver.take("/slack");
    const blocks = got?.body.blocks as Array<{ text: { text: string } }>;
    expect(blocks[1]?.text.text).toContain("*event_type:* PUSH_ARTIFACT");
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("one job per target of each enabled, subscribed policy; none for others", async () => {
    const both = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "two-targets",
        targets: [
          { type: "http", address: receiver.url("/t1") },
          { type: "http", address: receiver.url("/t2") },
        ],
      }),
    );
    const off = await h.admin.webhooks.createPolicy(
      project.name,
      base({ name: "disabled", enabled: false, targets: [{ type: "http", address: receiver.url("/off") }] }),
    );
    const unsubscribed = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "pulls",
        event_types: ["PULL_ARTIFACT"],
        targets: [{ type: "http", address: receiver.url("/pulls") }],
      }),
    );
    const elsewhere = await h.admin.webhooks.createPolicy(
      other.name,
      base({ name: "other", targets: [{ type: "http", address: receiver.url("/other") }] }),
    );
    expect(hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" })).toHaveLength(2);
    await hooks().flush();
    expect(receiver.take("/t1")).toHaveLength(1);
    expect(receiver.take("/t2")).toHaveLength(1);
    for (const path of ["/off", "/pulls", "/other"]) expect(receiver.take(path)).toEqual([]);
    for (const id of [both, off, unsubscribed]) await h.admin.webhooks.deletePolicy(project.name, id);
    await h.admin.webhooks.deletePolicy(other.name, elsewhere);
  });

  test("a failing or unreachable target ends as Error", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "failing",
        targets: [
          { type: "http", address: receiver.url("/fail") },
          { type: "http", address: "http://127.0.0.1:1/nothing-listens" },
        ],
      }),
    );
    const jobIds = hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" });
    await hooks().flush();
    const [failed, unreachable] = jobIds.map((j) =>
      hooks()
        .deliveries()
        .find((d) => d.id === j),
    );
    expect(failed).toMatchObject({ status: "Error", response: 500 });
    expect(unreachable?.status).toBe("Error");
    expect(unreachable?.error).toMatch(/ECONNREFUSED/);
    const jobs = await h.admin.webhooks.listJobs(project.name, id, { status: ["Error"] });
    expect(jobs).toHaveLength(2);
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("why a delivery failed is in its task's job log only, as jobservice writes it", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "logged",
        targets: [
          { type: "http", address: receiver.url("/fail/logged") },
          { type: "http", address: "http://127.0.0.1:1/nothing-listens" },
          { type: "http", address: receiver.url("/logged") },
        ],
      }),
    );
    const [failed, unreachable, delivered] = hooks().trigger({
      project: project.name,
      eventType: "PUSH_ARTIFACT",
    }) as [number, number, number];
    await hooks().flush();

    // The jobs are the policy's executions, with a status but no error text.
    const executions = await h.api(`/projects/${project.name}/webhook/policies/${id}/executions`);
    expect(executions.status).toBe(200);
    const byId = new Map(
      ((await executions.json()) as Array<Record<string, unknown>>).map((e) => [e.id as number, e]),
    );
    expect(byId.get(failed)).toMatchObject({
      vendor_type: "WEBHOOK",
      vendor_id: id,
      status: "Error",
      trigger: "EVENT",
      extra_attrs: { event_type: "PUSH_ARTIFACT" },
    });
    expect(byId.get(delivered)).toMatchObject({ status: "Success" });
    expect(byId.get(failed)?.status_message).toBeUndefined();

    const logOf = async (execution: number) => {
      const tasks = await h.admin.webhooks.listExecutionTasks(project.name, id, execution);
      expect(tasks).toHaveLength(1);
      expect(tasks[0]?.execution_id).toBe(execution);
      expect(tasks[0]?.status_message).toBeUndefined();
      return {
        status: tasks[0]?.status,
        log: await h.admin.webhooks.getTaskLog(project.name, id, execution, tasks[0]?.id as number),
      };
    };
    const refused = await logOf(failed);
    expect(refused.status).toBe("Error");
    expect(refused.log).toMatch(
      /^\S+Z \[INFO\] \[\/jobservice\/job\/impl\/notification\/webhook_job\.go\]: start to run webhook job$/m,
    );
    expect(refused.log).toMatch(
      /\[ERROR\] \[\/jobservice\/job\/impl\/notification\/webhook_job\.go\]: exit webhook job, error: abnormal response code: 500, body: receiver says no$/m,
    );
    expect((await logOf(unreachable)).log).toMatch(
      /exit webhook job, error: error to send request: Post "http:\/\/127\.0\.0\.1:1\/nothing-listens": .*ECONNREFUSED/,
    );
    const ok = await logOf(delivered);
    expect(ok.status).toBe("Success");
    expect(ok.log).toContain("success to run webhook job");
    expect(ok.log).not.toContain("[ERROR]");

    // A task is reached only through its own policy and execution.
    const failedTask = (await h.admin.webhooks.listExecutionTasks(project.name, id, failed))[0]?.id as number;
    await expect(h.admin.webhooks.getTaskLog(project.name, id, delivered, failedTask)).rejects.toMatchObject({
      status: 404,
      harborMessage: `task ${failedTask} not found in execution ${delivered}`,
    });
    const otherPolicy = await h.admin.webhooks.createPolicy(project.name, base({ name: "other-logged" }));
    await expect(
      h.admin.webhooks.listExecutionTasks(project.name, otherPolicy, failed),
    ).rejects.toMatchObject({
      status: 404,
      harborMessage: `execution ${failed} not found in policy ${otherPolicy}`,
    });
    await h.admin.webhooks.deletePolicy(project.name, id);
    await h.admin.webhooks.deletePolicy(project.name, otherPolicy);
  });

  test("skip_cert_verify decides whether a self-signed https target is trusted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hook-tls-"));
    const made = spawnSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    expect(made.status).toBe(0);
    const tls = await new Receiver({
      key: readFileSync(join(dir, "key.pem"), "utf8"),
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
    }).start();
    rmSync(dir, { recursive: true });
    try {
      const id = await h.admin.webhooks.createPolicy(
        project.name,
        base({
          name: "tls",
          targets: [
            { type: "http", address: tls.url("/verified") },
            { type: "http", address: tls.url("/skipped"), skip_cert_verify: true },
          ],
        }),
      );
      const [verified, skipped] = hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" });
      await hooks().flush();
      const status = (j?: number) =>
        hooks()
          .deliveries()
          .find((d) => d.id === j)?.status;
      expect(status(verified)).toBe("Error");
      expect(status(skipped)).toBe("Success");
      expect(tls.take("/skipped")).toHaveLength(1);
      expect(tls.take("/verified")).toEqual([]);
      await h.admin.webhooks.deletePolicy(project.name, id);
    } finally {
      await tls.close();
    }
  });

  test("only loopback targets are delivered to: other hosts end Error with no connection or DNS lookup", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "loopback-only",
        targets: [
          { type: "http", address: receiver.url("/local") },
          { type: "http", address: `http://localhost:${receiver.port}/by-name` },
          // The example policy's placeholder, and a Slack address.
          { type: "http", address: "https://ci.example.com/hooks/harbor" },
          { type: "slack", address: "https://hooks.slack.com/services/T0/B0/xyz" },
        ],
      }),
    );
    const jobIds = hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" });
    await hooks().flush();
    const jobs = jobIds.map((j) =>
      hooks()
        .deliveries()
        .find((d) => d.id === j),
    );
    expect(jobs.map((j) => j?.status)).toEqual(["Success", "Success", "Error", "Error"]);
    expect(jobs[2]?.error).toBe(
      "not delivered: ci.example.com is not a loopback address (the emulator delivers webhooks to loopback only unless started with --allow-external-webhooks)",
    );
    expect(jobs[3]?.error).toContain("not delivered: hooks.slack.com is not a loopback address");
    expect(receiver.take("/local")).toHaveLength(1);
    expect(receiver.take("/by-name")).toHaveLength(1);
    // Nothing in this process tried to leave loopback (the test run's network guard records it).
    expect(guardRecords().filter((r) => r.event === "refused" && r.pid === process.pid)).toEqual([]);
    await h.admin.webhooks.deletePolicy(project.name, id);
  });

  test("allowExternalWebhooks lets deliveries leave loopback (in tests the network guard stops them)", async () => {
    // The guard is loaded here in any case, and records to a log of this test's own.
    await import(pathToFileURL(GUARD_PATH).href);
    const dir = mkdtempSync(join(tmpdir(), "hook-guard-"));
    const saved = process.env.HCO_NET_GUARD_LOG;
    process.env.HCO_NET_GUARD_LOG = join(dir, "guard.jsonl");
    const open = await startEmulator({ allowExternalWebhooks: true });
    try {
      const p = open.world.projects.insert({ name: "open", ownerId: 1, metadata: {}, storageLimit: -1 });
      open.world.webhooks.create(p.project_id, {
        name: "out",
        description: "",
        creator: "admin",
        enabled: true,
        event_types: ["PUSH_ARTIFACT"],
        targets: [
          {
            type: "http",
            address: "https://ci.example.com/hooks/harbor",
            auth_header: "",
            skip_cert_verify: false,
            payload_format: "Default",
          },
        ],
      });
      const [job] = open.control.webhooks.trigger({ project: "open", eventType: "PUSH_ARTIFACT" });
      await open.control.webhooks.flush();
      const delivery = open.control.webhooks.deliveries().find((d) => d.id === job);
      expect(delivery?.status).toBe("Error");
      expect(delivery?.error).toContain("network guard: refused a connection to ci.example.com:443");
      expect(guardRecords().map((r) => [r.event, r.target])).toEqual([["refused", "ci.example.com:443"]]);
    } finally {
      await open.close();
      if (saved === undefined) delete process.env.HCO_NET_GUARD_LOG;
      else process.env.HCO_NET_GUARD_LOG = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("events from other areas arrive through WebhookStore.notify", async () => {
    const id = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "notify",
        event_types: ["REPLICATION"],
        targets: [{ type: "http", address: receiver.url("/notify") }],
      }),
    );
    h.emulator.world.webhooks.notify({
      projectId: project.project_id,
      eventType: "REPLICATION",
      data: { replication: { job_status: "Success" } },
    });
    await hooks().flush();
    expect(receiver.take("/notify")[0]?.body).toMatchObject({
      type: "REPLICATION",
      operator: "harbor-jobservice",
      event_data: { replication: { job_status: "Success" } },
    });
    await h.admin.webhooks.deletePolicy(project.name, id);
  });
});

describe("jobs and last trigger", () => {
  let policyId: number;

  beforeAll(async () => {
    policyId = await h.admin.webhooks.createPolicy(
      project.name,
      base({
        name: "tracked",
        event_types: ["PUSH_ARTIFACT", "PULL_ARTIFACT"],
        targets: [{ type: "http", address: receiver.url("/tracked") }],
      }),
    );
  });

  test("last trigger: one entry per event type; the zero time until the policy fires", async () => {
    const before = (await h.admin.webhooks.lastTriggers(project.name)).filter(
      (t) => t.policy_name === "tracked",
    );
    expect(before).toEqual([
      expect.objectContaining({
        event_type: "PUSH_ARTIFACT",
        enabled: true,
        last_trigger_time: "0001-01-01T00:00:00.000Z",
      }),
      expect.objectContaining({ event_type: "PULL_ARTIFACT", last_trigger_time: "0001-01-01T00:00:00.000Z" }),
    ]);
    hooks().trigger({ project: project.name, eventType: "PUSH_ARTIFACT" });
    await hooks().flush();
    const after = (await h.admin.webhooks.lastTriggers(project.name)).filter(
      (t) => t.policy_name === "tracked",
    );
    expect(Date.parse(after[0]?.last_trigger_time as string)).toBeGreaterThan(0);
    expect(after[1]?.last_trigger_time).toBe("0001-01-01T00:00:00.000Z");
  });

  test("jobs: the payload, newest first, filtered by status and q", async () => {
    h.emulator.control.clock.advance(1_000);
    hooks().trigger({ project: project.name, eventType: "PULL_ARTIFACT", operator: "carl" });
    await hooks().flush();
    const jobs = await h.admin.webhooks.listJobs(project.name, policyId);
    expect(jobs.map((j) => j.event_type)).toEqual(["PULL_ARTIFACT", "PUSH_ARTIFACT"]);
    expect(jobs[0]).toMatchObject({ policy_id: policyId, notify_type: "http", status: "Success" });
    expect(JSON.parse(jobs[0]?.job_detail as string)).toMatchObject({
      type: "PULL_ARTIFACT",
      operator: "carl",
    });
    expect(await h.admin.webhooks.listJobs(project.name, policyId, { status: ["Error", "Pending"] })).toEqual(
      [],
    );
    const byQ = await h.admin.webhooks.listJobs(project.name, policyId, {
      q: q().exact("id", jobs[1]?.id as number),
    });
    expect(byQ.map((j) => j.event_type)).toEqual(["PUSH_ARTIFACT"]);
  });

  test("jobs need a policy of this project: policy_id is required, others' policies are 404", async () => {
    const missing = await h.api(`/projects/${project.project_id}/webhook/jobs`);
    expect(missing.status).toBe(422);
    expect((await firstError(missing)).message).toBe(
      "validation failure list:\npolicy_id in query is required",
    );
    await expect(h.admin.webhooks.listJobs(other.name, policyId)).rejects.toMatchObject({
      status: 404,
      harborMessage: `resource not found: project id ${other.project_id} does not match`,
    });
  });

  test("deleting the policy deletes its jobs", async () => {
    expect(
      hooks()
        .deliveries()
        .some((d) => d.policyId === policyId),
    ).toBe(true);
    await h.admin.webhooks.deletePolicy(project.name, policyId);
    expect(
      hooks()
        .deliveries()
        .some((d) => d.policyId === policyId),
    ).toBe(false);
    await expect(h.admin.webhooks.listJobs(project.name, policyId)).rejects.toMatchObject({
      harborMessage: `notificationPolicy ${policyId} not found`,
    });
  });

  test("deleting the project leaves its policies behind, out of the API's reach", async () => {
    const doomed = newProject("doomed");
    const id = await h.admin.webhooks.createPolicy(
      doomed.name,
      base({ name: "kept", targets: [{ type: "http", address: receiver.url("/kept") }] }),
    );
    await h.admin.projects.delete("doomed");
    // As in Harbor: the policy outlives its project in the database…
    expect(h.emulator.world.webhooks.get(id)).toMatchObject({ name: "kept", project_id: doomed.project_id });
    // …and the API cannot reach it: not under the old id, nor under a new project of the same name.
    expect(await harborErrorOf(h.admin.webhooks.getPolicy(doomed.project_id, id))).toMatchObject({
      status: 404,
    });
    const reborn = await h.admin.projects.create({ project_name: "doomed" });
    expect(reborn).not.toBe(doomed.project_id);
    expect(await h.admin.webhooks.listPolicies("doomed")).toEqual([]);
    expect(await harborErrorOf(h.admin.webhooks.getPolicy("doomed", id))).toMatchObject({ status: 404 });
    // The name is free again in the new project.
    await h.admin.webhooks.createPolicy("doomed", base({ name: "kept" }));
    // Events of the new project reach only its own policies.
    expect(hooks().trigger({ project: "doomed", eventType: "PUSH_ARTIFACT" })).toHaveLength(1);
    await hooks().flush();
  });

  test("writes are audited against the project", () => {
    const entries = h.emulator.control.audit
      .list()
      .filter((e) => e.resource === "tracked" && e.resource_type === "notification_policy");
    expect(entries.map((e) => [e.operation, e.project_id])).toEqual([
      ["create", project.project_id],
      ["delete", project.project_id],
    ]);
  });
});

describe("permissions", () => {
  beforeAll(() => {
    for (const [username, role] of [
      ["maya", "maintainer"],
      ["dev", "developer"],
      ["pa", "projectAdmin"],
    ] as const) {
      h.emulator.control.users.add({ username, password: "Pass1234" });
      h.emulator.control.users.setMember(project.name, username, role);
    }
    h.addUser("stranger", "Pass1234");
  });
  const as = (username: string) => h.client({ username, password: "Pass1234" });

  test("a project admin may do everything", async () => {
    const pa = as("pa");
    const id = await pa.webhooks.createPolicy(project.name, base({ name: "by-pa" }));
    await pa.webhooks.getPolicy(project.name, id);
    await pa.webhooks.lastTriggers(project.name);
    await pa.webhooks.listJobs(project.name, id);
    await pa.webhooks.deletePolicy(project.name, id);
  });

  test("a maintainer may list policies but not read, create or change them", async () => {
    const maya = as("maya");
    await expect(maya.webhooks.listPolicies(project.name)).resolves.toBeInstanceOf(Array);
    await expect(maya.webhooks.createPolicy(project.name, base({ name: "nope" }))).rejects.toMatchObject(
      harborError(403, "forbidden"),
    );
    await expect(maya.webhooks.supportedEventTypes(project.name)).rejects.toMatchObject({ status: 403 });
  });

  test("developers and non-members get 403; anonymous callers 401", async () => {
    await expect(as("dev").webhooks.listPolicies(project.name)).rejects.toMatchObject({ status: 403 });
    await expect(as("stranger").webhooks.listPolicies(project.name)).rejects.toMatchObject({ status: 403 });
    const anonymous = await fetch(
      `${h.emulator.url}/api/v2.0/projects/${project.project_id}/webhook/policies`,
    );
    expect(anonymous.status).toBe(401);
  });

  test("an unknown project: 404 for admins, 403 for others; reading a policy resolves the project first", async () => {
    await expect(h.admin.webhooks.listPolicies("no-such-project")).rejects.toMatchObject({
      status: 404,
      harborMessage: "project no-such-project not found",
    });
    await expect(as("stranger").webhooks.listPolicies("no-such-project")).rejects.toMatchObject({
      status: 403,
    });
    await expect(as("stranger").webhooks.getPolicy("no-such-project", 1)).rejects.toMatchObject({
      status: 404,
    });
  });
});
