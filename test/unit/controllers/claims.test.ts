// Every managed kind's claim key: the identity of its Harbor object within one Harbor, by which a
// second resource for the same object gets Conflict instead of fighting the first (runtime/claims.ts
// proves the ownership rules once; this proves each kind's key). Per kind, resources that name the
// same Harbor object share a key, resources that name different objects do not: project-scoped
// objects differ between projects, a per-Harbor singleton has one key whatever the spec.
//
// The external clients are built as the composition root builds them (controllers/index.ts): an
// informer per kind over one Kubernetes client, which here is a fake API server holding the
// resources a claim may read (a member's HarborUserGroup). What a claim must not need throws.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MANAGED_KINDS, RUN_KINDS } from "../../../src/controllers/kind-list.ts";
import { DEFAULT_INSTANCE_CLAIM } from "../../../src/controllers/preheat-instance/external.ts";
import { DEFAULT_SCANNER_CLAIM } from "../../../src/controllers/scanner/external.ts";
import { FreshProjects } from "../../../src/controllers/shared/fresh-projects.ts";
import { type KindContext, type KindDeps, resourceType } from "../../../src/controllers/shared/kinds.ts";
import type { KubeClient, WatchEnd } from "../../../src/kube/client.ts";
import { type NamespaceObject, Namespaces, type ResourceType } from "../../../src/kube/types.ts";
import type { ExternalClient, ManagedObject } from "../../../src/runtime/external-client.ts";
import { Informer } from "../../../src/runtime/informer.ts";

const NS = "team";

/** A resource as kubectl applies it: its namespace, its name and its spec (without connectionRef). */
interface Resource {
  namespace?: string;
  name: string;
  spec: Record<string, unknown>;
}
const res = (name: string, spec: Record<string, unknown> = {}, namespace = NS): Resource => ({
  namespace,
  name,
  spec,
});

/** Resources in the cluster that claims may read, by Kubernetes kind. */
const CLUSTER: Record<string, ManagedObject[]> = {
  HarborUserGroup: [
    {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborUserGroup",
      metadata: { namespace: NS, name: "developers", resourceVersion: "1" },
      spec: {
        connectionRef: { name: "harbor" },
        type: "ldap",
        ldapGroupDn: "cn=developers,dc=example,dc=com",
      },
    },
  ],
};

/** Throws on any use: what building a kind's external client or its claim must not touch. */
function unused<T>(what: string): T {
  return new Proxy(
    {},
    {
      get: (_target, key) => {
        throw new Error(`${what}.${String(key)} was used`);
      },
    },
  ) as T;
}

/** The API server for the informers: lists what CLUSTER holds of a kind; its watches stay silent. */
const kube = {
  list: async (type: ResourceType) => ({ items: CLUSTER[type.kind] ?? [], resourceVersion: "1" }),
  watch: (_type: ResourceType, o: { signal?: AbortSignal }) =>
    new Promise<WatchEnd>((resolve) => o.signal?.addEventListener("abort", () => resolve("aborted"))),
} as unknown as KubeClient;

const logger = pino({ level: "silent" });
const ctx: KindContext = {
  kube,
  logger,
  metrics: unused("metrics"),
  events: unused("events"),
  connections: unused("connections"),
  secrets: unused("secrets"),
  secretUses: unused("secretUses"),
  workers: 1,
  driftIntervalMs: 60_000,
  statusRefreshIntervalMs: 60_000,
};
const informers = new Map(
  [...MANAGED_KINDS, ...RUN_KINDS].map((m) => [
    m.def.kind,
    new Informer<ManagedObject>({ client: kube, type: resourceType(m.def), logger }),
  ]),
);
const namespaces = new Informer<NamespaceObject>({ client: kube, type: Namespaces, logger });
const deps: KindDeps = {
  ctx,
  informer: (kind) => {
    const i = informers.get(kind);
    if (!i) throw new Error(`no managed kind ${kind} is registered`);
    return i;
  },
  namespaces,
  fresh: new FreshProjects(),
};
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
const externals = new Map<string, ExternalClient<any, any, any, any, any, any>>(
  MANAGED_KINDS.map((m) => [m.def.kind, m.external(deps)]),
);

beforeAll(async () => {
  for (const i of informers.values()) i.start();
  await Promise.all([...informers.values()].map((i) => i.waitForSync()));
});
afterAll(async () => {
  await Promise.all([...informers.values()].map((i) => i.stop()));
});

