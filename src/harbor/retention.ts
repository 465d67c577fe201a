// Tag retention (/retentions): one policy per project, which the project's metadata `retention_id`
// names; its executions (run now, dry run, scheduled), their tasks (one per repository) and logs.
// What Harbor does with these requests is written down in README.md (tag retention).
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { path } from "./request-url.ts";
import { TagRule, TagSelector } from "./tag-rule.ts";
import { type CallOptions, type HarborTransport, LOG_RESPONSE_LIMIT } from "./transport.ts";

/** Harbor's rule templates (GET /retentions/metadatas); each takes the parameter of its own name. */
export const RETENTION_TEMPLATES = [
  "latestPushedK",
  "latestPulledN",
  "nDaysSinceLastPush",
  "nDaysSinceLastPull",
  "always",
] as const;

/** Harbor's model of a rule is the same for retention and immutable tags (see tag-rule.ts). */
export const RetentionSelector = TagSelector;
export type RetentionSelector = TagSelector;

/** A retention rule: action "retain", one of RETENTION_TEMPLATES. */
export const RetentionRule = TagRule;
export type RetentionRule = TagRule;

export const RetentionPolicy = z.object({
  id: z.number().int().optional(),
  /** Always "or". */
  algorithm: z.string().optional(),
  rules: nullAsAbsent(z.array(RetentionRule)),
  trigger: nullAsAbsent(
    z.object({
      /** "Schedule"; its settings.cron "" means no schedule. */
      kind: z.string().optional(),
      settings: nullAsAbsent(z.record(z.string(), z.unknown())),
      references: nullAsAbsent(z.record(z.string(), z.unknown())),
    }),
  ),
  scope: nullAsAbsent(z.object({ level: z.string().optional(), ref: z.number().int().optional() })),
});
export type RetentionPolicy = z.output<typeof RetentionPolicy>;
export type RetentionPolicyRequest = z.input<typeof RetentionPolicy>;

export const RetentionExecution = z.object({
  id: z.number().int(),
  policy_id: z.number().int().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  /** Running, Success, Error or Stopped. */
  status: z.string().optional(),
  /** MANUAL or SCHEDULE. */
  trigger: z.string().optional(),
  dry_run: z.boolean().optional(),
});
export type RetentionExecution = z.output<typeof RetentionExecution>;

export const RetentionTask = z.object({
  id: z.number().int(),
  execution_id: z.number().int().optional(),
  repository: z.string().optional(),
  job_id: z.string().optional(),
  status: z.string().optional(),
  status_code: z.number().int().optional(),
  status_revision: z.number().int().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  total: z.number().int().optional(),
  retained: z.number().int().optional(),
});
export type RetentionTask = z.output<typeof RetentionTask>;

export const RetentionMetadata = z.object({
  templates: nullAsAbsent(
    z.array(
      z.object({
        rule_template: z.string().optional(),
        display_text: z.string().optional(),
        action: z.string().optional(),
        params: nullAsAbsent(
          z.array(
            z.object({
              type: z.string().optional(),
              unit: z.string().optional(),
              required: z.boolean().optional(),
            }),
          ),
        ),
      }),
    ),
  ),
  scope_selectors: nullAsAbsent(z.array(z.looseObject({ kind: z.string().optional() }))),
  tag_selectors: nullAsAbsent(z.array(z.looseObject({ kind: z.string().optional() }))),
});
export type RetentionMetadata = z.output<typeof RetentionMetadata>;

export class RetentionApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** getRentenitionMetadata (sic): the templates and selectors Harbor offers. */
  metadata(opts?: CallOptions): Promise<RetentionMetadata> {
    return this.#t.json(
      { ...opts, operation: "getRentenitionMetadata", method: "GET", path: "/retentions/metadatas" },
      RetentionMetadata,
    );
  }

  /** createRetention: the new policy's id; Harbor also sets the project's retention_id to it. */
  async create(policy: RetentionPolicyRequest, opts?: CallOptions): Promise<number> {
    const body = RetentionPolicy.parse(policy);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createRetention",
        method: "POST",
        path: "/retentions",
        body,
      }),
    );
  }

  /** getRetention. A policy Harbor does not have is a 500, not a 404. */
  get(id: number, opts?: CallOptions): Promise<RetentionPolicy> {
    return this.#t.json(
      { ...opts, operation: "getRetention", method: "GET", path: path`/retentions/${id}` },
      RetentionPolicy,
    );
  }

  /** updateRetention: replaces rules and trigger; the id must be the project's retention_id. */
  update(id: number, policy: RetentionPolicyRequest, opts?: CallOptions): Promise<void> {
    const body = RetentionPolicy.parse(policy);
    return this.#t.noContent({
      ...opts,
      operation: "updateRetention",
      method: "PUT",
      path: path`/retentions/${id}`,
      body,
    });
  }

  /** deleteRetention: leaves the project's retention_id in place (see README.md). */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteRetention",
      method: "DELETE",
      path: path`/retentions/${id}`,
    });
  }

  /** triggerRetentionExecution: starts one run (or dry run) now; the execution's id. */
  async trigger(id: number, dryRun: boolean, opts?: CallOptions): Promise<number> {
    return Number(
      await this.#t.created({
        ...opts,
        operation: "triggerRetentionExecution",
        method: "POST",
        path: path`/retentions/${id}/executions`,
        body: { dry_run: dryRun },
      }),
    );
  }

  /** listRetentionExecutions: newest first; `limit` keeps only the first ones. */
  listExecutions(id: number, limit?: number, opts?: CallOptions): Promise<RetentionExecution[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listRetentionExecutions",
        method: "GET",
        path: path`/retentions/${id}/executions`,
      },
      RetentionExecution,
      limit,
    );
  }

  /** operateRetentionExecution with action "stop". */
  stopExecution(id: number, executionId: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "operateRetentionExecution",
      method: "PATCH",
      path: path`/retentions/${id}/executions/${executionId}`,
      body: { action: "stop" },
    });
  }

  /** listRetentionTasks: one task per repository the execution looked at. */
  listTasks(id: number, executionId: number, opts?: CallOptions): Promise<RetentionTask[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listRetentionTasks",
        method: "GET",
        path: path`/retentions/${id}/executions/${executionId}/tasks`,
      },
      RetentionTask,
    );
  }

  /** getRetentionTaskLog: the task's log, a table of the tags retained and deleted. */
  taskLog(id: number, executionId: number, taskId: number, opts?: CallOptions): Promise<string> {
    return this.#t.text({
      ...opts,
      operation: "getRetentionTaskLog",
      method: "GET",
      path: path`/retentions/${id}/executions/${executionId}/tasks/${taskId}`,
      maxResponseBytes: LOG_RESPONSE_LIMIT,
    });
  }
}
