// Every managed kind, wired together: shared informers (so that kinds can follow references),
// one ManagedKind per kind, and the enqueues that make changes elsewhere reach the resources they
// concern — a referenced resource turning Ready, a connection becoming usable, a Secret or a
// Namespace changing.
import { MANAGED_BY, MANAGED_BY_LABEL, WATCH_LABEL } from "../api/common.ts";
import { harborProject } from "../api/project.ts";
import { harborRegistry } from "../api/registry.ts";
import { harborReplicationPolicy } from "../api/replication.ts";
import { harborRobot } from "../api/robot.ts";
import { harborWebhookPolicy } from "../api/webhook.ts";
import { OWNER_ANNOTATION } from "../kube/secrets.ts";
import {
  type KubeObject,
  type NamespaceObject,
  Namespaces,
  type SecretObject,
  Secrets,
  type ServiceAccountObject,
  ServiceAccounts,
} from "../kube/types.ts";
import { Informer } from "../runtime/informer.ts";
import type { ManagedKind } from "../runtime/kind.ts";
import type { ManagedObject } from "../runtime/managed.ts";
import { connectionKey } from "./connection/handle.ts";
import { projectKind } from "./project/index.ts";
import { registryKind } from "./registry/index.ts";
import { replicationKind } from "./replication/index.ts";
import { robotKind } from "./robot/index.ts";
import { linksServiceAccount, removedPullSecrets, trimServiceAccount } from "./robot/service-accounts.ts";
import { type Informers, type KindContext, resourceType } from "./shared/kinds.ts";
import { webhookKind } from "./webhook/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
type AnyKind = ManagedKind<any, any, any, any>;

export interface Kinds {
  informers: Informers;
  /** Every kind by its Kubernetes kind name. */
  byKind: Map<string, AnyKind>;
  /** True once every informer has its first list. */
  synced(): boolean;
  /**
   * Queues the resources of every kind that use the connection with this key (see connectionKey),
   * and those in Conflict anywhere (the Harbor a connection reaches decides who owns what).
   */
  enqueueConnection(key: string): void;
  /** The resources ("Kind namespace/name") that use the connection with this key. */
  usersOf(key: string): string[];
  /**
   * Starts every informer, and every kind's workers once all caches have listed and `ready`
   * resolves (the composition root passes "every connection checked once").
   */
  start(ready?: Promise<unknown>): void;
  stop(): Promise<void>;
}

