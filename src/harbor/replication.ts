// Replication policies, executions, tasks and task logs (/replication/…). A policy copies between
// this Harbor (the Local registry, id 0) and one remote registry: push when the source is Local,
// pull when the destination is.
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { ReplicationFilterDecoration, ReplicationTriggerType } from "./model/enums.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { Registry } from "./registries.ts";
import { path } from "./request-url.ts";
import { type CallOptions, type HarborTransport, LOG_RESPONSE_LIMIT } from "./transport.ts";

export const ReplicationTrigger = z.object({
  type: z.string().optional(),
  trigger_settings: nullAsAbsent(z.object({ cron: z.string().optional() })),
});

export const ReplicationFilter = z.object({
  /** name, tag, label or resource. */
  type: z.string().optional(),
  /** A string, or a list of label names for the label filter. */
  value: z.unknown(),
  /** matches or excludes (tag and label filters only). */
  decoration: z.string().optional(),
});

export const ReplicationPolicy = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  /** Both sides come back in full; the local side is the Local registry (id 0). */
  src_registry: nullAsAbsent(Registry),
  dest_registry: nullAsAbsent(Registry),
  dest_namespace: z.string().optional(),
  dest_namespace_replace_count: z.number().int().nullish(),
  trigger: nullAsAbsent(ReplicationTrigger),
  /** null when the policy has none. */
  filters: nullAsAbsent(z.array(ReplicationFilter)),
  replicate_deletion: z.boolean().optional(),
  /** Deprecated twin of replicate_deletion; Harbor fills both. */
  deletion: z.boolean().optional(),
  override: z.boolean().optional(),
  enabled: z.boolean().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
  speed: z.number().int().nullish(),
  copy_by_chunk: z.boolean().nullish(),
  /** Harbor 2.14+. */
  single_active_replication: z.boolean().nullish(),
});
export type ReplicationPolicy = z.output<typeof ReplicationPolicy>;

/** A policy Harbor has stored, as get and list return it: its id is always there. */
export const PersistedReplicationPolicy = ReplicationPolicy.extend({ id: z.number().int() });
export type PersistedReplicationPolicy = z.output<typeof PersistedReplicationPolicy>;

/**
 * A policy to create or to replace one with. Harbor reads replicate-deletion from the deprecated
 * `deletion` field, so the client sends the value in both.
 */
export const ReplicationPolicyReq = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    /** Exactly one side is the Local registry, id 0. */
    src_registry: z.object({ id: z.number().int() }),
    dest_registry: z.object({ id: z.number().int() }),
    dest_namespace: z.string().optional(),
    /** -1 (the default) is Harbor's legacy mode. */
    dest_namespace_replace_count: z.number().int().min(-1).max(127).optional(),
    trigger: z
      .object({
        type: ReplicationTriggerType,
        /** For scheduled: 6 fields, seconds first and 0, e.g. "0 0 * * * *". */
        trigger_settings: z.object({ cron: z.string() }).optional(),
      })
      .optional(),
    filters: z
      .array(
        z.object({
          type: z.enum(["name", "tag", "label", "resource"]),
          value: z.union([z.string(), z.array(z.string())]),
          decoration: ReplicationFilterDecoration.optional(),
        }),
      )
      .optional(),
    replicate_deletion: z.boolean().optional(),
    override: z.boolean().optional(),
    enabled: z.boolean().optional(),
    /** Per-task bandwidth limit in KB/s; 0 is unlimited. */
    speed: z.number().int().optional(),
    copy_by_chunk: z.boolean().optional(),
    /**
     * Harbor 2.14+: a scheduled or event-based start does nothing while a run of the policy is in
     * progress. A replace without it turns it off.
     */
    single_active_replication: z.boolean().optional(),
  })
  .transform((p) => (p.replicate_deletion === undefined ? p : { ...p, deletion: p.replicate_deletion }));
export type ReplicationPolicyReq = z.input<typeof ReplicationPolicyReq>;

export const ReplicationExecution = z.object({
  id: z.number().int().optional(),
  policy_id: z.number().int().optional(),
  /** InProgress, Succeed, Failed or Stopped. */
  status: z.string().optional(),
  /** manual, scheduled or event_based. */
  trigger: z.string().optional(),
  start_time: z.string().optional(),
  /** 0001-01-01T00:00:00.000Z while running. */
  end_time: z.string().optional(),
  status_text: z.string().optional(),
  total: z.number().int().optional(),
  failed: z.number().int().optional(),
  succeed: z.number().int().optional(),
  in_progress: z.number().int().optional(),
  stopped: z.number().int().optional(),
});
export type ReplicationExecution = z.output<typeof ReplicationExecution>;

/** An execution Harbor has stored, as get and list return it: its id is always there. */
export const PersistedReplicationExecution = ReplicationExecution.extend({ id: z.number().int() });
export type PersistedReplicationExecution = z.output<typeof PersistedReplicationExecution>;

export const ReplicationTask = z.object({
  id: z.number().int().optional(),
  execution_id: z.number().int().optional(),
  /** Pending, InProgress, Succeed, Failed or Stopped. */
  status: z.string().optional(),
  job_id: z.string().optional(),
  /** copy or deletion. */
  operation: z.string().optional(),
  /** artifact (Harbor's own adapter, incl. the Local registry) or image (the other adapters). */
  resource_type: z.string().optional(),
  /** One repository per task, e.g. "library/nginx [3 item(s) in total]". */
  src_resource: z.string().optional(),
  dst_resource: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
});
export type ReplicationTask = z.output<typeof ReplicationTask>;

