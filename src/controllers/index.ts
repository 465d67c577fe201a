// Every managed kind of the registry, wired the same way: one shared informer per kind (kinds read
// each other's caches), one ManagedKind per kind, and the enqueues each kind declares in its
// `watches` — a referenced resource changing, a Secret it reads, a Namespace or ServiceAccount it
// follows — plus what every kind gets: its own Secrets, and its connection's changes. Run kinds
// (one RunKind each) share the informers and get their references and connection changes too; a
// run uses its connection until it has ended.
import { ACCEPT_PULL_SECRETS_ANNOTATION, MANAGED_BY, MANAGED_BY_LABEL, WATCH_LABEL } from "../api/common.ts";
import { mayEverywhere } from "../kube/access.ts";
import { OWNER_ANNOTATION } from "../kube/secrets.ts";
import {
  type KubeObject,
  type NamespaceObject,
  Namespaces,
  objectKey,
  type SecretObject,
  Secrets,
  type ServiceAccountObject,
  ServiceAccounts,
} from "../kube/types.ts";
import type { ManagedObject } from "../runtime/external-client.ts";
import { Informer } from "../runtime/informer.ts";
import type { ManagedKind } from "../runtime/kind.ts";
import { isFinal, type RunKind } from "../runtime/run.ts";
import { connectionKey } from "./connection/handle.ts";
import { MANAGED_KINDS, RUN_KINDS } from "./kind-list.ts";
import { FreshProjects } from "./shared/fresh-projects.ts";
import {
  type KindContext,
  type KindModule,
  managedKind,
  type ReferenceWatch,
  type RunKindModule,
  resourceType,
  runKind,
} from "./shared/kinds.ts";
import { removedPullSecrets, trimServiceAccount } from "./shared/service-account-watch.ts";

// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
type AnyKind = ManagedKind<any, any, any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
type AnyModule = KindModule<any, any, any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
type AnyRunKind = RunKind<any, any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
type AnyRunModule = RunKindModule<any, any, any, any>;