/** The claim as the reconciler computes it: from the stored spec (defaults applied) and the Harbor name. */
function claimOf(kind: string, r: Resource): string {
  const m = MANAGED_KINDS.find((k) => k.def.kind === kind);
  const external = externals.get(kind);
  if (!m || !external) throw new Error(`no managed kind ${kind}`);
  const spec = m.def.spec.parse({ connectionRef: { name: "harbor" }, ...r.spec });
  return external.claim(spec, spec.name ?? r.name, r.namespace ?? NS);
}

/** The per-Harbor setting a spec takes besides its object, if any. */
function settingOf(kind: string, r: Resource): string | undefined {
  const m = MANAGED_KINDS.find((k) => k.def.kind === kind);
  const spec = m?.def.spec.parse({ connectionRef: { name: "harbor" }, ...r.spec });
  return externals.get(kind)?.setting?.(spec)?.claim;
}

const schedule = (cron: string) => ({ type: "Custom", cron });
const pull = [{ access: [{ resource: "repository", action: "pull" }] }];
const systemPull = [
  { kind: "project", namespace: "*", access: [{ resource: "repository", action: "pull" }] },
];
const hook = (address: string) => ({ eventTypes: ["PUSH_ARTIFACT"], targets: [{ type: "http", address }] });
const selectors = (tags: string) => ({
  repositories: { decoration: "matches", pattern: "**" },
  tags: { decoration: "matches", pattern: tags },
});

/**
 * Per kind: pairs of resources that name the same Harbor object (one key), and pairs that name
 * different ones (two keys), each with why.
 */
const TABLE: Record<
  string,
  { same: Array<[string, Resource, Resource]>; different: Array<[string, Resource, Resource]> }
