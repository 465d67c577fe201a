// Project webhooks (/projects/{p}/webhook/…): policies, the supported event types, the last trigger
// time per policy and event type, and the delivery jobs. Permissions: notification-policy on the
// project (project admins; maintainers may only list).
//
// A delivery job is an execution of the policy with one task (Harbor 2.8+). Why a delivery failed
// is in that task's job log only: the job, execution and task carry a status but no error text.
import { z } from "zod";
import { nullAsAbsent, type ProjectRef, projectHeaders } from "./common.ts";
import { WebhookEventType, WebhookNotifyType, WebhookPayloadFormat } from "./model/enums.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const WebhookTarget = z.object({
  /** http or slack. */
  type: z.string().optional(),
  /** As sent: Harbor stores the address verbatim (it only checks the scheme). */
  address: z.string().optional(),
  auth_header: z.string().optional(),
  skip_cert_verify: z.boolean().optional(),
  /** Default or CloudEvents; http targets without one get Default. */
  payload_format: z.string().optional(),
});
export type WebhookTarget = z.output<typeof WebhookTarget>;

export const WebhookPolicy = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  project_id: z.number().int().optional(),
  targets: nullAsAbsent(z.array(WebhookTarget)),
  event_types: nullAsAbsent(z.array(z.string())),
  creator: z.string().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
  enabled: z.boolean().optional(),
});
export type WebhookPolicy = z.output<typeof WebhookPolicy>;

/** A policy Harbor has stored, as get and list return it: its id is always there. */
export const PersistedWebhookPolicy = WebhookPolicy.extend({ id: z.number().int() });
export type PersistedWebhookPolicy = z.output<typeof PersistedWebhookPolicy>;

const TargetInput = z.discriminatedUnion("type", [
  z.object({
    type: z.literal(WebhookNotifyType.enum.http),
    address: z.string().min(1),
    auth_header: z.string().optional(),
    skip_cert_verify: z.boolean().optional(),
    payload_format: WebhookPayloadFormat.optional(),
  }),
  // Harbor refuses a payload format on slack targets.
  z.object({
    type: z.literal(WebhookNotifyType.enum.slack),
    address: z.string().min(1),
    skip_cert_verify: z.boolean().optional(),
  }),
]);

/** What create and update send: update replaces the whole policy with it. */
export const WebhookPolicyInput = z.object({
  name: z.string(),
  description: z.string().optional(),
  targets: z.array(TargetInput).min(1),
  event_types: z.array(WebhookEventType).min(1),
  /** Harbor stores whatever is sent here; it does not fill it in. */
  creator: z.string().optional(),
  /** Required here because Harbor stores false when it is left out. */
  enabled: z.boolean(),
});
export type WebhookPolicyInput = z.input<typeof WebhookPolicyInput>;

export const SupportedWebhookEventTypes = z.object({
  event_type: nullAsAbsent(z.array(z.string())),
  notify_type: nullAsAbsent(z.array(z.string())),
  payload_formats: nullAsAbsent(
    z.array(z.object({ notify_type: z.string().optional(), formats: nullAsAbsent(z.array(z.string())) })),
  ),
});
export type SupportedWebhookEventTypes = z.output<typeof SupportedWebhookEventTypes>;

export const WebhookLastTrigger = z.object({
  policy_name: z.string().optional(),
  event_type: z.string().optional(),
  enabled: z.boolean().optional(),
  creation_time: z.string().optional(),
  /** 0001-01-01T00:00:00.000Z when the policy never fired for this event type. */
  last_trigger_time: z.string().optional(),
});
export type WebhookLastTrigger = z.output<typeof WebhookLastTrigger>;

