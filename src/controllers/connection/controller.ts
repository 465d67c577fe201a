// The reconciler of HarborConnection and ClusterHarborConnection. Each run checks one connection:
// it reads the credentials Secret (on demand; Secrets are never listed or watched), builds or
// refreshes the connection's Harbor client, probes Harbor, reports the outcome to Connections (what
// managed resources resolve against), writes the status when it changed and records an Event when
// Ready changes. A Ready connection is checked again after the drift interval; one that is not
// Ready after a backoff capped at retryMaxMs, so a fixed Secret is noticed within that time.
import { ClusterHarborConnectionSpec, ConnectionStatus, HarborConnectionSpec } from "../../api/connection.ts";
import type { KubeClient } from "../../kube/client.ts";
import { isKubeError } from "../../kube/errors.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { SecretWriter } from "../../kube/secrets.ts";
import type { ResourceType } from "../../kube/types.ts";
import { jsonEqual } from "../../runtime/conditions.ts";
import {
  type ReconcileContext,
  type Reconciler,
  type Result,
  TerminalError,
} from "../../runtime/controller.ts";
import { describeIssues, INVALID_SPEC } from "../../runtime/invalid-spec.ts";
import { connectionKey } from "./handle.ts";
import {
  type CheckResult,
  type ConnectionKind,
  type CredentialsRef,
  credentialsFrom,
  nextStatus,
  readyInput,
  readyTransition,
  registryHostOf,
  retryDelayMs,
} from "./mapping.ts";
import { probe } from "./probe.ts";
import type { ConnectionObject, Connections } from "./resolver.ts";

export interface ConnectionReconcilerOptions {
  kind: ConnectionKind;
  type: ResourceType;
  /** The informer cache of this kind, by informer key ("namespace/name" or "name"). */
  get(key: string): ConnectionObject | undefined;
  kube: KubeClient;
  secrets: SecretWriter;
  events: EventRecorder;
  connections: Connections;
  /** Recheck interval of a Ready connection; each run is jittered by ±10 %. */
  driftIntervalMs: number;
  /** Backoff of a connection that is not Ready: doubling from retryBaseMs (2 s) to retryMaxMs (30 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** See nextStatus: how stale lastCheckTime may get while nothing else changes. Default 10 min. */
  lastCheckRefreshMs?: number;
  /** Deadline of one probe (default 20 s) and of each Harbor call in it (default 10 s). */
  probeDeadlineMs?: number;
  callTimeoutMs?: number;
  now?: () => Date;
}

type Spec = HarborConnectionSpec | ClusterHarborConnectionSpec;

export class ConnectionReconciler implements Reconciler {
  readonly #o: ConnectionReconcilerOptions;
  /** Failed checks in a row, per connection, for the backoff. */
  readonly #failures = new Map<string, number>();

  constructor(o: ConnectionReconcilerOptions) {
    this.#o = o;
  }

  async reconcile(ctx: ReconcileContext): Promise<Result> {
    const o = this.#o;
    const key = this.#connectionKey(ctx.key);
    const obj = o.get(ctx.key);
    if (!obj) {
      o.connections.forget(key);
      this.#failures.delete(key);
      return {};
    }
    const parsed = (
      o.kind === "ClusterHarborConnection" ? ClusterHarborConnectionSpec : HarborConnectionSpec
    ).safeParse(obj.spec ?? {});
    if (!parsed.success) {
      // The CRD refuses most of this at admission; what gets here was stored before a rule
      // existed (or is a URL only the operator's parser refuses). No retry can fix it.
      const message = describeIssues(parsed.error.issues, obj.spec);
      const url = String((obj.spec as { url?: unknown } | undefined)?.url ?? "");
      await this.#finish(obj, key, { url, failure: { reason: INVALID_SPEC, message } }, "");
      throw new TerminalError(message);
    }
    const spec: Spec = parsed.data;
    const registryHost = registryHostOf(spec);
    const result = await this.#check(obj, key, spec, ctx);
    const ready = await this.#finish(obj, key, result, registryHost);
    if (ready) {
      this.#failures.delete(key);
      return { requeueAfterMs: Math.round(o.driftIntervalMs * (0.9 + Math.random() * 0.2)) };
    }
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const delay = retryDelayMs(failures, o.retryBaseMs ?? 2_000, o.retryMaxMs ?? 30_000);
    // The status and an Event tell the user; the log says it once per outage, then only at debug.
    ctx.logger[failures === 1 ? "info" : "debug"](
      { reason: result.failure?.reason, retryInMs: delay },
      "connection is not ready",
    );
    return { requeueAfterMs: delay };
  }

