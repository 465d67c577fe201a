// Where a robot's credentials live in Kubernetes: its Secret (owned by the HarborRobot), copies of
// it in namespaces chosen by a label selector that accept copies from the robot's namespace (the
// Namespace's harborconfig.io/accept-pull-secrets-from annotation, set by whoever owns it), and
// imagePullSecrets entries on named ServiceAccounts there.
//
// - Every Secret carries the operator's labels, `harborconfig.io/watch: "true"` (so the operator's
//   Secret watch sees it edited or deleted) and a fingerprint of the credentials it holds
//   (CREDENTIAL_HASH_LABEL). Only a Secret whose values match its fingerprint holds credentials
//   known to work; any other state (missing, edited, or marked PENDING because a refresh in Harbor
//   was under way) means the secret must be issued again.
// - Copies have no ownerReference (it cannot cross namespaces): they are found by the
//   COPY_OF_LABEL (the robot's uid) and the owner annotation, and removed when their namespace no
//   longer matches or the robot goes. A namespace's Secret of the same name that belongs to
//   someone else is left alone, and so is a namespace the operator may not write to: both are
//   reported as copy failures (the robot's status names them) and the other namespaces proceed.
// - ServiceAccounts are changed read-modify-write (the resourceVersion guards against lost
//   updates), only when the entry is missing or stale; one that does not exist yet is skipped and
//   linked when the ServiceAccount watch sees it appear (see pull-secret-links.ts).
import { MANAGED_BY, MANAGED_BY_LABEL, WATCH_LABEL } from "../../api/common.ts";
import { type HarborRobotSpec, MAX_COPY_FAILURES } from "../../api/robot.ts";
import { mayEverywhere } from "../../kube/access.ts";
import type { KubeClient } from "../../kube/client.ts";
import { isKubeError } from "../../kube/errors.ts";
import {
  OWNER_ANNOTATION,
  ownerIdentity,
  SecretConflictError,
  type SecretWriter,
} from "../../kube/secrets.ts";
import { safeText } from "../../kube/text.ts";
import {
  type KubeObject,
  type NamespaceObject,
  type SecretObject,
  Secrets,
  type ServiceAccountObject,
  ServiceAccounts,
} from "../../kube/types.ts";
import type { Informer } from "../../runtime/informer.ts";
import {
  acceptsCopiesFrom,
  type Credentials,
  credentialHash,
  type Delivered,
  secretValues,
  selectorMatches,
} from "./mapping.ts";

/** The label the operator's Secret watch selects on. */
/** Fingerprint of the credentials a Secret holds (see credentialHash). */
export const CREDENTIAL_HASH_LABEL = "harborconfig.io/credential-hash";
/** On copies: the uid of the HarborRobot they copy. */
export const COPY_OF_LABEL = "harborconfig.io/copy-of";
/** The fingerprint while a new secret is being issued: the old one may already be invalid. */
const PENDING = "pending";

export type { Credentials, Delivered } from "./mapping.ts";

/** What the robot's Secret holds, and the Secret as read (null: there is none). */
export type Read = Delivered & { seen: SecretObject | null };

/** One Secret to write: where, and with what. */
export interface Target {
  namespace: string;
  name: string;
  type: string;
  hosts: readonly string[];
}

/** A namespace the robot's Secret could not be delivered to, and why. */
export interface CopyFailure {
  namespace: string;
  /** SecretConflict (a Secret of that name belongs to someone else) or Forbidden. */
  reason: "SecretConflict" | "Forbidden";
  message: string;
}

export interface CopiesResult {
  /** Namespaces that hold a copy now, sorted. */
  copiedTo: string[];
  /** Namespaces where the copy or a ServiceAccount entry could not be written, sorted. */
  failures: CopyFailure[];
  /** Namespaces the selector matches that do not accept copies from the robot's namespace: nothing is written there. Sorted. */
  refused: string[];
  /** Of copiedTo: namespaces that do not accept copies but hold one kept (copiesWithoutConsent keep). Sorted. */
  withoutConsent: string[];
}