> = {
  HarborProject: {
    same: [
      [
        "the project's name from spec.name or the resource's name",
        res("shop"),
        res("store", { name: "shop" }),
      ],
      ["one Harbor project, resources in two namespaces", res("shop"), res("shop", {}, "other")],
    ],
    different: [["two project names", res("shop"), res("shop2")]],
  },
  HarborRobot: {
    same: [
      [
        "a project robot of one project",
        res("ci", { projectRef: { name: "shop" }, permissions: pull }),
        res("ci-again", { name: "ci", projectRef: { name: "shop" }, permissions: pull, description: "x" }),
      ],
      [
        "a system robot, whatever the namespace",
        res("ci", { level: "system", permissions: systemPull }),
        res("ci", { level: "system", permissions: systemPull }, "other"),
      ],
    ],
    different: [
      [
        "one name in two projects",
        res("ci", { projectRef: { name: "shop" }, permissions: pull }),
        res("ci", { projectRef: { name: "web" }, permissions: pull }),
      ],
      [
        "a project robot and a system robot of one name",
        res("ci", { projectRef: { name: "shop" }, permissions: pull }),
        res("ci", { level: "system", permissions: systemPull }),
      ],
    ],
  },
  HarborRegistry: {
    same: [
      [
        "one registry name, two namespaces and URLs",
        res("hub", { type: "docker-hub", url: "https://hub.docker.com" }),
        res("hub", { type: "harbor", url: "https://harbor.example.com" }, "other"),
      ],
    ],
    different: [
      [
        "two registry names",
        res("hub", { type: "docker-hub", url: "https://hub.docker.com" }),
        res("hub2", { type: "docker-hub", url: "https://hub.docker.com" }),
      ],
    ],
  },
  HarborReplicationPolicy: {
    same: [
      [
        "one policy name, other settings",
        res("mirror", { direction: "pull", registryRef: { name: "hub" } }),
        res("mirror", { direction: "push", registryRef: { name: "other" } }, "other"),
      ],
    ],
    different: [
      [
        "two policy names",
        res("mirror", { direction: "pull", registryRef: { name: "hub" } }),
        res("mirror2", { direction: "pull", registryRef: { name: "hub" } }),
      ],
    ],
  },
  HarborWebhookPolicy: {
    same: [
      [
        "one policy name in one project",
        res("events", { projectRef: { name: "shop" }, ...hook("https://a.example.com") }),
        res("events2", { name: "events", projectRef: { name: "shop" }, ...hook("https://b.example.com") }),
      ],
    ],
    different: [
      [
        "one name in two projects",
        res("events", { projectRef: { name: "shop" }, ...hook("https://a.example.com") }),
        res("events", { projectRef: { name: "web" }, ...hook("https://a.example.com") }),
      ],
      [
        "one project resource name in two namespaces",
        res("events", { projectRef: { name: "shop" }, ...hook("https://a.example.com") }),
        res("events", { projectRef: { name: "shop" }, ...hook("https://a.example.com") }, "other"),
      ],
    ],
  },
  HarborScannerRegistration: {
    same: [
      [
        "one registration name, other URLs",
        res("trivy", { url: "http://trivy:8080" }),
        res("trivy", { url: "http://trivy2:8080" }, "other"),
      ],
    ],
    different: [
      ["two names", res("trivy", { url: "http://trivy:8080" }), res("clair", { url: "http://trivy:8080" })],
    ],
  },
  HarborLabel: {
    same: [
      [
        "a global label, whatever the namespace",
        res("approved"),
        res("approved", { color: "#FF0000" }, "other"),
      ],
      [
        "a project label of one project",
        res("beta", { projectRef: { name: "shop" } }),
        res("beta2", { name: "beta", projectRef: { name: "shop" } }),
      ],
    ],
    different: [
      [
        "a global and a project label of one name",
        res("beta"),
        res("beta", { projectRef: { name: "shop" } }),
      ],
      [
        "one name in two projects",
        res("beta", { projectRef: { name: "shop" } }),
        res("beta", { projectRef: { name: "web" } }),
      ],
      ["two global names", res("beta"), res("gamma")],
    ],
  },
  HarborUserGroup: {
    same: [
      [
        "an LDAP group by its DN (trimmed, any letter case), whatever its name",
        res("devs", { type: "ldap", ldapGroupDn: "cn=developers,dc=example,dc=com" }),
        res("developers", { type: "ldap", ldapGroupDn: " CN=Developers,DC=example,DC=com " }),
      ],
      ["an OIDC group by its name", res("devs", { type: "oidc" }), res("devs", { type: "oidc" }, "other")],
    ],
    different: [
      [
        "two DNs",
        res("devs", { type: "ldap", ldapGroupDn: "cn=developers,dc=example,dc=com" }),
        res("devs", { type: "ldap", ldapGroupDn: "cn=operators,dc=example,dc=com" }),
      ],
      ["an http and an oidc group of one name", res("devs", { type: "http" }), res("devs", { type: "oidc" })],
    ],
  },
  HarborProjectMember: {
    same: [
      [
        "one user in one project, whatever the role",
        res("alice", { projectRef: { name: "shop" }, user: { name: "alice" }, role: "developer" }),
        res("alice-admin", { projectRef: { name: "shop" }, user: { name: "alice" }, role: "projectAdmin" }),
      ],
      [
        "a group by groupRef and the same group inline (its LDAP DN)",
        res("devs", {
          projectRef: { name: "shop" },
          group: { groupRef: { name: "developers" } },
          role: "guest",
        }),
        res("devs-inline", {
          projectRef: { name: "shop" },
          group: { type: "ldap", ldapGroupDn: "CN=Developers,DC=example,DC=com" },
          role: "guest",
        }),
      ],
    ],
    different: [
      [
        "one user in two projects",
        res("alice", { projectRef: { name: "shop" }, user: { name: "alice" }, role: "developer" }),
        res("alice", { projectRef: { name: "web" }, user: { name: "alice" }, role: "developer" }),
      ],
      [
        "a user and an oidc group of one name",
        res("alice", { projectRef: { name: "shop" }, user: { name: "alice" }, role: "developer" }),
        res("alice-group", {
          projectRef: { name: "shop" },
          group: { type: "oidc", name: "alice" },
          role: "developer",
        }),
      ],
      [
        "two groups by groupRef, one not in the cluster (yet)",
        res("devs", {
          projectRef: { name: "shop" },
          group: { groupRef: { name: "developers" } },
          role: "guest",
        }),
        res("ops", {
          projectRef: { name: "shop" },
          group: { groupRef: { name: "operators" } },
          role: "guest",
        }),
      ],
    ],
  },
  HarborGarbageCollection: {
    same: [
      [
        "one schedule per Harbor, whatever the spec",
        res("gc", { schedule: schedule("0 0 2 * * 6") }),
        res("gc-nightly", { schedule: schedule("0 0 3 * * *"), workers: 4 }, "other"),
      ],
    ],
    different: [],
  },
  HarborAuditLogPurge: {
    same: [
      [
        "one schedule per Harbor, whatever the spec",
        res("purge", { schedule: schedule("0 0 1 * * *"), retentionHours: 720 }),
        res("purge-weekly", { schedule: schedule("0 0 1 * * 0"), retentionHours: 24 }, "other"),
      ],
    ],
    different: [],
  },
  HarborJobService: {
    same: [
      [
        "one job service per Harbor, whatever the queues",
        res("jobs", { queues: [{ jobType: "REPLICATION", paused: false }] }),
        res("jobs-paused", { queues: [{ jobType: "SCHEDULER", paused: true }] }, "other"),
      ],
    ],
    different: [],
  },
  HarborConfiguration: {
    same: [["one configuration per Harbor", res("config"), res("settings", {}, "other")]],
    different: [],
  },
  HarborScanAll: {
    same: [
      [
        "one schedule per Harbor, whatever the spec",
        res("scan-all", { schedule: schedule("0 0 3 * * *") }),
        res("scan-nightly", { schedule: schedule("0 0 4 * * *") }, "other"),
      ],
    ],
    different: [],
  },
  HarborRetentionPolicy: {
    same: [
      [
        "one policy per project, whatever its rules",
        res("keep", { projectRef: { name: "shop" } }),
        res("keep-more", { projectRef: { name: "shop" }, schedule: schedule("0 0 3 * * *") }),
      ],
    ],
    different: [
      [
        "two projects",
        res("keep", { projectRef: { name: "shop" } }),
        res("keep", { projectRef: { name: "web" } }),
      ],
    ],
  },
  HarborImmutableTagRule: {
    same: [
      [
        "one project's rule with the same selectors, enabled or not",
        res("releases", { projectRef: { name: "shop" }, ...selectors("v*") }),
        res("releases-off", { projectRef: { name: "shop" }, ...selectors("v*"), disabled: true }),
      ],
    ],
    different: [
      [
        "other tag selectors",
        res("releases", { projectRef: { name: "shop" }, ...selectors("v*") }),
        res("rc", { projectRef: { name: "shop" }, ...selectors("rc-*") }),
      ],
      [
        "the same selectors in two projects",
        res("releases", { projectRef: { name: "shop" }, ...selectors("v*") }),
        res("releases", { projectRef: { name: "web" }, ...selectors("v*") }),
      ],
    ],
  },
  HarborUser: {
    same: [
      [
        "one username, other details",
        res("ci-bot", { email: "ci@example.com" }),
        res("bot", { name: "ci-bot", email: "bot@example.com", admin: true }, "other"),
      ],
    ],
    different: [
      [
        "two usernames",
        res("ci-bot", { email: "ci@example.com" }),
        res("cd-bot", { email: "ci@example.com" }),
      ],
    ],
  },
  HarborPreheatInstance: {
    same: [
      [
        "one instance name, other endpoints",
        res("dragonfly", { vendor: "dragonfly", endpoint: "http://df:8080" }),
        res("dragonfly", { vendor: "kraken", endpoint: "http://kraken:8080" }, "other"),
      ],
    ],
    different: [
      [
        "two names",
        res("dragonfly", { vendor: "dragonfly", endpoint: "http://df:8080" }),
        res("dragonfly2", { vendor: "dragonfly", endpoint: "http://df:8080" }),
      ],
    ],
  },
  HarborPreheatPolicy: {
    same: [
      [
        "one policy name in one project",
        res("releases", { projectRef: { name: "shop" }, instanceRef: { name: "df" } }),
        res("releases2", { name: "releases", projectRef: { name: "shop" }, instanceRef: { name: "other" } }),
      ],
    ],
    different: [
      [
        "one name in two projects",
        res("releases", { projectRef: { name: "shop" }, instanceRef: { name: "df" } }),
        res("releases", { projectRef: { name: "web" }, instanceRef: { name: "df" } }),
      ],
    ],
  },
};