  async #check(obj: ConnectionObject, key: string, spec: Spec, ctx: ReconcileContext): Promise<CheckResult> {
    const o = this.#o;
    const ref: CredentialsRef = {
      namespace:
        "namespace" in spec.credentialsSecretRef
          ? spec.credentialsSecretRef.namespace
          : (obj.metadata.namespace ?? ""),
      name: spec.credentialsSecretRef.name,
      usernameKey: spec.credentialsSecretRef.usernameKey,
      passwordKey: spec.credentialsSecretRef.passwordKey,
    };
    let values: Record<string, string> | undefined;
    try {
      values = (await o.secrets.read(ref.namespace, ref.name))?.values;
    } catch (e) {
      if (!isKubeError(e) || e.kind === "network" || e.kind === "server") throw e; // retried by the controller
      return {
        url: spec.url,
        failure: {
          reason: "SecretUnreadable",
          message: `cannot read Secret ${ref.namespace}/${ref.name}: ${e.message}`,
        },
      };
    }
    const creds = credentialsFrom(values, ref);
    if (!creds.ok) return { url: spec.url, failure: creds.failure };
    const client = o.connections.clientFor(key, {
      url: spec.url,
      caBundle: spec.caBundle,
      insecureSkipTLSVerify: spec.insecureSkipTLSVerify,
      requestsPerSecond: spec.rateLimit.requestsPerSecond,
      burst: spec.rateLimit.burst,
      maxConcurrency: spec.maxConcurrency,
      ...creds.credentials,
    });
    return probe({
      client,
      url: spec.url,
      credentials: { ...ref, ...creds.credentials },
      checks: spec.checks,
      signal: ctx.signal,
      deadlineMs: o.probeDeadlineMs ?? 20_000,
      callTimeoutMs: o.callTimeoutMs ?? 10_000,
    });
  }

  /** Reports the outcome, writes the status if it changed and records a transition. Returns Ready. */
  async #finish(
    obj: ConnectionObject,
    key: string,
    result: CheckResult,
    registryHost: string,
  ): Promise<boolean> {
    const o = this.#o;
    const generation = obj.metadata.generation;
    const ready = readyInput(result);
    o.connections.report(key, {
      ready: ready.status === "True",
      reason: ready.reason,
      message: ready.message,
      generation,
      url: result.url,
      registryHost,
      harborVersion: result.harborVersion,
    });
    const parsed = ConnectionStatus.safeParse(obj.status ?? {});
    const previous = parsed.success ? parsed.data : undefined;
    const next = nextStatus(
      previous,
      generation,
      result,
      (o.now ?? (() => new Date()))(),
      o.lastCheckRefreshMs ?? 600_000,
    );
    if (!jsonEqual(obj.status ?? {}, next)) {
      // Merge patch: fields that disappeared are sent as null.
      const patch: Record<string, unknown> = { ...next };
      for (const k of Object.keys(obj.status ?? {})) if (!(k in next)) patch[k] = null;
      try {
        const updated = await o.kube.patchStatus<ConnectionObject>(
          o.type,
          obj.metadata.namespace,
          obj.metadata.name,
          patch,
        );
        // The cached object shows what was written, so the next run compares against it; the
        // informer then skips its own echo of this write (same resourceVersion).
        obj.status = updated.status ?? next;
        obj.metadata.resourceVersion = updated.metadata.resourceVersion;
      } catch (e) {
        if (isKubeError(e, "notFound")) return ready.status === "True";
        throw e;
      }
    }
    const event = readyTransition(previous, next);
    if (event) o.events.record(obj, event.type, event.reason, event.message);
    return ready.status === "True";
  }

  #connectionKey(informerKey: string): string {
    const slash = informerKey.indexOf("/");
    if (this.#o.kind === "ClusterHarborConnection" || slash < 0) {
      return connectionKey("", { kind: this.#o.kind, name: informerKey });
    }
    return connectionKey(informerKey.slice(0, slash), {
      kind: this.#o.kind,
      name: informerKey.slice(slash + 1),
    });
  }
}