export function createKinds(ctx: KindContext): Kinds {
  const informer = (def: Parameters<typeof resourceType>[0]) =>
    new Informer<ManagedObject>({
      client: ctx.kube,
      type: resourceType(def),
      logger: ctx.logger,
      ...(ctx.namespaces?.length ? { namespaces: ctx.namespaces } : {}),
      ...(ctx.labelSelector ? { labelSelector: ctx.labelSelector } : {}),
    });
  const informers: Informers = {
    projects: informer(harborProject),
    robots: informer(harborRobot),
    registries: informer(harborRegistry),
    replicationPolicies: informer(harborReplicationPolicy),
    webhookPolicies: informer(harborWebhookPolicy),
    // Robots copy their Secret into namespaces chosen by labels, anywhere in the cluster.
    namespaces: new Informer<NamespaceObject>({ client: ctx.kube, type: Namespaces, logger: ctx.logger }),
  };
  // Secrets are never watched wholesale: only those carrying the watch label.
  const secrets = new Informer<SecretObject>({
    client: ctx.kube,
    type: Secrets,
    logger: ctx.logger,
    labelSelector: `${WATCH_LABEL}=true`,
    // Only who changed matters here, never the values: keep no secret material in memory.
    transform: ({ apiVersion, kind, metadata }) => ({ apiVersion, kind, metadata }),
    ...(ctx.namespaces?.length ? { namespaces: ctx.namespaces } : {}),
  });
  // ServiceAccounts, cluster-wide like Namespaces and trimmed to names (see robot/service-accounts.ts
  // for why not a selection): robots link one as soon as it appears.
  const serviceAccounts = new Informer<ServiceAccountObject>({
    client: ctx.kube,
    type: ServiceAccounts,
    logger: ctx.logger,
    transform: trimServiceAccount,
  });

  // One entry per kind.
  const kinds: AnyKind[] = [
    projectKind(ctx, informers),
    registryKind(ctx, informers),
    replicationKind(ctx, informers),
    robotKind(ctx, informers),
    webhookKind(ctx, informers),
  ];
  const byKind = new Map(kinds.map((k) => [k.type.kind, k]));
  const kind = (name: string) => byKind.get(name);

  // A referenced resource changed (e.g. turned Ready): queue the resources that point at it.
  const follow = (
    target: Informer<ManagedObject>,
    dependent: string,
    refOf: (spec: Record<string, unknown>) => unknown,
  ) => {
    const wake = (obj: KubeObject) =>
      kind(dependent)?.enqueueWhere(
        (d) =>
          d.metadata.namespace === obj.metadata.namespace &&
          refOf((d.spec ?? {}) as Record<string, unknown>) === obj.metadata.name,
      );
    target.on({
      add: wake,
      // Only what dependents wait on: readiness, the Harbor id, deletion (not e.g. repository counts).
      update: (a, b) => {
        if (
          readiness(a) !== readiness(b) ||
          a.status?.harborId !== b.status?.harborId ||
          a.metadata.deletionTimestamp !== b.metadata.deletionTimestamp
        )
          wake(b);
      },
      delete: wake,
    });
  };
  const name = (v: unknown) => (v as { name?: string } | undefined)?.name;
  follow(informers.projects, "HarborRobot", (s) => name(s.projectRef));
  follow(informers.projects, "HarborWebhookPolicy", (s) => name(s.projectRef));
  follow(informers.registries, "HarborProject", (s) =>
    name((s.proxyCache as { registryRef?: unknown } | undefined)?.registryRef),
  );
  follow(informers.registries, "HarborReplicationPolicy", (s) => name(s.registryRef));
  // Harbor keeps a registry while a policy or a proxy-cache project uses it: when one of those
  // goes, a blocked registry deletion can proceed now rather than at its next retry.
  const releaseRegistry = (refOf: (spec: Record<string, unknown>) => unknown) => (obj: ManagedObject) => {
    const registry = refOf((obj.spec ?? {}) as Record<string, unknown>);
    if (typeof registry === "string")
      kind("HarborRegistry")?.controller.enqueue(`${obj.metadata.namespace}/${registry}`);
  };
  informers.replicationPolicies.on({ delete: releaseRegistry((s) => name(s.registryRef)) });
  informers.projects.on({
    delete: releaseRegistry((s) =>
      name((s.proxyCache as { registryRef?: unknown } | undefined)?.registryRef),
    ),
  });

  // A watched Secret changed: its owner if the operator wrote it, else whoever references it.
  const secretChanged = async (secret: SecretObject, deleted = false) => {
    // What the operator itself just wrote needs no reconcile.
    if (await ctx.secrets.isOwnChange(secret, deleted)) return;
    ctx.secretChanged?.(secret.metadata.namespace ?? "", secret.metadata.name);
    const owner = secret.metadata.annotations?.[OWNER_ANNOTATION];
    if (owner && secret.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY) {
      const [ownerKind, ns, ownerName] = owner.split("/");
      if (ownerKind && ownerName) kind(ownerKind)?.controller.enqueue(ns ? `${ns}/${ownerName}` : ownerName);
      return;
    }
    const ns = secret.metadata.namespace;
    const named = secret.metadata.name;
    kind("HarborRegistry")?.enqueueWhere(
      (r) =>
        r.metadata.namespace === ns &&
        refSecret((r.spec as { credential?: { secretRef?: { name?: string } } })?.credential?.secretRef) ===
          named,
    );
    kind("HarborWebhookPolicy")?.enqueueWhere(
      (r) =>
        r.metadata.namespace === ns &&
        ((r.spec as { targets?: Array<{ authHeaderSecretRef?: { name?: string } }> })?.targets ?? []).some(
          (t) => refSecret(t.authHeaderSecretRef) === named,
        ),
    );
  };
  const onSecret = (secret: SecretObject, deleted = false) =>
    void secretChanged(secret, deleted).catch((err: unknown) =>
      ctx.logger.error({ err, secret: secret.metadata.name }, "could not handle a Secret change"),
    );
  secrets.on({
    add: (s) => onSecret(s),
    update: (_a, b) => onSecret(b),
    delete: (s) => onSecret(s, true),
  });

  // A namespace appeared or its labels changed: robots that copy Secrets may have work.
  const namespaceChanged = () =>
    kind("HarborRobot")?.enqueueWhere(
      (r) => (r.spec as { secret?: { copies?: unknown } })?.secret?.copies !== undefined,
    );
  informers.namespaces.on({
    add: namespaceChanged,
    update: (a, b) => {
      if (JSON.stringify(a.metadata.labels ?? {}) !== JSON.stringify(b.metadata.labels ?? {}))
        namespaceChanged();
    },
    delete: namespaceChanged,
  });

  // A ServiceAccount appeared, or lost a pull secret entry: the robots that link it.
  const accountChanged = (sa: ServiceAccountObject, removed?: string[]) => {
    if (removed?.length === 0) return; // our own entry added, or another change: nothing to do
    const ns = informers.namespaces.get(sa.metadata.namespace ?? "");
    const labels = ns ? (ns.metadata.labels ?? {}) : undefined;
    kind("HarborRobot")?.enqueueWhere((r) => linksServiceAccount(r, sa, labels, removed));
  };
  serviceAccounts.on({
    add: (sa) => accountChanged(sa),
    update: (a, b) => accountChanged(b, removedPullSecrets(a, b)),
  });

  // A connection being deleted waits for the resources that use it: tell it when one goes.
  for (const k of kinds) {
    k.informer.on({
      update: (a, b) => {
        const before = connectionKeyOf(a);
        if (before !== connectionKeyOf(b)) ctx.connectionUserGone?.(before);
      },
      delete: (obj) => ctx.connectionUserGone?.(connectionKeyOf(obj)),
    });
  }

  const allInformers: Array<Informer<KubeObject>> = [
    ...Object.values(informers),
    secrets,
    serviceAccounts,
  ] as Array<Informer<KubeObject>>;
  return {
    informers,
    byKind,
    synced: () => allInformers.every((i) => i.synced),
    enqueueConnection(key) {
      for (const k of kinds) {
        k.enqueueWhere(
          (r) =>
            connectionKeyOf(r) === key ||
            r.status?.conditions?.some((c) => c.type === "Ready" && c.reason === "Conflict") === true,
        );
      }
    },
    usersOf(key) {
      return kinds.flatMap((k) =>
        k.informer
          .list()
          .filter((r) => connectionKeyOf(r) === key)
          .map((r) => `${k.type.kind} ${r.metadata.namespace}/${r.metadata.name}`),
      );
    },
    start(ready = Promise.resolve()) {
      // Informers of kinds that are not (yet) handled still run: other kinds follow them.
      for (const i of allInformers) i.start();
      const synced = Promise.all(
        [...allInformers, ...kinds.map((k) => k.informer)].map((i) => i.waitForSync()),
      );
      const gate = Promise.all([synced, ready]).catch(() => undefined);
      for (const k of kinds) k.start(gate);
    },
    async stop() {
      await Promise.all(kinds.map((k) => k.stop()));
      await Promise.all(allInformers.map((i) => i.stop()));
    },
  };
}

/** connectionKey of a resource's spec.connectionRef. */
function connectionKeyOf(r: ManagedObject): string {
  const ref = (r.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
  return connectionKey(r.metadata.namespace ?? "", {
    kind: ref?.kind ?? "HarborConnection",
    name: ref?.name ?? "",
  });
}

function readiness(o: ManagedObject): string | undefined {
  return o.status?.conditions?.find((c) => c.type === "Ready")?.status;
}

function refSecret(ref: { name?: string } | undefined): string | undefined {
  return ref?.name;
}
