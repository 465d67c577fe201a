// The reconciler of HarborConnection and ClusterHarborConnection. Each run checks one connection:
// it reads the credentials Secret (on demand; Secrets are never listed or watched), builds or
// refreshes the connection's Harbor client, probes Harbor, reports the outcome to Connections (what
// managed resources resolve against), writes the status when it changed and records an Event when
// Ready changes. A Ready connection is checked again after the drift interval; one that is not
// Ready after a backoff capped at retryMaxMs, so a fixed Secret is noticed within that time.
//
// Teardown: a connection carries the finalizer, and its credentials Secret the credentials
// finalizer, from its first check on. A connection being deleted keeps working (resources that
// are being deleted still need it to delete their Harbor objects) until no resource uses it; then
// it lets its Secret go (unless another connection reads it) and itself. So a namespace, or a
// GitOps bundle, deleted as a whole ends with everything gone, whatever order the deletes came in.
import { CREDENTIALS_FINALIZER, FINALIZER, SECRET_USES } from "../../api/common.ts";
import { ClusterHarborConnectionSpec, ConnectionStatus, HarborConnectionSpec } from "../../api/connection.ts";
import type { KubeClient } from "../../kube/client.ts";
import { isKubeError } from "../../kube/errors.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { SecretWriter } from "../../kube/secrets.ts";
import { type KubeObject, type ResourceType, type SecretObject, Secrets } from "../../kube/types.ts";
import { jsonEqual } from "../../runtime/conditions.ts";
import {
  type ReconcileContext,
  type Reconciler,
  type Result,
  TerminalError,
} from "../../runtime/controller.ts";
import { describeIssues, INVALID_SPEC } from "../../runtime/invalid-spec.ts";
import { statusPatch } from "../../runtime/writes.ts";
import { refusal, SECRET_NOT_ALLOWED } from "../shared/secret-uses.ts";
import { connectionKey } from "./handle.ts";
import {
  type CheckResult,
  type ConnectionKind,
  type CredentialsRef,
  credentialsFrom,
  insecureHttpRefusal,
  nextStatus,
  readyInput,
  readyTransition,
  registryHostOf,
  retryDelayMs,
  secretNamespaceRefusal,
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
  /**
   * The only namespace a ClusterHarborConnection's Secret may be in ("*": any). Default "*" here;
   * the operator passes its --cluster-resource-namespace (default: its own namespace).
   */
  clusterResourceNamespace?: string;
  /** The resources ("Kind namespace/name") that use the connection with this key. */
  usersOf?: (key: string) => string[];
  /** Whether a connection other than `key` reads its credentials from this Secret. */
  secretUsedByOthers?: (namespace: string, name: string, key: string) => boolean;
}

type Spec = HarborConnectionSpec | ClusterHarborConnectionSpec;

