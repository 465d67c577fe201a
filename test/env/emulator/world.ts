// The emulator's one consistent state. Each API area owns a store (its records and the rules that
// keep them consistent); stores reach each other only through the World, so that for example a
// project deletion removes that project's robots (and, as in Harbor, not its webhook policies), and
// a registry referenced by a replication policy or a proxy-cache project cannot be deleted. The
// World also says which Harbor release it models (`version`), for the areas that differ by release.

import { PurgeStore } from "./areas/audit-log-purge.ts";
import { ConfigStore } from "./areas/configurations.ts";
import { GcStore } from "./areas/garbage-collection.ts";
import { ImmutableStore } from "./areas/immutable-tag-rule.ts";
import { JobServiceStore } from "./areas/job-service.ts";
import { LabelStore } from "./areas/labels.ts";
import { LdapStore } from "./areas/ldap.ts";
import { PreheatStore } from "./areas/preheat.ts";
import { ProjectStore } from "./areas/projects.ts";
import { DEFAULT_INSTALL_ADAPTER_WHITELIST, RegistryStore } from "./areas/registries.ts";
import { ReplicationStore } from "./areas/replication.ts";
import { RetentionStore } from "./areas/retention.ts";
import { RobotStore } from "./areas/robots.ts";
import { ScanAllStore } from "./areas/scan-all.ts";
import { ScannerStore } from "./areas/scanners.ts";
import { UserGroupStore } from "./areas/user-group.ts";
import { WebhookStore } from "./areas/webhooks.ts";
import { AuditLog } from "./audit.ts";
import { Identities } from "./identities.ts";
import { harborTime } from "./time.ts";
import { HarborVersion, PRIVATE_WEBHOOK_REFUSAL_PATCHES } from "./version.ts";

export { harborTime, ZERO_TIME } from "./time.ts";

/**
 * Wall-clock time plus an offset that tests can advance. Stores that make progress over time
 * (replication executions, GC runs) register a tick function; ticks run on every advance and on a
 * short real-time interval, so progress is both controllable and automatic.
 */
export class Clock {
  #offsetMs = 0;
  /** Set while frozen: the world's time, which then moves only when advanced. */
  #frozenAt: number | undefined;
  readonly #tickers: Array<() => void> = [];

  now(): number {
    return this.#frozenAt ?? Date.now() + this.#offsetMs;
  }