export class RobotDelivery {
  readonly #kube: KubeClient;
  readonly #secrets: SecretWriter;
  readonly #namespaces: Informer<NamespaceObject>;
  /** The namespaces the operator watches (--namespace); undefined: all. */
  readonly #watched: readonly string[] | undefined;
  readonly #keepWithoutConsent: boolean;
  /** Whether the operator may list Secrets in every namespace: asked once, when first needed. */
  #everywhere: Promise<boolean> | undefined;

  constructor(deps: {
    kube: KubeClient;
    secrets: SecretWriter;
    namespaces: Informer<NamespaceObject>;
    /** The watched namespaces (--namespace), if not all. */
    watchedNamespaces?: readonly string[];
    /** A copy in a namespace that does not accept it: kept and named (default), or removed. */
    copiesWithoutConsent?: "keep" | "remove";
  }) {
    this.#keepWithoutConsent = deps.copiesWithoutConsent !== "remove";
    this.#kube = deps.kube;
    this.#secrets = deps.secrets;
    this.#namespaces = deps.namespaces;
    this.#watched = deps.watchedNamespaces?.length ? deps.watchedNamespaces : undefined;
  }

  /**
   * Reads the robot's Secret: what it holds, and the Secret as read (`seen`, null when absent) for
   * a write that follows at once. Throws SecretConflictError when a Secret of that name belongs to
   * someone else: nothing may be issued that could not be delivered.
   */
  async read(owner: KubeObject, namespace: string, name: string, username: string): Promise<Read> {
    const found = await this.#secrets.read(namespace, name);
    return { ...this.#judge(owner, namespace, name, username, found), seen: found?.object ?? null };
  }

  #judge(
    owner: KubeObject,
    namespace: string,
    name: string,
    username: string,
    found: { object: SecretObject; values: Record<string, string> } | undefined,
  ): Delivered {
    if (!found) return { state: "missing" };
    if (found.object.metadata.annotations?.[OWNER_ANNOTATION] !== ownerIdentity(owner)) {
      throw new SecretConflictError(
        `Secret ${namespace}/${name} exists and is not managed by this resource; rename the secret or remove it`,
      );
    }
    const label = found.object.metadata.labels?.[CREDENTIAL_HASH_LABEL];
    if (label === PENDING) return { state: "interrupted" };
    const { username: user, password } = found.values;
    if (user !== username || !password || label !== credentialHash(user, password))
      return { state: "changed" };
    return { state: "intact", credentials: { username: user, password } };
  }