/** While a deleting connection waits for its users, it looks again this often (their deletions also queue it). */
const DELETION_RECHECK_MS = 30_000;

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
    const ref = credentialsRefOf(obj, spec);
    const deleting = obj.metadata.deletionTimestamp !== undefined;
    const users = deleting ? (o.usersOf?.(key) ?? []) : [];
    // Decided before the Secret is touched: nothing of it goes out, and a Secret outside the
    // allowed namespace is not even given the credentials finalizer.
    const refused =
      secretNamespaceRefusal(o.kind, ref.namespace, o.clusterResourceNamespace ?? "*") ??
      insecureHttpRefusal(spec);
    // Protected before its first check: nothing may come to rely on a connection that can vanish.
    if (!deleting) await this.#protect(obj, refused?.reason === "SecretNotAllowed" ? undefined : ref);
    if (refused) {
      // Deleted and unused, it still goes.
      if (deleting && users.length === 0) return this.#release(obj, key, ref);
      await this.#releaseOldSecret(obj, key, ref);
      await this.#finish(
        obj,
        key,
        {
          url: spec.url,
          failure: refused,
          credentialsSecret: { namespace: ref.namespace, name: ref.name },
          ...(deleting ? { deletionWaitsFor: users } : {}),
        },
        registryHost,
      );
      throw new TerminalError(refused.message);
    }
    const result: CheckResult = {
      ...(await this.#check(key, obj, spec, ref, ctx)),
      credentialsSecret: { namespace: ref.namespace, name: ref.name },
      ...(deleting ? { deletionWaitsFor: users } : {}),
    };
    const ready = await this.#finish(obj, key, result, registryHost);
    await this.#releaseOldSecret(obj, key, ref);
    if (deleting && users.length === 0) return this.#release(obj, key, ref);
    if (ready) {
      this.#failures.delete(key);
      const recheck = Math.round(o.driftIntervalMs * (0.9 + Math.random() * 0.2));
      return { requeueAfterMs: deleting ? Math.min(recheck, DELETION_RECHECK_MS) : recheck };
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

  /** The finalizer on the connection and the credentials finalizer on its Secret (if given). */
  async #protect(obj: ConnectionObject, ref: CredentialsRef | undefined): Promise<void> {
    const o = this.#o;
    if (!obj.metadata.finalizers?.includes(FINALIZER)) {
      const updated = await o.kube.mergePatch<ConnectionObject>(
        o.type,
        obj.metadata.namespace,
        obj.metadata.name,
        { metadata: { finalizers: [...(obj.metadata.finalizers ?? []), FINALIZER] } },
        obj.metadata.resourceVersion,
      );
      obj.metadata.finalizers = updated.metadata.finalizers;
      obj.metadata.resourceVersion = updated.metadata.resourceVersion;
    }
    if (ref) await this.#setSecretFinalizer(ref.namespace, ref.name, true);
  }

  /** Adds or removes the credentials finalizer of a Secret (a missing Secret needs neither). */
  async #setSecretFinalizer(namespace: string, name: string, present: boolean): Promise<void> {
    const kube = this.#o.kube;
    const secret = await kube.find<SecretObject>(Secrets, namespace, name);
    const finalizers = secret?.metadata.finalizers ?? [];
    if (!secret || finalizers.includes(CREDENTIALS_FINALIZER) === present) return;
    // A Secret being deleted cannot gain a finalizer; it only stays while it still has one.
    if (present && secret.metadata.deletionTimestamp) return;
    const next = present
      ? [...finalizers, CREDENTIALS_FINALIZER]
      : finalizers.filter((f) => f !== CREDENTIALS_FINALIZER);
    try {
      await kube.mergePatch(
        Secrets,
        namespace,
        name,
        { metadata: { finalizers: next } },
        secret.metadata.resourceVersion,
      );
    } catch (e) {
      if (!isKubeError(e, "notFound")) throw e;
    }
  }

  /** A connection that now reads another Secret lets the one it read before go. */
  async #releaseOldSecret(obj: ConnectionObject, key: string, ref: CredentialsRef): Promise<void> {
    const old = (obj.status as { credentialsSecret?: { namespace?: unknown; name?: unknown } } | undefined)
      ?.credentialsSecret;
    if (typeof old?.namespace !== "string" || typeof old.name !== "string") return;
    if (old.namespace === ref.namespace && old.name === ref.name) return;
    if (!this.#o.secretUsedByOthers?.(old.namespace, old.name, key))
      await this.#setSecretFinalizer(old.namespace, old.name, false);
  }

  /** Nothing uses the deleting connection any more: its Secret, then the connection, may go. */
  async #release(obj: ConnectionObject, key: string, ref: CredentialsRef): Promise<Result> {
    const o = this.#o;
    if (!o.secretUsedByOthers?.(ref.namespace, ref.name, key))
      await this.#setSecretFinalizer(ref.namespace, ref.name, false);
    if (obj.metadata.finalizers?.includes(FINALIZER)) {
      try {
        await o.kube.mergePatch(
          o.type,
          obj.metadata.namespace,
          obj.metadata.name,
          { metadata: { finalizers: obj.metadata.finalizers.filter((f) => f !== FINALIZER) } },
          obj.metadata.resourceVersion,
        );
      } catch (e) {
        if (!isKubeError(e, "notFound")) throw e;
      }
    }
    o.events.record(
      obj,
      "Normal",
      "Released",
      "No resource uses this connection any more: it and its Secret may go",
    );
    return {};
  }

  async #check(
    key: string,
    obj: ConnectionObject,
    spec: Spec,
    ref: CredentialsRef,
    ctx: ReconcileContext,
  ): Promise<CheckResult> {
    const o = this.#o;
    let values: Record<string, string> | undefined;
    let annotations: Record<string, string> | undefined;
    try {
      const secret = await o.secrets.read(ref.namespace, ref.name);
      values = secret?.values;
      annotations = secret?.object.metadata.annotations;
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
    // Its values go to the URL the connection's author chose: only a Secret that opts in for that.
    // A wait, not Stalled: annotating the Secret fixes it (the check is retried with backoff).
    const notAllowed =
      values === undefined
        ? undefined
        : refusal(
            {
              name: ref.name,
              namespace: obj.metadata.namespace === ref.namespace ? undefined : ref.namespace,
              connectionCredentials: false,
              annotations,
            },
            SECRET_USES.harborConnection,
          );
    if (notAllowed) return { url: spec.url, failure: { reason: SECRET_NOT_ALLOWED, message: notAllowed } };
    const creds = credentialsFrom(values, ref);
    if (!creds.ok) return { url: spec.url, failure: creds.failure };
    const client = o.connections.clientFor(key, {
      url: spec.url,
      caBundle: spec.caBundle,
      caBundleOnly: spec.caBundleOnly,
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
      const patch = statusPatch(obj.status ?? {}, next);
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

/** Where a connection reads its credentials: its own namespace, or the one a cluster connection names. */
function credentialsRefOf(obj: KubeObject, spec: Spec): CredentialsRef {
  return {
    namespace:
      "namespace" in spec.credentialsSecretRef
        ? spec.credentialsSecretRef.namespace
        : (obj.metadata.namespace ?? ""),
    name: spec.credentialsSecretRef.name,
    usernameKey: spec.credentialsSecretRef.usernameKey,
    passwordKey: spec.credentialsSecretRef.passwordKey,
  };
}
