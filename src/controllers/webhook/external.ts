// HarborWebhookPolicy's ExternalClient: how a project's webhook policy is observed, created, updated
// and deleted in Harbor, and how its delivery status is read.
// - Auth headers are read from their Secrets in `prepare` (so the drift sweep compares Harbor's
//   value with the Secret's each time) and live only in `extra`: never in status, events or logs.
//   A missing Secret or key waits (Ready=False, SecretNotFound) and is retried, and so does a
//   Secret that does not opt in as a webhook auth header (SecretNotAllowed, see
//   shared/secret-uses.ts: Harbor sends the header to the address of the spec's choosing). A changed
//   Secret is pushed like drift: its field (e.g. targets[0].authHeader) is named, never its value.
// - A new policy costs two Harbor requests: the project's policy list (by name) and the create; none
//   in a project the operator has just created (no lookup, see FreshProjects). Harbor stores a
//   policy as sent, so the create is not read back. The drift sweep reads one policy list per project.
// - Delivery status (last trigger per event type, recent failed deliveries) costs two more reads
//   per policy, so it is not part of the sweep: it is refreshed on every reconcile, and each
//   reconcile asks for another after `statusRefreshMs` (a few drift intervals), so the status is
//   never older than that while steady state stays at a few reads per policy per refresh.
// - Why a delivery failed is only in its task's job log in Harbor: a failure new to the status
//   costs two reads once (its task, its log); one already shown keeps the text it has.
// - On deletion the project may already be gone (a namespace deleted at once): the project id
//   recorded in status still finds the policy, and Secrets are not needed.

import { MANAGED_BY, SECRET_USES } from "../../api/common.ts";
import type { HarborWebhookPolicySpec, HarborWebhookPolicyStatus } from "../../api/webhook.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { PersistedWebhookPolicy } from "../../harbor/webhooks.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import {
  type AfterSync,
  type ExternalClient,
  type ManagedObject,
  NotReady,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { FreshProjects } from "../shared/fresh-projects.ts";
import { projectScope } from "../shared/project-scope.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import {
  type DeliveryFailure,
  deliveryError,
  diff,
  lastTriggers,
  MAX_RECENT_FAILURES,
  policyRequest,
  recentFailures,
  status,
  storedAsCreated,
  type WebhookContext,
} from "./mapping.ts";

export interface WebhookExtra extends WebhookContext {
  /** The Harbor id of the policy's project. */
  projectId: number;
}

type Client = ExternalClient<
  HarborWebhookPolicySpec,
  PersistedWebhookPolicy,
  HarborConnectionHandle,
  WebhookExtra,
  HarborWebhookPolicyStatus
>;

export interface WebhookExternalDeps {
  projects: Informer<ManagedObject>;
  secrets: SecretUses;
  /** How long delivery status may age before a reconcile refreshes it. */
  statusRefreshMs: number;
  /** Projects just created: their first policy lookup needs no list. */
  fresh?: FreshProjects;
}