test("the table has a row for every managed kind of the registry", () => {
  expect(Object.keys(TABLE).sort()).toEqual(MANAGED_KINDS.map((k) => k.def.kind).sort());
});

describe.each(Object.entries(TABLE))("%s", (kind, rows) => {
  test.each(rows.same)("the same Harbor object: %s", (_why, a, b) => {
    expect(claimOf(kind, a)).toBe(claimOf(kind, b));
  });
  if (rows.different.length > 0)
    test.each(rows.different)("different Harbor objects: %s", (_why, a, b) => {
      expect(claimOf(kind, a)).not.toBe(claimOf(kind, b));
    });
});

describe("Harbor's default scanner and preheat instance: a setting of its own, one per Harbor", () => {
  test.each([
    ["HarborScannerRegistration", DEFAULT_SCANNER_CLAIM, { url: "http://trivy:8080" }],
    ["HarborPreheatInstance", DEFAULT_INSTANCE_CLAIM, { vendor: "dragonfly", endpoint: "http://df:8080" }],
  ] as const)("%s: two defaults share the setting, a non-default takes none", (kind, setting, spec) => {
    expect(settingOf(kind, res("a", { ...spec, default: true }))).toBe(setting);
    expect(settingOf(kind, res("b", { ...spec, default: true }, "other"))).toBe(setting);
    expect(settingOf(kind, res("c", { ...spec, default: false }))).toBeUndefined();
    expect(settingOf(kind, res("d", spec))).toBeUndefined();
  });
});