  advance(ms: number): void {
    if (this.#frozenAt === undefined) this.#offsetMs += ms;
    else this.#frozenAt += ms;
    this.tick();
  }

  /**
   * Stops real time for the world: from now on its time moves only by advance(), so that a test
   * can look at a run just before its planned end however slowly the machine runs the test.
   */
  freeze(): void {
    this.#frozenAt ??= this.now();
  }

  /** Lets real time pass for the world again, from where it stands. */
  resume(): void {
    if (this.#frozenAt === undefined) return;
    this.#offsetMs = this.#frozenAt - Date.now();
    this.#frozenAt = undefined;
  }

  onTick(fn: () => void): void {
    this.#tickers.push(fn);
  }

  tick(): void {
    for (const fn of this.#tickers) fn();
  }
}

/** Ids only grow, per resource kind, and are never reused. */
export class IdSource {
  readonly #next = new Map<string, number>();

  constructor(start: Record<string, number> = {}) {
    for (const [k, v] of Object.entries(start)) this.#next.set(k, v);
  }

  next(kind: string): number {
    const id = this.#next.get(kind) ?? 1;
    this.#next.set(kind, id + 1);
    return id;
  }
}

export interface WorldOptions {
  adminPassword: string;
  /** Seed for every random choice the emulator makes (fault rates, generated secrets stay random). */
  seed?: number;
  /** The Harbor release modelled, e.g. "2.12.4". Default: the newest (version.ts). */
  harborVersion?: string;
  /** The deployment's REPLICATION_ADAPTER_WHITELIST (null: unset); see EmulatorOptions. */
  replicationAdapterWhitelist?: readonly string[] | null;
  /** Whether webhook delivery to private addresses is refused; see EmulatorOptions. */
  webhookPrivateAddresses?: WebhookPrivateAddresses;
  /** How long a failed password login locks its principal and delays the answer. Default 1500 ms. */
  loginFreezeMs?: number;
}

export type WebhookPrivateAddresses = "refuse" | "allow";

/** What a deployment sets around the release (not a version): see EmulatorOptions. */
export interface DeploymentSettings {
  /** The registry types the adapter lists show on 2.14+; null when the variable is unset. */
  readonly replicationAdapterWhitelist: readonly string[] | null;
  readonly webhookPrivateAddresses: WebhookPrivateAddresses;
}

export class World {
  readonly clock = new Clock();
  readonly ids = new IdSource();
  readonly random: () => number;
  readonly version: HarborVersion;
  readonly settings: DeploymentSettings;
  readonly audit: AuditLog;
  readonly identities: Identities;
  readonly config: ConfigStore;
  readonly projects: ProjectStore;
  readonly labels: LabelStore;
  readonly robots: RobotStore;
  readonly scanners: ScannerStore;
  readonly registries: RegistryStore;
  readonly replication: ReplicationStore;
  readonly jobservice: JobServiceStore;
  readonly ldap: LdapStore;
  readonly userGroups: UserGroupStore;
  readonly gc: GcStore;
  readonly purge: PurgeStore;
  readonly webhooks: WebhookStore;
  readonly retention: RetentionStore;
  readonly immutable: ImmutableStore;
  readonly scanAll: ScanAllStore;
  readonly preheat: PreheatStore;

  constructor(o: WorldOptions) {
    this.random = mulberry32(o.seed ?? 42);
    this.version = new HarborVersion(o.harborVersion);
    this.settings = deploymentSettings(this.version, o);
    this.audit = new AuditLog(this);
    this.identities = new Identities(this, o.adminPassword, o.loginFreezeMs);
    this.config = new ConfigStore(this);
    this.projects = new ProjectStore(this);
    this.labels = new LabelStore(this);
    this.robots = new RobotStore(this);
    this.scanners = new ScannerStore(this);
    this.registries = new RegistryStore(this);
    this.replication = new ReplicationStore(this);
    this.jobservice = new JobServiceStore(this);
    this.ldap = new LdapStore(this);
    this.userGroups = new UserGroupStore(this);
    this.gc = new GcStore(this);
    this.purge = new PurgeStore(this);
    this.webhooks = new WebhookStore(this);
    this.retention = new RetentionStore(this);
    this.immutable = new ImmutableStore(this);
    this.scanAll = new ScanAllStore(this);
    this.preheat = new PreheatStore(this);
  }

  now(): number {
    return this.clock.now();
  }

  nowText(): string {
    return harborTime(this.clock.now());
  }
}

function deploymentSettings(version: HarborVersion, o: WorldOptions): DeploymentSettings {
  const webhookPrivateAddresses = o.webhookPrivateAddresses ?? "allow";
  if (webhookPrivateAddresses !== "refuse" && webhookPrivateAddresses !== "allow") {
    throw new Error(
      `webhookPrivateAddresses must be "refuse" or "allow", got ${String(webhookPrivateAddresses)}`,
    );
  }
  if (webhookPrivateAddresses === "refuse" && !version.atLeast("2.13")) {
    throw new Error(
      `webhookPrivateAddresses "refuse" models the patches ${PRIVATE_WEBHOOK_REFUSAL_PATCHES.join(", ")}; Harbor ${version.name} has no such patch`,
    );
  }
  const whitelist = o.replicationAdapterWhitelist;
  return {
    replicationAdapterWhitelist: whitelist === undefined ? DEFAULT_INSTALL_ADAPTER_WHITELIST : whitelist,
    webhookPrivateAddresses,
  };
}

/** A small seeded PRNG so fault injection is repeatable. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
