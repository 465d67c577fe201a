// Project webhook policies, the supported event types, and deliveries that really POST to the
// target address. An event (from another area, or triggered through the control API) creates one
// job per (enabled policy subscribed to its type, target); each job is delivered in the background
// and ends as Success (2xx) or Error (any other status, or no answer). `flush()` waits for them.
//
// As in Harbor 2.8+, a job is an execution of the policy with one task, and what went wrong with a
// delivery is only in that task's job log (Harbor keeps no error text in the execution or the
// task: their status_message stays empty): the log's ERROR line reads `exit webhook job, error:
// abnormal response code: 500, body: …` or `… error to send request: Post "<address>": …`, as
// jobservice's webhook job writes it. Harbor retries a failed job up to three times (each run
// appending to the same log); the emulator runs each job once.
//
// Only loopback targets are delivered to unless the emulator was started with
// allowExternalWebhooks: any other target's job ends Error without a connection or a DNS lookup.
//
// The patch releases 2.13.6, 2.14.5 and 2.15.3 refuse delivery to private addresses at send time
// (not at creation) unless the project's metadata says `webhook_allow_private_ip: "true"`; the
// setting `webhookPrivateAddresses: "refuse"` models them (world.ts). A refused job ends Error with
// the reason in its log, without a connection; a name other than localhost is resolved for the
// check only when deliveries may leave loopback at all.
import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess, requireProject } from "../auth.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply } from "../listing.ts";
import { addressHost, isLoopbackHost, isPrivateAddress, isPrivateHost } from "../loopback.ts";
import { type Ctx, createdAt, ok, type ParamSpec, type RouteSpec, textReply } from "../router.ts";
import { harborTime, type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";

export interface WebhookEvent {
  projectId: number;
  /** One of Harbor's event types, e.g. PUSH_ARTIFACT. */
  eventType: string;
  /** Event data as Harbor puts it in the payload's event_data. */
  data: Record<string, unknown>;
  /** Who caused the event; default harbor-jobservice, the operator of system-driven events. */
  operator?: string;
}

/** What /webhook/events lists in Harbor 2.8 – 2.12, in Harbor's order. */
export const EVENT_TYPES = [
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
];
export const NOTIFY_TYPES = ["http", "slack"];
export const PAYLOAD_FORMATS = ["Default", "CloudEvents"];

/** The CloudEvents `type` of each Harbor event type. */
const CLOUD_EVENT_TYPES: Record<string, string> = {
  PUSH_ARTIFACT: "harbor.artifact.pushed",
  PULL_ARTIFACT: "harbor.artifact.pulled",
  DELETE_ARTIFACT: "harbor.artifact.deleted",
  QUOTA_EXCEED: "harbor.quota.exceeded",
  QUOTA_WARNING: "harbor.quota.warned",
  SCANNING_FAILED: "harbor.scan.failed",
  SCANNING_STOPPED: "harbor.scan.stopped",
  SCANNING_COMPLETED: "harbor.scan.completed",
  REPLICATION: "harbor.replication.status.changed",
  TAG_RETENTION: "harbor.tag_retention.finished",
};

const DELIVERY_TIMEOUT_MS = 10_000;

export interface WebhookTarget {
  type: string;
  address: string;
  auth_header: string;
  skip_cert_verify: boolean;
  payload_format: string;
}

export interface WebhookPolicyRecord {
  id: number;
  name: string;
  description: string;
  project_id: number;
  targets: WebhookTarget[];
  event_types: string[];
  creator: string;
  creation_time: string;
  update_time: string;
  enabled: boolean;
}

export type WebhookJobStatus = "Pending" | "Running" | "Success" | "Error";

export interface WebhookJobRecord {
  id: number;
  policy_id: number;
  project_id: number;
  event_type: string;
  notify_type: string;
  status: WebhookJobStatus;
  /** The event's payload in Harbor's Default format, whatever format was sent. */
  job_detail: string;
  address: string;
  creation_time: number;
  update_time: number;
  /** The receiver's HTTP status, or why no status came back. */
  response?: number;
  error?: string;
  /** The id of the execution's one task (Harbor's task ids are their own sequence). */
  task_id: number;
  start_time?: number;
  end_time?: number;
  /** The task's job log, line by line, as jobservice writes it. */
  log: string[];
}

/** A policy's editable fields, validated and normalised. */
type PolicyInput = Pick<
  WebhookPolicyRecord,
  "name" | "description" | "targets" | "event_types" | "creator" | "enabled"
>;

export class WebhookStore {
  readonly #world: World;
  readonly #policies = new Map<number, WebhookPolicyRecord>();
  readonly #jobs = new Map<number, WebhookJobRecord>();
  readonly #inflight = new Set<Promise<void>>();
  /** Whether deliveries may leave loopback (EmulatorOptions.allowExternalWebhooks). */
  allowExternal = false;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  get(id: number): WebhookPolicyRecord | undefined {
    return this.#policies.get(id);
  }

  byProject(projectId: number): WebhookPolicyRecord[] {
    return [...this.#policies.values()].filter((p) => p.project_id === projectId);
  }

  create(projectId: number, input: PolicyInput): WebhookPolicyRecord {
    this.#checkUnique(projectId, input.name);
    const now = this.#world.nowText();
    const rec = {
      ...input,
      id: this.#world.ids.next("webhook_policy"),
      project_id: projectId,
      creation_time: now,
      update_time: now,
    };
    this.#policies.set(rec.id, rec);
    return rec;
  }

  /** PUT replaces every editable field. */
  replace(rec: WebhookPolicyRecord, input: PolicyInput): void {
    this.#checkUnique(rec.project_id, input.name, rec.id);
    Object.assign(rec, input, { update_time: this.#world.nowText() });
  }

  /** Deletes the policy and its jobs. */
  delete(id: number): void {
    this.#policies.delete(id);
    for (const j of this.#jobs.values()) if (j.policy_id === id) this.#jobs.delete(j.id);
  }

  jobs(policyId?: number): WebhookJobRecord[] {
    return [...this.#jobs.values()].filter((j) => policyId === undefined || j.policy_id === policyId);
  }

  /** When a policy last fired for an event type, or undefined if never. */
  lastTrigger(policyId: number, eventType: string): number | undefined {
    let last: number | undefined;
    for (const j of this.#jobs.values()) {
      if (j.policy_id === policyId && j.event_type === eventType) last = Math.max(last ?? 0, j.creation_time);
    }
    return last;
  }

  /**
   * Delivers an event to every enabled policy of the project that subscribes to its type: one job
   * per target, sent in the background. Returns the new jobs.
   */
  notify(event: WebhookEvent): WebhookJobRecord[] {
    const occurAt = Math.floor(this.#world.now() / 1000);
    const operator = event.operator ?? "harbor-jobservice";
    const payload = { type: event.eventType, occur_at: occurAt, operator, event_data: event.data };
    const created: WebhookJobRecord[] = [];
    for (const policy of this.byProject(event.projectId)) {
      if (!policy.enabled || !policy.event_types.includes(event.eventType)) continue;
      for (const target of policy.targets) {
        const now = this.#world.now();
        const job: WebhookJobRecord = {
          id: this.#world.ids.next("execution"),
          policy_id: policy.id,
          project_id: policy.project_id,
          event_type: event.eventType,
          notify_type: target.type,
          status: "Pending",
          job_detail: JSON.stringify(payload),
          address: target.address,
          creation_time: now,
          update_time: now,
          task_id: this.#world.ids.next("task"),
          log: [],
        };
        this.#jobs.set(job.id, job);
        created.push(job);
        const request = formatRequest(policy, target, payload);
        // After the current turn, so that the call that caused the event answers first.
        const delivery = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => this.#deliver(job, target, request))
          .finally(() => this.#inflight.delete(delivery));
        this.#inflight.add(delivery);
      }
    }
    return created;
  }

  /** Resolves once every delivery started so far (and any they lead to) has finished. */
  async flush(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  async #deliver(job: WebhookJobRecord, target: WebhookTarget, request: DeliveryRequest): Promise<void> {
    // jobservice's webhook and slack jobs log the same way.
    const kind = target.type === "slack" ? "slack" : "webhook";
    const source = `/jobservice/job/impl/notification/${kind}_job.go`;
    const log = (level: "INFO" | "ERROR", text: string) =>
      job.log.push(`${harborTime(this.#world.now()).slice(0, 19)}Z [${level}] [${source}]: ${text}`);
    this.#setStatus(job, "Running");
    job.start_time = this.#world.now();
    log("INFO", `start to run ${kind} job`);
    const host = addressHost(target.address);
    const refusal = await this.#privateRefusal(job, host);
    if (refusal) {
      job.error = refusal;
      log("ERROR", `exit ${kind} job, error: ${refusal}`);
      job.end_time = this.#world.now();
      this.#setStatus(job, "Error");
      return;
    }
    if (!this.allowExternal && !(host !== undefined && isLoopbackHost(host))) {
      // Not Harbor's behaviour: the emulator keeps tests and the demo on loopback.
      job.error = `not delivered: ${host ?? target.address} is not a loopback address (the emulator delivers webhooks to loopback only unless started with --allow-external-webhooks)`;
      log("ERROR", `exit ${kind} job, error: ${job.error}`);
      job.end_time = this.#world.now();
      this.#setStatus(job, "Error");
      return;
    }
    log("INFO", `send request to remote endpoint, body: ${request.body}`);
    let failure: string | undefined;
    try {
      const answer = await post(target.address, request, target.skip_cert_verify);
      job.response = answer.status;
      if (answer.status < 200 || answer.status >= 300)
        failure = `abnormal response code: ${answer.status}, body: ${answer.body}`;
    } catch (e) {
      job.error = (e as Error).message;
      failure = `error to send request: Post "${target.address}": ${job.error}`;
    }
    if (failure === undefined) log("INFO", `success to run ${kind} job`);
    else log("ERROR", `exit ${kind} job, error: ${failure}`);
    job.end_time = this.#world.now();
    this.#setStatus(job, failure === undefined ? "Success" : "Error");
  }

  /** Why a patch that refuses private targets would not send this job, or undefined. */
  async #privateRefusal(job: WebhookJobRecord, host: string | undefined): Promise<string | undefined> {
    if (this.#world.settings.webhookPrivateAddresses !== "refuse" || host === undefined) return undefined;
    if (this.#world.projects.byId(job.project_id)?.metadata.webhook_allow_private_ip === "true")
      return undefined;
    let privateTarget = isPrivateHost(host);
    if (!privateTarget && this.allowExternal && !isIP(host.replace(/^\[|\]$/g, ""))) {
      const addresses = await lookup(host, { all: true }).catch(() => []);
      privateTarget = addresses.some((a) => isPrivateAddress(a.address));
    }
    if (!privateTarget) return undefined;
    return `the address ${host} of the webhook target is a private address, which the project does not allow (project metadata webhook_allow_private_ip)`;
  }

  #setStatus(job: WebhookJobRecord, status: WebhookJobStatus): void {
    job.status = status;
    job.update_time = this.#world.now();
  }

  #checkUnique(projectId: number, name: string, exceptId?: number): void {
    if (this.byProject(projectId).some((p) => p.name === name && p.id !== exceptId)) {
      throw conflict(`notification policy named ${name} already exists`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// delivery

interface DeliveryRequest {
  headers: Record<string, string>;
  body: string;
}

type Payload = { type: string; occur_at: number; operator: string; event_data: Record<string, unknown> };

/** The request Harbor sends to one target: Default or CloudEvents JSON, or a Slack message. */
function formatRequest(
  policy: WebhookPolicyRecord,
  target: WebhookTarget,
  payload: Payload,
): DeliveryRequest {
  if (target.type === "slack") {
    const text = `*event_type:* ${payload.type}\n*occur_at:* <!date^${payload.occur_at}^{date} at {time}|${new Date(payload.occur_at * 1000).toISOString()}>\n*operator:* ${payload.operator}\n*event_data:* ${JSON.stringify(payload.event_data)}`;
    const message = {
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: "*Harbor webhook events*" } },
        { type: "section", text: { type: "mrkdwn", text } },
      ],
    };
    return { headers: { "content-type": "application/json" }, body: JSON.stringify(message) };
  }
  const headers: Record<string, string> = {};
  if (target.auth_header) headers.authorization = target.auth_header;
  if (target.payload_format === "CloudEvents") {
    const event = {
      specversion: "1.0",
      id: randomUUID(),
      source: `/projects/${policy.project_id}/webhook/policies/${policy.id}`,
      type: CLOUD_EVENT_TYPES[payload.type] ?? payload.type,
      datacontenttype: "application/json",
      time: `${new Date(payload.occur_at * 1000).toISOString().slice(0, 19)}Z`,
      data: payload.event_data,
      operator: payload.operator,
    };
    return {
      headers: { ...headers, "content-type": "application/cloudevents+json" },
      body: JSON.stringify(event),
    };
  }
  return { headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(payload) };
}

/** What jobservice reads of a receiver's answer body for its log. */
const ANSWER_BODY_LIMIT = 4096;

/** POSTs the request; resolves with the receiver's status code and (the start of) its body. */
function post(
  address: string,
  request: DeliveryRequest,
  skipCertVerify: boolean,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(address);
    const options = {
      method: "POST",
      headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
      timeout: DELIVERY_TIMEOUT_MS,
    };
    const onResponse = (res: http.IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < ANSWER_BODY_LIMIT) body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: body.slice(0, ANSWER_BODY_LIMIT) }));
      res.on("error", reject);
    };
    const req =
      url.protocol === "https:"
        ? https.request(url, { ...options, rejectUnauthorized: !skipCertVerify }, onResponse)
        : http.request(url, options, onResponse);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(request.body);
  });
}

// ---------------------------------------------------------------------------------------------
// validation (Harbor's handler rules, in its order)

const TargetBody = z
  .object({
    type: z.string().nullish(),
    address: z.string().nullish(),
    auth_header: z.string().nullish(),
    skip_cert_verify: z.boolean().nullish(),
    payload_format: z.string().nullish(),
  })
  .meta({ goType: "WebhookTargetObject" });

const PolicyBody = z
  .object({
    id: z.number().int().nullish(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    project_id: z.number().int().nullish(),
    targets: z.array(TargetBody).nullish(),
    event_types: z.array(z.string()).nullish(),
    creator: z.string().nullish(),
    creation_time: z.string().nullish(),
    update_time: z.string().nullish(),
    enabled: z.boolean().nullish(),
  })
  .meta({ goType: "WebhookPolicy" });
type PolicyBody = z.output<typeof PolicyBody>;

/**
 * Harbor's check of a target address (ParseEndpoint): it must parse once spaces and trailing
 * slashes are trimmed and http:// is put before a scheme-less one, and its scheme must be http or
 * https. What is stored is the address exactly as sent: the handler normalises a copy it then
 * throws away (seen on a running 2.12.4).
 */
function checkAddress(raw: string): string {
  let endpoint = raw.replace(/^ +| +$/g, "").replace(/\/+$/, "");
  if (endpoint === "") throw badRequest("empty URL");
  const sep = endpoint.indexOf("://");
  if (sep >= 0) {
    const scheme = endpoint.slice(0, sep);
    if (scheme !== "http" && scheme !== "https") throw badRequest(`invalid scheme: ${scheme}`);
  } else endpoint = `http://${endpoint}`;
  const host = /^https?:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(endpoint)?.[1] ?? "";
  const bad = /[^\w.\-~!$&'()*+,;=:[\]%]/.exec(host);
  if (bad) throw badRequest(`parse "${endpoint}": invalid character "${bad[0]}" in host name`);
  return raw;
}

function validatePolicy(b: PolicyBody): PolicyInput {
  const name = b.name ?? "";
  const eventTypes = b.event_types ?? [];
  if (eventTypes.length === 0) throw badRequest("empty event type");
  for (const t of eventTypes) if (!EVENT_TYPES.includes(t)) throw badRequest(`unsupported event type ${t}`);
  const targets = b.targets ?? [];
  if (targets.length === 0) throw badRequest(`empty notification target with policy ${name}`);
  return {
    name,
    description: b.description ?? "",
    event_types: eventTypes,
    creator: b.creator ?? "",
    // Omitting `enabled` stores false.
    enabled: b.enabled ?? false,
    targets: targets.map((t) => {
      const address = checkAddress(t.address ?? "");
      const type = t.type ?? "";
      if (!NOTIFY_TYPES.includes(type))
        throw badRequest(`unsupported target type ${type} with policy ${name}`);
      const format = t.payload_format ?? "";
      if (format !== "" && type === "slack") throw badRequest("set payload format is not allowed for slack");
      if (format !== "" && !PAYLOAD_FORMATS.includes(format)) {
        throw badRequest(`unsupported payload format type: ${format}`);
      }
      return {
        type,
        address,
        auth_header: t.auth_header ?? "",
        skip_cert_verify: t.skip_cert_verify ?? false,
        payload_format: format === "" && type === "http" ? "Default" : format,
      };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// API

const render = (p: WebhookPolicyRecord) => ({
  ...omitEmpty(
    {
      id: p.id,
      name: p.name,
      description: p.description,
      project_id: p.project_id,
      targets: p.targets.map((t) => omitEmpty(t)),
      event_types: p.event_types,
      creator: p.creator,
      enabled: p.enabled,
    },
    ["enabled"],
  ),
  creation_time: p.creation_time,
  update_time: p.update_time,
});

const renderJob = (j: WebhookJobRecord) => ({
  ...omitEmpty({
    id: j.id,
    policy_id: j.policy_id,
    event_type: j.event_type,
    notify_type: j.notify_type,
    status: j.status,
    job_detail: j.job_detail,
  }),
  creation_time: harborTime(j.creation_time),
  update_time: harborTime(j.update_time),
});

const policyFields: Fields<WebhookPolicyRecord> = {
  id: (p) => p.id,
  name: (p) => p.name,
  description: (p) => p.description,
  project_id: (p) => p.project_id,
  creator: (p) => p.creator,
  enabled: (p) => p.enabled,
  targets: (p) => JSON.stringify(p.targets),
  event_types: (p) => JSON.stringify(p.event_types),
  creation_time: (p) => p.creation_time,
  update_time: (p) => p.update_time,
};

const jobFields: Fields<WebhookJobRecord> = {
  id: (j) => j.id,
  status: (j) => j.status,
  vendor_id: (j) => j.policy_id,
  vendor_type: (j) => (j.notify_type === "slack" ? "SLACK" : "WEBHOOK"),
  trigger: () => "EVENT",
  start_time: (j) => harborTime(j.creation_time),
  update_time: (j) => harborTime(j.update_time),
};

/** A job as Harbor 2.8+ shows it: an execution of the policy (status raw, as the job's). */
const renderExecution = (j: WebhookJobRecord) => {
  const done = j.status === "Success" || j.status === "Error";
  const count = (s: WebhookJobStatus) => (j.status === s ? 1 : 0);
  return {
    id: j.id,
    vendor_type: j.notify_type === "slack" ? "SLACK" : "WEBHOOK",
    vendor_id: j.policy_id,
    // An execution whose task has not started yet is Running already; only tasks are Pending.
    status: j.status === "Pending" ? "Running" : j.status,
    metrics: {
      task_count: 1,
      success_task_count: count("Success"),
      error_task_count: count("Error"),
      pending_task_count: count("Pending"),
      running_task_count: count("Running"),
    },
    trigger: "EVENT",
    extra_attrs: { event_type: j.event_type, payload: j.job_detail },
    start_time: harborTime(j.creation_time),
    end_time: done ? harborTime(j.end_time ?? j.update_time) : ZERO_TIME,
  };
};

/** The execution's one task. Harbor keeps no error text here (status_message is empty). */
const renderTask = (j: WebhookJobRecord) => ({
  id: j.task_id,
  execution_id: j.id,
  status: j.status,
  run_count: j.start_time === undefined ? 0 : 1,
  extra_attrs: {},
  creation_time: harborTime(j.creation_time),
  update_time: harborTime(j.update_time),
  start_time: j.start_time === undefined ? ZERO_TIME : harborTime(j.start_time),
  end_time: j.end_time === undefined ? ZERO_TIME : harborTime(j.end_time),
});

const executionFields: Fields<WebhookJobRecord> = {
  id: (j) => j.id,
  status: (j) => (j.status === "Pending" ? "Running" : j.status),
  vendor_id: (j) => j.policy_id,
  vendor_type: (j) => (j.notify_type === "slack" ? "SLACK" : "WEBHOOK"),
  trigger: () => "EVENT",
  start_time: (j) => harborTime(j.creation_time),
  end_time: (j) => (j.end_time === undefined ? ZERO_TIME : harborTime(j.end_time)),
};

const taskFields: Fields<WebhookJobRecord> = {
  id: (j) => j.task_id,
  execution_id: (j) => j.id,
  status: (j) => j.status,
  creation_time: (j) => harborTime(j.creation_time),
  update_time: (j) => harborTime(j.update_time),
};

const newestFirst =
  <T extends { id: number }>(time: (x: T) => string | number) =>
  (a: T, b: T) =>
    String(time(b)).localeCompare(String(time(a))) || b.id - a.id;

const PROJECT_HEADER: Record<string, ParamSpec> = { "X-Is-Resource-Name": { type: "bool", default: false } };
const POLICIES = "/projects/{project_name_or_id}/webhook/policies";
const POLICY = `${POLICIES}/{webhook_policy_id}`;

/** A policy of the project in the path: unknown ids and other projects' policies are 404. */
function policyIn(ctx: Ctx, project: ProjectRecord, id: number): WebhookPolicyRecord {
  const policy = ctx.world.webhooks.get(id);
  if (!policy) throw notFound(`notificationPolicy ${id} not found`);
  if (policy.project_id !== project.project_id) {
    throw notFound(
      `resource not found: project id:${project.project_id}, webhook policy id: ${id} not found`,
    );
  }
  return policy;
}

/**
 * The project of the path, resolved before access is checked (these handlers call getProjectID
 * first, so an unknown project is 404 for every caller), then read access to its policies.
 */
function readableProject(ctx: Ctx): ProjectRecord {
  const ref = ctx.params.project_name_or_id as string;
  const project = ctx.world.projects.resolve(ref, ctx.query["X-Is-Resource-Name"] === true);
  if (!project) throw notFound(`project ${ref} not found`);
  requireProject(ctx, project, "notification-policy", "read");
  return project;
}

/** A job (execution) of the policy in the path, as Harbor's requireExecutionInPolicy checks it. */
function executionIn(ctx: Ctx, policy: WebhookPolicyRecord, id: number): WebhookJobRecord {
  const job = ctx.world.webhooks.jobs().find((j) => j.id === id);
  if (!job) throw notFound(`execution ${id} not found`);
  if (job.policy_id !== policy.id) throw notFound(`execution ${id} not found in policy ${policy.id}`);
  return job;
}

function audit(ctx: Ctx, policy: WebhookPolicyRecord, operation: "create" | "update" | "delete"): void {
  auditWrite(ctx, {
    project_id: policy.project_id,
    resource: policy.name,
    resource_type: "notification_policy",
    operation,
  });
}

const routes: RouteSpec[] = [
  {
    op: "ListWebhookPoliciesOfProject",
    method: "GET",
    path: POLICIES,
    paged: true,
    headers: PROJECT_HEADER,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "list",
      );
      return listReply(ctx, ctx.world.webhooks.byProject(project.project_id), policyFields, {
        render,
        defaultOrder: newestFirst((p) => p.creation_time),
      });
    },
  },
  {
    op: "CreateWebhookPolicyOfProject",
    method: "POST",
    path: POLICIES,
    headers: PROJECT_HEADER,
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "create",
      );
      const policy = ctx.world.webhooks.create(project.project_id, validatePolicy(ctx.body as PolicyBody));
      audit(ctx, policy, "create");
      return createdAt(ctx, policy.id);
    },
  },
  {
    op: "GetWebhookPolicyOfProject",
    method: "GET",
    path: POLICY,
    params: { webhook_policy_id: "int" },
    headers: PROJECT_HEADER,
    handle(ctx) {
      // This handler resolves the project before checking access: an unknown project is 404 for all.
      const ref = ctx.params.project_name_or_id as string;
      const project = ctx.world.projects.resolve(ref, ctx.query["X-Is-Resource-Name"] === true);
      if (!project) throw notFound(`project ${ref} not found`);
      requireProject(ctx, project, "notification-policy", "read");
      return ok(render(policyIn(ctx, project, ctx.params.webhook_policy_id as number)));
    },
  },
  {
    op: "UpdateWebhookPolicyOfProject",
    method: "PUT",
    path: POLICY,
    params: { webhook_policy_id: "int" },
    headers: PROJECT_HEADER,
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "update",
      );
      const policy = policyIn(ctx, project, ctx.params.webhook_policy_id as number);
      ctx.world.webhooks.replace(policy, validatePolicy(ctx.body as PolicyBody));
      audit(ctx, policy, "update");
      return ok();
    },
  },
  {
    op: "DeleteWebhookPolicyOfProject",
    method: "DELETE",
    path: POLICY,
    params: { webhook_policy_id: "int" },
    headers: PROJECT_HEADER,
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "delete",
      );
      const policy = policyIn(ctx, project, ctx.params.webhook_policy_id as number);
      ctx.world.webhooks.delete(policy.id);
      audit(ctx, policy, "delete");
      return ok();
    },
  },
  {
    op: "ListExecutionsOfWebhookPolicy",
    method: "GET",
    path: `${POLICY}/executions`,
    params: { webhook_policy_id: "int" },
    paged: true,
    headers: PROJECT_HEADER,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      const policy = policyIn(ctx, readableProject(ctx), ctx.params.webhook_policy_id as number);
      return listReply(ctx, ctx.world.webhooks.jobs(policy.id), executionFields, {
        render: renderExecution,
        defaultOrder: newestFirst((j) => j.creation_time),
      });
    },
  },
  {
    op: "ListTasksOfWebhookExecution",
    method: "GET",
    path: `${POLICY}/executions/{execution_id}/tasks`,
    params: { webhook_policy_id: "int", execution_id: "int" },
    paged: true,
    headers: PROJECT_HEADER,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      const policy = policyIn(ctx, readableProject(ctx), ctx.params.webhook_policy_id as number);
      const job = executionIn(ctx, policy, ctx.params.execution_id as number);
      return listReply(ctx, [job], taskFields, { render: renderTask });
    },
  },
  {
    op: "GetLogsOfWebhookTask",
    method: "GET",
    path: `${POLICY}/executions/{execution_id}/tasks/{task_id}/log`,
    params: { webhook_policy_id: "int", execution_id: "int", task_id: "int" },
    headers: PROJECT_HEADER,
    handle(ctx) {
      const policy = policyIn(ctx, readableProject(ctx), ctx.params.webhook_policy_id as number);
      const job = executionIn(ctx, policy, ctx.params.execution_id as number);
      const taskId = ctx.params.task_id as number;
      const task = ctx.world.webhooks.jobs().find((j) => j.task_id === taskId);
      if (!task) throw notFound(`task ${taskId} not found`);
      if (task.id !== job.id) throw notFound(`task ${taskId} not found in execution ${job.id}`);
      return textReply(job.log.map((line) => `${line}\n`).join(""));
    },
  },
  {
    op: "GetSupportedEventTypes",
    method: "GET",
    path: "/projects/{project_name_or_id}/webhook/events",
    headers: PROJECT_HEADER,
    handle(ctx) {
      projectAccess(ctx, ctx.params.project_name_or_id as string, "notification-policy", "read");
      return ok({
        event_type: EVENT_TYPES,
        notify_type: NOTIFY_TYPES,
        payload_formats: [{ notify_type: "http", formats: PAYLOAD_FORMATS }],
      });
    },
  },
  {
    op: "LastTrigger",
    method: "GET",
    path: "/projects/{project_name_or_id}/webhook/lasttrigger",
    headers: PROJECT_HEADER,
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "read",
      );
      const store = ctx.world.webhooks;
      const policies = store.byProject(project.project_id).sort(newestFirst((p) => p.creation_time));
      return ok(
        policies.flatMap((p) =>
          p.event_types.map((t) => {
            const last = store.lastTrigger(p.id, t);
            return {
              ...omitEmpty({ policy_name: p.name, event_type: t, enabled: p.enabled }),
              creation_time: p.creation_time,
              // A date-time is a struct in Go: never omitted, the zero time when never triggered.
              last_trigger_time: last === undefined ? ZERO_TIME : harborTime(last),
            };
          }),
        ),
      );
    },
  },
  {
    op: "ListWebhookJobs",
    method: "GET",
    path: "/projects/{project_name_or_id}/webhook/jobs",
    paged: true,
    headers: PROJECT_HEADER,
    query: {
      q: { type: "string" },
      sort: { type: "string" },
      policy_id: { type: "int", required: true },
      status: { type: "string[]" },
    },
    handle(ctx) {
      const project = projectAccess(
        ctx,
        ctx.params.project_name_or_id as string,
        "notification-policy",
        "list",
      );
      const policyId = ctx.query.policy_id as number;
      const policy = ctx.world.webhooks.get(policyId);
      if (!policy) throw notFound(`notificationPolicy ${policyId} not found`);
      if (policy.project_id !== project.project_id) {
        throw notFound(`resource not found: project id ${project.project_id} does not match`);
      }
      const statuses = (ctx.query.status as string[] | undefined) ?? [];
      const jobs = ctx.world.webhooks
        .jobs(policyId)
        .filter((j) => statuses.length === 0 || statuses.includes(j.status));
      return listReply(ctx, jobs, jobFields, {
        render: renderJob,
        defaultOrder: newestFirst((j) => j.creation_time),
      });
    },
  },
];