  /**
   * Writes the robot's Secret (or a copy); unchanged content is not written. `seen`: the Secret as
   * `read` just returned it, so that it is not read again.
   */
  async write(
    owner: KubeObject,
    target: Target,
    credentials: Credentials,
    o: { copy?: boolean; seen?: SecretObject | null } = {},
  ): Promise<void> {
    // An empty password would make a pull secret that can never work: refuse rather than deliver it.
    if (!credentials.username || !credentials.password) throw new Error("no credentials to deliver");
    await this.#secrets.apply(
      owner,
      {
        namespace: target.namespace,
        name: target.name,
        type: target.type,
        data: secretValues(target.type, credentials.username, credentials.password, target.hosts),
        labels: {
          ...labels(credentialHash(credentials.username, credentials.password)),
          ...(o.copy ? { [COPY_OF_LABEL]: owner.metadata.uid ?? "" } : {}),
        },
      },
      o.seen,
    );
  }

  /** Marks the Secret's credentials as about to be replaced (see PENDING). */
  async markPending(owner: KubeObject, target: Target, credentials: Credentials): Promise<void> {
    await this.#secrets.apply(owner, {
      namespace: target.namespace,
      name: target.name,
      type: target.type,
      data: secretValues(target.type, credentials.username, credentials.password, target.hosts),
      labels: labels(PENDING),
    });
  }

  /** Deletes the robot's Secret of that name, if this robot wrote it. */
  async remove(owner: KubeObject, namespace: string, name: string): Promise<void> {
    await this.#secrets.deleteOwned(owner, namespace, name);
  }

  /**
   * Makes copies and ServiceAccount entries match the spec: a copy in every matching namespace that
   * accepts copies from the robot's namespace (the robot's own namespace holds the Secret itself),
   * none elsewhere. A matching namespace that does not accept them is refused, and nothing is
   * written there; a copy it holds already (made before namespaces had to accept them) is kept
   * current and named while copiesWithoutConsent is keep, removed otherwise. Undefined while the
   * Namespace cache is still filling (nothing is removed on a partial view).
   */
  async syncCopies(
    owner: KubeObject,
    spec: HarborRobotSpec,
    target: Target,
    credentials: Credentials,
    previous: readonly string[],
  ): Promise<CopiesResult | undefined> {
    const copies = spec.secret.copies;
    if (!copies && previous.length === 0)
      return { copiedTo: [], failures: [], refused: [], withoutConsent: [] };
    if (!this.#namespaces.synced) return undefined;
    const own = owner.metadata.namespace ?? "";
    const selected = copies
      ? this.#namespaces
          .list()
          .filter(
            (ns) =>
              ns.status?.phase !== "Terminating" &&
              !ns.metadata.deletionTimestamp &&
              selectorMatches(copies.namespaceSelector, ns.metadata.labels ?? {}),
          )
      : [];
    const existing = await this.#copiesOf(owner);
    const holdsCopy = new Set(
      existing.filter((c) => c.metadata.name === target.name).map((c) => c.metadata.namespace ?? ""),
    );
    const matching = new Set<string>();
    const refused: string[] = [];
    const withoutConsent: string[] = [];
    for (const ns of selected) {
      const name = ns.metadata.name;
      if (name === own || acceptsCopiesFrom(ns.metadata.annotations, own)) matching.add(name);
      else if (this.#keepWithoutConsent && holdsCopy.has(name)) {
        matching.add(name);
        withoutConsent.push(name);
      } else refused.push(name);
    }
    const accounts = copies?.serviceAccounts ?? [];
    const copiedTo: string[] = [];
    const failures: CopyFailure[] = [];

    for (const ns of [...matching].sort()) {
      try {
        if (ns !== own) {
          await this.write(owner, { ...target, namespace: ns }, credentials, { copy: true });
          copiedTo.push(ns);
        }
        await this.#link(ns, accounts, target.name);
      } catch (e) {
        const failure = copyFailure(ns, e);
        if (!failure) throw e;
        failures.push(failure);
      }
    }

    // Copies and entries that no longer belong: another namespace, or an earlier Secret name.
    for (const copy of existing) {
      const ns = copy.metadata.namespace ?? "";
      if (matching.has(ns) && copy.metadata.name === target.name) continue;
      await this.#unlink(ns, accounts, copy.metadata.name);
      await this.#kube.delete(Secrets, ns, copy.metadata.name, copy.metadata.uid);
    }
    for (const ns of previous) if (!matching.has(ns)) await this.#unlink(ns, accounts, target.name);
    if (!matching.has(own)) await this.#unlink(own, accounts, target.name);
    return { copiedTo, failures, refused: refused.sort(), withoutConsent: withoutConsent.sort() };
  }

  /** Removes everything the robot delivered: copies, ServiceAccount entries, its Secret(s). */
  async removeAll(
    owner: KubeObject,
    spec: HarborRobotSpec,
    secretNames: readonly string[],
    previous: readonly string[],
  ): Promise<void> {
    const accounts = spec.secret.copies?.serviceAccounts ?? [];
    const own = owner.metadata.namespace ?? "";
    if (spec.secret.copies || previous.length > 0) {
      for (const copy of await this.#copiesOf(owner)) {
        await this.#unlink(copy.metadata.namespace ?? "", accounts, copy.metadata.name);
        await this.#kube.delete(Secrets, copy.metadata.namespace, copy.metadata.name, copy.metadata.uid);
      }
      for (const ns of previous) for (const name of secretNames) await this.#unlink(ns, accounts, name);
    }
    for (const name of secretNames) {
      await this.#unlink(own, accounts, name);
      await this.remove(owner, own, name);
    }
  }

  /**
   * This robot's copies, selected by label on the server: wherever they are (one list call), or,
   * with --namespace and RBAC that grants Secrets only in some namespaces (Roles per watched
   * namespace), in each watched namespace, the robot's own and those its status says hold a copy.
   * A namespace the operator may not list Secrets in holds no copy it could have written.
   */
  async #copiesOf(owner: KubeObject): Promise<SecretObject[]> {
    const labelSelector = `${COPY_OF_LABEL}=${owner.metadata.uid ?? ""}`;
    const items: SecretObject[] = [];
    if (!this.#watched || (await this.#mayListEverywhere())) {
      items.push(...(await this.#kube.list<SecretObject>(Secrets, { labelSelector })).items);
    } else {
      const status = (owner as { status?: { copiedTo?: unknown } }).status;
      const recorded = Array.isArray(status?.copiedTo)
        ? status.copiedTo.filter((ns): ns is string => typeof ns === "string")
        : [];
      const scopes = new Set([...this.#watched, owner.metadata.namespace ?? "", ...recorded]);
      scopes.delete("");
      for (const namespace of [...scopes].sort()) {
        try {
          items.push(...(await this.#kube.list<SecretObject>(Secrets, { namespace, labelSelector })).items);
        } catch (e) {
          if (!isKubeError(e, "forbidden")) throw e;
        }
      }
    }
    const identity = ownerIdentity(owner);
    return items.filter((s) => s.metadata.annotations?.[OWNER_ANNOTATION] === identity);
  }

  /** Asked of the apiserver once; a failed question is asked again next time (meanwhile: no). */
  #mayListEverywhere(): Promise<boolean> {
    this.#everywhere ??= mayEverywhere(this.#kube, "list", Secrets).catch(() => {
      this.#everywhere = undefined;
      return false;
    });
    return this.#everywhere;
  }

  /** Adds the Secret to the ServiceAccounts' imagePullSecrets (those that exist). */
  async #link(namespace: string, accounts: readonly string[], secret: string): Promise<void> {
    for (const name of accounts) {
      const sa = await this.#kube.find<ServiceAccountObject>(ServiceAccounts, namespace, name);
      if (!sa) continue;
      const entries = sa.imagePullSecrets ?? [];
      if (entries.some((e) => e.name === secret)) continue;
      await this.#kube.replace<ServiceAccountObject>(ServiceAccounts, {
        ...sa,
        imagePullSecrets: [...entries, { name: secret }],
      });
    }
  }

  /** Removes the Secret from the ServiceAccounts' imagePullSecrets where it is listed. */
  async #unlink(namespace: string, accounts: readonly string[], secret: string): Promise<void> {
    for (const name of accounts) {
      const sa = await this.#kube.find<ServiceAccountObject>(ServiceAccounts, namespace, name);
      const entries = sa?.imagePullSecrets ?? [];
      if (!sa || !entries.some((e) => e.name === secret)) continue;
      await this.#kube.replace<ServiceAccountObject>(ServiceAccounts, {
        ...sa,
        imagePullSecrets: entries.filter((e) => e.name !== secret),
      });
    }
  }
}