export interface Kinds {
  /** Every kind by its Kubernetes kind name. */
  byKind: Map<string, AnyKind>;
  /** Every run kind by its Kubernetes kind name. */
  runs: Map<string, AnyRunKind>;
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

export function createKinds(
  ctx: KindContext,
  modules: readonly AnyModule[] = MANAGED_KINDS,
  runModules: readonly AnyRunModule[] = RUN_KINDS,
): Kinds {
  const informers = new Map<string, Informer<ManagedObject>>();
  for (const m of [...modules, ...runModules]) {
    informers.set(
      m.def.kind,
      new Informer<ManagedObject>({
        client: ctx.kube,
        type: resourceType(m.def),
        logger: ctx.logger,
        ...(ctx.namespaces?.length ? { namespaces: ctx.namespaces } : {}),
        ...(ctx.labelSelector ? { labelSelector: ctx.labelSelector } : {}),
      }),
    );
  }
  const informerOf = (kind: string): Informer<ManagedObject> => {
    const i = informers.get(kind);
    if (!i) throw new Error(`no managed kind ${kind} is registered`);
    return i;
  };
  // Namespaces are followed cluster-wide (robots copy Secrets into namespaces chosen by labels).
  const namespaces = new Informer<NamespaceObject>({
    client: ctx.kube,
    type: Namespaces,
    logger: ctx.logger,
  });
  const deps = { ctx, informer: informerOf, namespaces, fresh: new FreshProjects() };
  const kinds: AnyKind[] = modules.map((m) => managedKind(m, deps));
  const byKind = new Map(kinds.map((k) => [k.type.kind, k]));
  const runKinds: AnyRunKind[] = runModules.map((m) => runKind(m, deps));
  const runs = new Map(runKinds.map((k) => [k.type.kind, k]));
  const extra: Array<Informer<KubeObject>> = [];
  const watching = (pick: (m: AnyModule) => unknown) => modules.filter((m) => pick(m) !== undefined);

  // References: a target's change queues who points at it; a referrer going, or pointing elsewhere,
  // queues its target.
  for (const m of modules) {
    const dependent = byKind.get(m.def.kind) as AnyKind;
    for (const [targetKind, ref] of Object.entries(m.watches?.references ?? {})) {
      const refers = referenceTest(ref);
      // A reference by name (namespace/name of the target) is an index of the dependents' cache:
      // a target's change finds its dependents by lookup. A reference by matching is a scan.
      const wake =
        typeof ref === "function"
          ? indexedDependents(dependent, targetKind, (spec) => ref(spec))
          : (obj: ManagedObject) => dependent.enqueueWhere((d) => refers(d, obj));
      if (typeof ref === "function" || !ref.releaseOnly)
        informerOf(targetKind).on({
          add: wake,
          // Only what dependents wait on: readiness, the Harbor id, deletion (not e.g. usage).
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
      const target = byKind.get(targetKind);
      // Queues what `before` referenced and `after` (if any) no longer does.
      const release = (before: ManagedObject, after?: ManagedObject) => {
        if (typeof ref === "function") {
          const name = ref(before.spec ?? {});
          if (name && (!after || ref(after.spec ?? {}) !== name))
            target?.controller.enqueue(`${before.metadata.namespace}/${name}`);
          return;
        }
        target?.enqueueWhere((t) => refers(before, t) && !(after && refers(after, t)));
      };
      dependent.informer.on({
        update: (a, b) => {
          if (a.metadata.generation !== b.metadata.generation) release(a, b);
        },
        delete: (obj) => release(obj),
      });
    }
  }

  // A run waits on its target's status (a policy Ready, its Harbor id) and on what its spec says
  // (a policy enabled again, and that change applied): any such change queues the runs that point
  // at it.
  for (const m of runModules) {
    const dependent = runs.get(m.def.kind) as AnyRunKind;
    for (const [targetKind, refOf] of Object.entries(m.watches?.references ?? {})) {
      const wake = indexedDependents(dependent, targetKind, (spec) => refOf(spec));
      informerOf(targetKind).on({
        add: wake,
        update: (a, b) => {
          if (
            readiness(a) !== readiness(b) ||
            a.status?.harborId !== b.status?.harborId ||
            a.metadata.generation !== b.metadata.generation ||
            a.status?.observedGeneration !== b.status?.observedGeneration ||
            a.metadata.deletionTimestamp !== b.metadata.deletionTimestamp
          )
            wake(b);
        },
        delete: wake,
      });
    }
  }

  // Secrets are never watched wholesale: only those carrying the watch label. A changed one queues
  // its owner if the operator wrote it, else the resources that read it.
  const secrets = new Informer<SecretObject>({
    client: ctx.kube,
    type: Secrets,
    logger: ctx.logger,
    labelSelector: `${WATCH_LABEL}=true`,
    // Only who changed matters here, never the values: keep no secret material in memory.
    transform: ({ apiVersion, kind, metadata }) => ({ apiVersion, kind, metadata }),
    // With --namespace: those, and where cluster connections keep their Secrets (a change there
    // reaches the connection at once).
    ...(ctx.namespaces?.length
      ? { namespaces: secretNamespaces(ctx.namespaces, ctx.clusterResourceNamespace) }
      : {}),
  });
  extra.push(secrets as Informer<KubeObject>);
  const readers = watching((m) => m.watches?.secrets);
  const secretChanged = async (secret: SecretObject, deleted = false) => {
    // What the operator itself just wrote needs no reconcile.
    if (await ctx.secrets.isOwnChange(secret, deleted)) return;
    ctx.secretChanged?.(secret.metadata.namespace ?? "", secret.metadata.name);
    const owner = secret.metadata.annotations?.[OWNER_ANNOTATION];
    if (owner && secret.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY) {
      const [ownerKind, ns, ownerName] = owner.split("/");
      if (ownerKind && ownerName)
        byKind.get(ownerKind)?.controller.enqueue(ns ? `${ns}/${ownerName}` : ownerName);
      return;
    }
    for (const m of readers) {
      byKind
        .get(m.def.kind)
        ?.enqueueWhere(
          (r) =>
            r.metadata.namespace === secret.metadata.namespace &&
            (m.watches?.secrets?.(r.spec ?? {}) ?? []).includes(secret.metadata.name),
        );
    }
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

  // A Namespace appeared, went or changed its labels. (The RBAC grants Namespaces only when a kind
  // follows them or ServiceAccounts: then the informer runs.)
  const namespaceFollowers = watching((m) => m.watches?.namespaces);
  const accountFollowers = watching((m) => m.watches?.serviceAccounts);
  const namespaceChanged = () => {
    for (const m of namespaceFollowers)
      byKind.get(m.def.kind)?.enqueueWhere((r) => m.watches?.namespaces?.(r.spec ?? {}) === true);
  };
  namespaces.on({
    add: namespaceChanged,
    // Labels choose the namespaces; the annotation says whether they accept robots' copies.
    update: (a, b) => {
      if (
        JSON.stringify(a.metadata.labels ?? {}) !== JSON.stringify(b.metadata.labels ?? {}) ||
        a.metadata.annotations?.[ACCEPT_PULL_SECRETS_ANNOTATION] !==
          b.metadata.annotations?.[ACCEPT_PULL_SECRETS_ANNOTATION]
      )
        namespaceChanged();
    },
    delete: namespaceChanged,
  });
  if (namespaceFollowers.length || accountFollowers.length) extra.push(namespaces as Informer<KubeObject>);

  // ServiceAccounts, cluster-wide like Namespaces and trimmed to names (see shared/service-account-watch.ts
  // for why not a selection), only when a kind follows them. With --namespace and RBAC that grants
  // them only there (Roles per watched namespace), in each watched namespace instead.
  if (accountFollowers.length) {
    const watched = ctx.namespaces;
    const serviceAccounts = new Informer<ServiceAccountObject>({
      client: ctx.kube,
      type: ServiceAccounts,
      logger: ctx.logger,
      transform: trimServiceAccount,
      ...(watched?.length
        ? {
            namespaces: watched,
            resolveNamespaces: async () => {
              const may = await Promise.all(
                ["list", "watch"].map((verb) => mayEverywhere(ctx.kube, verb, ServiceAccounts)),
              );
              return may.every(Boolean) ? undefined : watched;
            },
          }
        : {}),
    });
    const accountChanged = (sa: ServiceAccountObject, removed?: string[]) => {
      if (removed?.length === 0) return; // our own entry added, or another change: nothing to do
      const ns = namespaces.get(sa.metadata.namespace ?? "");
      const labels = ns ? (ns.metadata.labels ?? {}) : undefined;
      for (const m of accountFollowers)
        byKind
          .get(m.def.kind)
          ?.enqueueWhere((r) => m.watches?.serviceAccounts?.(r, sa, labels, removed) === true);
    };
    serviceAccounts.on({
      add: (sa) => accountChanged(sa),
      update: (a, b) => accountChanged(b, removedPullSecrets(a, b)),
    });
    extra.push(serviceAccounts as Informer<KubeObject>);
  }

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
  // A run uses its connection until it has ended (its spec, connection included, never changes).
  for (const k of runKinds) {
    k.informer.on({
      update: (a, b) => {
        if (!runEnded(a) && runEnded(b)) ctx.connectionUserGone?.(connectionKeyOf(b));
      },
      delete: (obj) => ctx.connectionUserGone?.(connectionKeyOf(obj)),
    });
  }

  const all: Array<Informer<KubeObject>> = [
    ...(informers.values() as Iterable<Informer<KubeObject>>),
    ...extra,
  ];
  return {
    byKind,
    runs,
    synced: () => all.every((i) => i.synced),
    enqueueConnection(key) {
      for (const k of kinds) {
        k.enqueueWhere(
          (r) =>
            connectionKeyOf(r) === key ||
            r.status?.conditions?.some((c) => c.type === "Ready" && c.reason === "Conflict") === true,
        );
      }
      for (const k of runKinds) k.enqueueWhere((r) => connectionKeyOf(r) === key && !runEnded(r));
    },
    usersOf(key) {
      const managedUsers = kinds.flatMap((k) =>
        k.informer
          .list()
          .filter((r) => connectionKeyOf(r) === key)
          .map((r) => `${k.type.kind} ${r.metadata.namespace}/${r.metadata.name}`),
      );
      const runUsers = runKinds.flatMap((k) =>
        k.informer
          .list()
          .filter((r) => connectionKeyOf(r) === key && !runEnded(r))
          .map((r) => `${k.type.kind} ${r.metadata.namespace}/${r.metadata.name}`),
      );
      return [...managedUsers, ...runUsers];
    },
    start(ready = Promise.resolve()) {
      for (const i of extra) i.start();
      // Workers start once every cache has listed: no reconcile judges from half a picture.
      const synced = Promise.all(all.map((i) => i.waitForSync()));
      const gate = Promise.all([synced, ready]).catch(() => undefined);
      for (const k of kinds) k.start(gate);
      for (const k of runKinds) k.start(gate);
    },
    async stop() {
      await Promise.all(kinds.map((k) => k.stop()));
      await Promise.all(runKinds.map((k) => k.stop()));
      await Promise.all(extra.map((i) => i.stop()));
    },
  };
}

/** Whether `from` references `target`, by a reference declared either way (see ReferenceWatch). */
/**
 * Indexes a kind's resources by the target their spec names (`namespace/name`, in the resource's
 * namespace) and returns what queues the ones that name a given target.
 */
function indexedDependents(
  dependent: { informer: Informer<ManagedObject>; controller: { enqueue(key: string): void } },
  targetKind: string,
  nameOf: (spec: Record<string, unknown>) => string | undefined,
): (target: KubeObject) => void {
  const index = `references ${targetKind}`;
  dependent.informer.addIndex(index, (d) => {
    const name = nameOf((d.spec ?? {}) as Record<string, unknown>);
    return name ? `${d.metadata.namespace ?? ""}/${name}` : undefined;
  });
  return (target) => {
    for (const d of dependent.informer.byIndex(index, objectKey(target)))
      dependent.controller.enqueue(objectKey(d));
  };
}

function referenceTest(
  ref: ReferenceWatch<unknown>,
): (from: ManagedObject, target: ManagedObject) => boolean {
  if (typeof ref === "function")
    return (from, target) =>
      from.metadata.namespace === target.metadata.namespace && ref(from.spec ?? {}) === target.metadata.name;
  return (from, target) => ref.matches(from.spec ?? {}, from.metadata.namespace ?? "", target);
}

/** connectionKey of a resource's spec.connectionRef. */
function connectionKeyOf(r: ManagedObject): string {
  const ref = (r.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
  return connectionKey(r.metadata.namespace ?? "", {
    kind: ref?.kind ?? "HarborConnection",
    name: ref?.name ?? "",
  });
}

/** A run whose execution has ended: it no longer needs its connection. */
function runEnded(r: ManagedObject): boolean {
  return isFinal(r.status?.phase);
}

function readiness(o: ManagedObject): string | undefined {
  return o.status?.conditions?.find((c) => c.type === "Ready")?.status;
}

/** The namespaces whose labelled Secrets are watched when --namespace narrows the watch. */
function secretNamespaces(
  watched: readonly string[],
  clusterResourceNamespace: string | undefined,
): string[] {
  return clusterResourceNamespace &&
    clusterResourceNamespace !== "*" &&
    !watched.includes(clusterResourceNamespace)
    ? [...watched, clusterResourceNamespace]
    : [...watched];
}