/** Event data like Harbor's for an artifact event in a project's repository. */
function sampleEventData(project: ProjectRecord, now: number): Record<string, unknown> {
  const repo = "app";
  const digest = `sha256:${"0123456789abcdef".repeat(4)}`;
  return {
    resources: [{ digest, tag: "latest", resource_url: `harbor.example.com/${project.name}/${repo}:latest` }],
    repository: {
      date_created: Math.floor(now / 1000),
      name: repo,
      namespace: project.name,
      repo_full_name: `${project.name}/${repo}`,
      repo_type: project.metadata.public === "true" ? "public" : "private",
    },
  };
}

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * Fires an event in a project (by name or id), as Harbor does when something happens there:
     * every enabled policy subscribed to `eventType` gets one job per target, delivered in the
     * background. `data` becomes the payload's event_data (default: a pushed artifact in the
     * project); `operator` defaults to harbor-jobservice. Returns the new job ids.
     */
    trigger(e: {
      project: string | number;
      eventType: string;
      data?: Record<string, unknown>;
      operator?: string;
    }): number[] {
      const project =
        typeof e.project === "number" ? world.projects.byId(e.project) : world.projects.byName(e.project);
      if (!project) throw new Error(`no project ${e.project}`);
      const jobs = world.webhooks.notify({
        projectId: project.project_id,
        eventType: e.eventType,
        data: e.data ?? sampleEventData(project, world.now()),
        ...(e.operator === undefined ? {} : { operator: e.operator }),
      });
      return jobs.map((j) => j.id);
    },
    /** Waits until every delivery started so far has finished. */
    flush: (): Promise<void> => world.webhooks.flush(),
    /**
     * Every delivery job: policy, event type, target address, status, and the receiver's HTTP
     * status or the error that prevented one.
     */
    deliveries: () =>
      world.webhooks.jobs().map((j) => ({
        id: j.id,
        policyId: j.policy_id,
        projectId: j.project_id,
        eventType: j.event_type,
        notifyType: j.notify_type,
        address: j.address,
        status: j.status,
        ...(j.response === undefined ? {} : { response: j.response }),
        ...(j.error === undefined ? {} : { error: j.error }),
      })),
  }),
});