/** Each listed failure's message is cut to this many characters (Ready's message has the rest). */
const MAX_FAILURE_MESSAGE = 256;

/**
 * What the robot's status says about copy failures: the listed failures (by namespace, capped) and
 * the Ready message, which names the namespaces and why.
 */
export function copyFailureReport(failures: readonly CopyFailure[]): {
  listed: CopyFailure[];
  message: string;
} {
  const sorted = [...failures].sort((a, b) => a.namespace.localeCompare(b.namespace));
  const why = sorted.map((f) => `${f.namespace}: ${f.message}`).join("; ");
  const message =
    sorted.length === 1
      ? `the Secret could not be delivered to namespace ${why}`
      : `the Secret could not be delivered to ${sorted.length} namespaces (status.copyFailures lists them): ${why}`;
  const listed = sorted
    .slice(0, MAX_COPY_FAILURES)
    .map((f) => ({ ...f, message: safeText(f.message, MAX_FAILURE_MESSAGE) }));
  return { listed, message };
}

/**
 * A failure that concerns one namespace only: someone else's Secret of that name, or a write the
 * apiserver forbids there (RBAC narrowed to some namespaces, an admission policy, a namespace being
 * terminated). Anything else (the apiserver unavailable, a stale write) is retried as a whole.
 */
function copyFailure(namespace: string, e: unknown): CopyFailure | undefined {
  if (e instanceof SecretConflictError) return { namespace, reason: "SecretConflict", message: e.message };
  if (isKubeError(e, "forbidden")) return { namespace, reason: "Forbidden", message: e.message };
  return undefined;
}

function labels(hash: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [WATCH_LABEL]: "true", [CREDENTIAL_HASH_LABEL]: hash };
}