export function webhookExternal(deps: WebhookExternalDeps): Client {
  const get = async (conn: HarborConnectionHandle, projectId: number, id: number, signal: AbortSignal) => {
    try {
      return await conn.client.webhooks.getPolicy(projectId, id, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  const authHeader = async (namespace: string, ref: { name: string; key: string }): Promise<string> => {
    const secret = await deps.secrets.read(namespace, ref.name, SECRET_USES.webhookAuthHeader);
    if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
    const value = secret.values[ref.key]?.trim();
    if (!value) throw new NotReady("SecretNotFound", `Secret ${ref.name} has no value for key ${ref.key}`);
    if (/[\r\n]/.test(value)) {
      throw new NotReady(
        "SecretInvalid",
        `Secret ${ref.name} key ${ref.key} holds a line break; an Authorization header is one line`,
      );
    }
    return value;
  };

  // The failure texts read from job logs, per policy in its Harbor: the texts of the last refresh,
  // which the status in the informer's cache may not show yet when the next refresh starts at once.
  // At most MAX_RECENT_FAILURES per policy, dropped with the policy.
  const failureTexts = new Map<string, Map<number, string>>();
  const textsKey = (conn: HarborConnectionHandle, policyId: number) => `${conn.harbor} ${policyId}`;

  return {
    async prepare({ resource, spec, conn }) {
      const deleting = resource.metadata.deletionTimestamp !== undefined;
      const { projectId } = projectScope(deps.projects, resource, spec, conn);
      if (deleting) return { projectId, authHeaders: [] };
      const namespace = resource.metadata.namespace ?? "";
      const authHeaders = await Promise.all(
        spec.targets.map((t) => (t.authHeaderSecretRef ? authHeader(namespace, t.authHeaderSecretRef) : "")),
      );
      return { projectId, authHeaders };
    },

    async observe({ conn, knownId, harborName, extra, signal }) {
      if (knownId !== undefined) return get(conn, extra.projectId, knownId, signal);
      if (deps.fresh?.firstLookup(conn.harbor, extra.projectId, "webhook policy")) return undefined;
      // Harbor names are unique per project; the list is one call where a `q` could not hold every name.
      const policies = await conn.client.webhooks.listPolicies(extra.projectId, undefined, { signal });
      return policies.find((p) => p.name === harborName);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const request = policyRequest(spec, harborName, extra, undefined, MANAGED_BY);
      const id = await conn.client.webhooks.createPolicy(extra.projectId, request, { signal });
      return storedAsCreated(request, id, extra.projectId);
    },

    async update({ conn, spec, harborName, extra, signal }, current) {
      const id = current.id;
      const request = policyRequest(spec, harborName, extra, current, MANAGED_BY);
      await conn.client.webhooks.updatePolicy(extra.projectId, id, request, { signal });
      return (await get(conn, extra.projectId, id, signal)) ?? current;
    },

    async delete({ conn, extra, signal }, current) {
      failureTexts.delete(textsKey(conn, current.id));
      try {
        await conn.client.webhooks.deletePolicy(extra.projectId, current.id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    diff: ({ spec, harborName, extra }, observed) => diff(spec, harborName, extra, observed),
    identifies: ({ harborName }, observed) => observed.name === harborName,
    id: (observed) => observed.id,
    status: ({ extra }, observed) => status(extra.projectId, observed),

    // The return type is declared so that the status literals below are checked field by field.
    async afterSync(
      { conn, extra, harborName, logger, signal, resource },
      observed,
      created,
    ): Promise<AfterSync<HarborWebhookPolicyStatus>> {
      const requeueAfterMs = Math.round(deps.statusRefreshMs * (0.9 + Math.random() * 0.2));
      // A new policy has neither fired nor failed yet.
      if (created) return { requeueAfterMs, status: { lastTriggers: [], recentFailures: [] } };
      // Delivery status is informational: a failed read keeps the last one shown, not the sync.
      const informational = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
        try {
          return await read();
        } catch (e) {
          if (!isHarborError(e)) throw e;
          logger.info({ err: e.message }, "could not read the webhook's delivery status");
          return undefined;
        }
      };
      const [triggers, jobs] = await Promise.all([
        informational(() => conn.client.webhooks.lastTriggers(extra.projectId, { signal })),
        informational(() =>
          conn.client.webhooks.listJobs(
            extra.projectId,
            observed.id,
            // Only the newest few failures: one small page however long the history.
            { status: ["Error"], sort: "-creation_time", limit: MAX_RECENT_FAILURES },
            { signal },
          ),
        ),
      ]);
      const policyId = observed.id;
      // Failures shown already (or read by the last refresh) keep their text; a new one's is read
      // from its job log.
      const key = textsKey(conn, policyId);
      const shown = new Map<number, string | undefined>([
        ...((resource.status?.recentFailures ?? []) as DeliveryFailure[]).map(
          (f) => [f.jobId, f.error] as const,
        ),
        ...(failureTexts.get(key) ?? []),
      ]);
      const failures = jobs
        ? await Promise.all(
            recentFailures(jobs).map(async (f) => {
              const error = shown.has(f.jobId)
                ? shown.get(f.jobId)
                : await informational(async () => {
                    const [task] = await conn.client.webhooks.listExecutionTasks(
                      extra.projectId,
                      policyId,
                      f.jobId,
                      { signal },
                    );
                    if (!task) return undefined;
                    const log = await conn.client.webhooks.getTaskLog(
                      extra.projectId,
                      policyId,
                      f.jobId,
                      task.id,
                      { signal },
                    );
                    return deliveryError(log);
                  });
              return error === undefined ? f : { ...f, error };
            }),
          )
        : undefined;
      if (failures)
        failureTexts.set(
          key,
          new Map(failures.flatMap((f) => (f.error === undefined ? [] : [[f.jobId, f.error] as const]))),
        );
      return {
        requeueAfterMs,
        status: {
          ...(triggers ? { lastTriggers: lastTriggers(observed.name ?? harborName, triggers) } : {}),
          ...(failures ? { recentFailures: failures } : {}),
        },
      };
    },

    async observeMany(conn, inputs) {
      const found = new Map<number, PersistedWebhookPolicy>();
      const projects = new Map(inputs.map((i) => [i.extra.projectId, i.signal]));
      await forEachBounded(projects, SWEEP_CONCURRENCY, async ([projectId, signal]) => {
        let policies: PersistedWebhookPolicy[];
        try {
          policies = await conn.client.webhooks.listPolicies(projectId, undefined, { signal });
        } catch (e) {
          // The project is gone: its policies are missing, which their reconciles handle.
          if (isHarborError(e, "notFound")) return;
          throw e;
        }
        for (const p of policies) found.set(p.id, p);
      });
      return found;
    },

    // Names are unique per project; the project is named by its resource in the same namespace.
    claim: (spec, harborName, namespace) => `webhook:${namespace}/${spec.projectRef.name}/${harborName}`,
  };
}