export const WebhookJob = z.object({
  id: z.number().int().optional(),
  policy_id: z.number().int().optional(),
  event_type: z.string().optional(),
  notify_type: z.string().optional(),
  /** The raw status: Pending, Running, Success, Error. */
  status: z.string().optional(),
  /** The event payload (JSON text). */
  job_detail: z.string().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type WebhookJob = z.output<typeof WebhookJob>;

/** A job Harbor has stored, as the job list returns it: its id (its execution's) is always there. */
export const PersistedWebhookJob = WebhookJob.extend({ id: z.number().int() });
export type PersistedWebhookJob = z.output<typeof PersistedWebhookJob>;

/** A task of a policy's execution (a delivery has one). status_message stays empty for deliveries. */
export const WebhookTask = z.object({
  id: z.number().int().optional(),
  execution_id: z.number().int().optional(),
  /** Pending, Scheduled, Running, Success, Error or Stopped. */
  status: z.string().optional(),
  status_message: z.string().optional(),
  run_count: z.number().int().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
});
export type WebhookTask = z.output<typeof WebhookTask>;

/** A task Harbor has stored, as the task list returns it: its id is always there. */
export const PersistedWebhookTask = WebhookTask.extend({ id: z.number().int() });
export type PersistedWebhookTask = z.output<typeof PersistedWebhookTask>;

/** The most of a delivery's job log the operator reads: a few lines, one of them the payload. */
export const WEBHOOK_LOG_LIMIT = 1024 * 1024;

export interface WebhookJobListParams extends ListFilter {
  /** Any of these statuses. */
  status?: readonly string[];
  /** Only the first this many jobs in sort order: one small page instead of every page. */
  limit?: number;
}

export class WebhooksApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** ListWebhookPoliciesOfProject: every page, newest first unless sorted otherwise. */
  listPolicies(
    project: ProjectRef,
    filter?: ListFilter,
    opts?: CallOptions,
  ): Promise<PersistedWebhookPolicy[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListWebhookPoliciesOfProject",
        method: "GET",
        path: path`/projects/${project}/webhook/policies`,
        headers: projectHeaders(project),
        query: listQuery(filter),
      },
      PersistedWebhookPolicy,
    );
  }

  /** CreateWebhookPolicyOfProject: returns the new policy's id. Names are unique per project. */
  async createPolicy(project: ProjectRef, policy: WebhookPolicyInput, opts?: CallOptions): Promise<number> {
    const body = WebhookPolicyInput.parse(policy);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "CreateWebhookPolicyOfProject",
        method: "POST",
        path: path`/projects/${project}/webhook/policies`,
        headers: projectHeaders(project),
        body,
      }),
    );
  }

  /** GetWebhookPolicyOfProject: notFound when the policy belongs to another project. */
  getPolicy(project: ProjectRef, id: number, opts?: CallOptions): Promise<PersistedWebhookPolicy> {
    return this.#t.json(
      {
        ...opts,
        operation: "GetWebhookPolicyOfProject",
        method: "GET",
        path: path`/projects/${project}/webhook/policies/${id}`,
        headers: projectHeaders(project),
      },
      PersistedWebhookPolicy,
    );
  }

  /** UpdateWebhookPolicyOfProject: replaces every field of the policy. */
  updatePolicy(
    project: ProjectRef,
    id: number,
    policy: WebhookPolicyInput,
    opts?: CallOptions,
  ): Promise<void> {
    const body = WebhookPolicyInput.parse(policy);
    return this.#t.noContent({
      ...opts,
      operation: "UpdateWebhookPolicyOfProject",
      method: "PUT",
      path: path`/projects/${project}/webhook/policies/${id}`,
      headers: projectHeaders(project),
      body,
    });
  }

  /** DeleteWebhookPolicyOfProject: also deletes the policy's jobs. */
  deletePolicy(project: ProjectRef, id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteWebhookPolicyOfProject",
      method: "DELETE",
      path: path`/projects/${project}/webhook/policies/${id}`,
      headers: projectHeaders(project),
    });
  }

  /** GetSupportedEventTypes: the event types, notify types and payload formats Harbor accepts. */
  supportedEventTypes(project: ProjectRef, opts?: CallOptions): Promise<SupportedWebhookEventTypes> {
    return this.#t.json(
      {
        ...opts,
        operation: "GetSupportedEventTypes",
        method: "GET",
        path: path`/projects/${project}/webhook/events`,
        headers: projectHeaders(project),
      },
      SupportedWebhookEventTypes,
    );
  }

  /** LastTrigger (deprecated by Harbor 2.8, still served): one entry per policy and event type. */
  lastTriggers(project: ProjectRef, opts?: CallOptions): Promise<WebhookLastTrigger[]> {
    return this.#t.json(
      {
        ...opts,
        operation: "LastTrigger",
        method: "GET",
        path: path`/projects/${project}/webhook/lasttrigger`,
        headers: projectHeaders(project),
      },
      WebhookLastTrigger.array(),
    );
  }

  /** ListTasksOfWebhookExecution: the tasks of one execution (a job's id is its execution's). */
  listExecutionTasks(
    project: ProjectRef,
    policyId: number,
    executionId: number,
    opts?: CallOptions,
  ): Promise<PersistedWebhookTask[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListTasksOfWebhookExecution",
        method: "GET",
        path: path`/projects/${project}/webhook/policies/${policyId}/executions/${executionId}/tasks`,
        headers: projectHeaders(project),
      },
      PersistedWebhookTask,
    );
  }

  /** GetLogsOfWebhookTask: the delivery's job log, as plain text. */
  getTaskLog(
    project: ProjectRef,
    policyId: number,
    executionId: number,
    taskId: number,
    opts?: CallOptions,
  ): Promise<string> {
    return this.#t.text({
      ...opts,
      operation: "GetLogsOfWebhookTask",
      method: "GET",
      path: path`/projects/${project}/webhook/policies/${policyId}/executions/${executionId}/tasks/${taskId}/log`,
      headers: projectHeaders(project),
      maxResponseBytes: WEBHOOK_LOG_LIMIT,
    });
  }

  /** ListWebhookJobs (deprecated by Harbor 2.8, still served): a policy's jobs, every page unless limited. */
  listJobs(
    project: ProjectRef,
    policyId: number,
    params: WebhookJobListParams = {},
    opts?: CallOptions,
  ): Promise<PersistedWebhookJob[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListWebhookJobs",
        method: "GET",
        path: path`/projects/${project}/webhook/jobs`,
        headers: projectHeaders(project),
        query: { policy_id: policyId, status: params.status, ...listQuery(params) },
      },
      PersistedWebhookJob,
      params.limit,
    );
  }
}