/** A task Harbor has stored, as the task list returns it: its id is always there. */
export const PersistedReplicationTask = ReplicationTask.extend({ id: z.number().int() });
export type PersistedReplicationTask = z.output<typeof PersistedReplicationTask>;

export interface ReplicationPolicyListParams extends ListFilter {
  /** Fuzzy match on the name. */
  name?: string;
}

/** Executions have no q; these are their only filters. */
export interface ReplicationExecutionListParams {
  policyId?: number;
  status?: "InProgress" | "Succeed" | "Failed" | "Stopped";
  trigger?: ReplicationTriggerType;
  sort?: string;
  /** Only the first this many executions in sort order: one small page instead of every page. */
  limit?: number;
}

export interface ReplicationTaskListParams {
  /** InProgress matches both scheduled and running tasks. */
  status?: "Pending" | "InProgress" | "Succeed" | "Failed" | "Stopped";
  resourceType?: string;
  sort?: string;
  /** Only the first this many tasks in sort order: one small page instead of every page. */
  limit?: number;
}

export class ReplicationApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listReplicationPolicies: every page, newest first unless sorted otherwise. */
  listPolicies(
    params: ReplicationPolicyListParams = {},
    opts?: CallOptions,
  ): Promise<PersistedReplicationPolicy[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listReplicationPolicies",
        method: "GET",
        path: "/replication/policies",
        query: { name: params.name, ...listQuery(params) },
      },
      PersistedReplicationPolicy,
    );
  }

  /** createReplicationPolicy: returns the new policy's id. */
  async createPolicy(policy: ReplicationPolicyReq, opts?: CallOptions): Promise<number> {
    const body = ReplicationPolicyReq.parse(policy);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createReplicationPolicy",
        method: "POST",
        path: "/replication/policies",
        body,
      }),
    );
  }

  /** getReplicationPolicy */
  getPolicy(id: number, opts?: CallOptions): Promise<PersistedReplicationPolicy> {
    return this.#t.json(
      { ...opts, operation: "getReplicationPolicy", method: "GET", path: path`/replication/policies/${id}` },
      PersistedReplicationPolicy,
    );
  }

  /** updateReplicationPolicy: replaces every setting (fields left out take their defaults). */
  updatePolicy(id: number, policy: ReplicationPolicyReq, opts?: CallOptions): Promise<void> {
    const body = ReplicationPolicyReq.parse(policy);
    return this.#t.noContent({
      ...opts,
      operation: "updateReplicationPolicy",
      method: "PUT",
      path: path`/replication/policies/${id}`,
      body,
    });
  }

  /** deleteReplicationPolicy: 412 while one of its executions is still running. */
  deletePolicy(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteReplicationPolicy",
      method: "DELETE",
      path: path`/replication/policies/${id}`,
    });
  }

  /** listReplicationExecutions: every page, newest first unless sorted otherwise. */
  listExecutions(
    params: ReplicationExecutionListParams = {},
    opts?: CallOptions,
  ): Promise<PersistedReplicationExecution[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listReplicationExecutions",
        method: "GET",
        path: "/replication/executions",
        query: {
          policy_id: params.policyId,
          status: params.status,
          trigger: params.trigger,
          sort: params.sort,
        },
      },
      PersistedReplicationExecution,
      params.limit,
    );
  }

  /** startReplication: runs the policy now and returns the execution's id (412 if it is disabled). */
  async start(policyId: number, opts?: CallOptions): Promise<number> {
    return Number(
      await this.#t.created({
        ...opts,
        operation: "startReplication",
        method: "POST",
        path: "/replication/executions",
        body: { policy_id: policyId },
      }),
    );
  }

  /** getReplicationExecution */
  getExecution(id: number, opts?: CallOptions): Promise<PersistedReplicationExecution> {
    return this.#t.json(
      {
        ...opts,
        operation: "getReplicationExecution",
        method: "GET",
        path: path`/replication/executions/${id}`,
      },
      PersistedReplicationExecution,
    );
  }

  /**
   * stopReplication: stops a running execution; a finished one stays as it is. Harbor answers with
   * a JSON `null`, which carries nothing to read.
   */
  stop(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "stopReplication",
      method: "PUT",
      path: path`/replication/executions/${id}`,
    });
  }

  /** listReplicationTasks: every page of the execution's tasks. */
  listTasks(
    executionId: number,
    params: ReplicationTaskListParams = {},
    opts?: CallOptions,
  ): Promise<PersistedReplicationTask[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listReplicationTasks",
        method: "GET",
        path: path`/replication/executions/${executionId}/tasks`,
        query: { status: params.status, resource_type: params.resourceType, sort: params.sort },
      },
      PersistedReplicationTask,
      params.limit,
    );
  }

  /** getReplicationLog: the task's job log, as plain text. */
  getTaskLog(executionId: number, taskId: number, opts?: CallOptions): Promise<string> {
    return this.#t.text({
      ...opts,
      operation: "getReplicationLog",
      method: "GET",
      path: path`/replication/executions/${executionId}/tasks/${taskId}/log`,
      maxResponseBytes: LOG_RESPONSE_LIMIT,
    });
  }
}
