// Input hygiene at admission, against the real apiserver with the generated CRDs: a URL with user
// info, a name with a control or invisible character, a name Harbor would refuse that a Kubernetes
// name allows, a quantity or schedule Harbor cannot use. Each is refused by `kubectl apply` (a
// server-side dry run) with a message that names the field; what Harbor accepts still passes.
import { afterAll, describe, expect, test } from "vitest";
import { useNamespace } from "../../env/cluster.ts";
import { type AppliedObject, admission } from "../../env/refused.ts";
import {
  auditLogPurge,
  clusterConnection as clusterConnectionOf,
  connection as connectionOf,
  garbageCollection,
  gcRun,
  invalid,
  jobService,
  project,
  registry as registryOf,
  replicationPolicy,
  replicationRun,
  robot as robotOf,
  scanAll,
  webhookPolicy,
} from "../../env/resources.ts";

const ns = useNamespace("admission");

const connection = (url: string) => connectionOf("harbor", url, "creds");
const clusterConnection = (url: string) =>
  clusterConnectionOf(`${ns.name}-shared`, {
    url,
    credentialsSecretRef: { name: "creds", namespace: ns.name },
    allowedNamespaces: [ns.name],
  });
const robot = (name: string, spec: Parameters<typeof robotOf>[1] = {}) =>
  robotOf(name, { projectRef: { name: "team" }, ...spec });
const registry = (name: string, spec: Parameters<typeof registryOf>[1] = {}) =>
  registryOf(name, { url: "https://r.example.com", ...spec });
const policy = (name: string, spec: Parameters<typeof replicationPolicy>[1] = {}) =>
  replicationPolicy(name, { registryRef: { name: "r" }, ...spec });
const webhook = (name: string, spec: Parameters<typeof webhookPolicy>[1] = {}) =>
  webhookPolicy(name, {
    projectRef: { name: "team" },
    targets: [{ address: "https://ci.example.com/hook" }],
    ...spec,
  });

/** A server-side dry run of `kubectl apply`: undefined when admitted, else kubectl's error text. */
const refusal = (manifest: Parameters<typeof admission>[1]) => admission(ns.kubectl, manifest);

async function expectRefused(manifest: AppliedObject, field: string, says: string | RegExp): Promise<void> {
  const text = await refusal(manifest);
  expect(text, `${JSON.stringify(manifest)} was admitted`).toBeDefined();
  expect(text).toContain(`${field}: Invalid value`);
  if (typeof says === "string") expect(text).toContain(says);
  else expect(text).toMatch(says);
}

const USER_INFO = "must not contain user info";
const HIDDEN = "must not contain control characters";

/** What Harbor takes passes as before: the new rules refuse nothing else. */
async function expectAdmitted(...manifests: AppliedObject[]): Promise<void> {
  for (const m of manifests) expect(await refusal(m), JSON.stringify(m)).toBeUndefined();
}

describe("URLs with user info are refused, naming the field", () => {
  for (const userInfo of ["admin:Harbor12345@", "admin@"]) {
    test(`${userInfo} in every URL field; an "@" elsewhere passes`, async () => {
      const url = `https://${userInfo}harbor.example.com`;
      await expectRefused(connection(url), "spec.url", USER_INFO);
      await expectRefused(clusterConnection(url), "spec.url", USER_INFO);
      await expectRefused(registry("r", { url }), "spec.url", USER_INFO);
      await expectRefused(
        webhook("w", { targets: [{ address: `${url}/hook` }] }),
        "spec.targets[0].address",
        USER_INFO,
      );
      await expectAdmitted(
        connection("https://harbor.example.com:8443/sub"),
        registry("r", { url: "https://r.example.com/v2/?x=a@b" }),
        webhook("w", { targets: [{ address: "https://ci.example.com/hooks/a@b?x=1" }] }),
      );
    });
  }

  test("a connection URL must be one the operator can connect to", async () => {
    await expectRefused(connection("https://harbor.example.com:99999"), "spec.url", "can connect to");
  });
});

describe("names: Harbor's rules, and no control or invisible characters", () => {
  const hidden: Array<[string, string]> = [
    ["a control character", "\u0007"],
    ["a zero-width space", "\u200b"],
    ["a bidi override", "\u202e"],
    ["a C1 control", "\u0085"],
    ["a byte order mark", "\ufeff"],
  ];

  for (const [what, c] of hidden) {
    test(`${what} in a name or free text of every kind`, async () => {
      await expectRefused(registry("r", { name: `mirror${c}` }), "spec.name", HIDDEN);
      await expectRefused(policy("p", { name: `nightly${c}push` }), "spec.name", HIDDEN);
      await expectRefused(webhook("w", { name: `ci${c}hook` }), "spec.name", HIDDEN);
      await expectRefused(robot("ci", { description: `pulls${c}` }), "spec.description", HIDDEN);
      await expectRefused(registry("r", { description: `mirror${c}` }), "spec.description", HIDDEN);
      await expectRefused(policy("p", { description: `x${c}` }), "spec.description", HIDDEN);
      await expectRefused(webhook("w", { description: `x${c}` }), "spec.description", HIDDEN);
      await expectRefused(policy("p", { filters: { name: `library/${c}**` } }), "spec.filters.name", HIDDEN);
      await expectRefused(
        policy("p", { filters: { tag: { pattern: `v${c}*` } } }),
        "spec.filters.tag.pattern",
        HIDDEN,
      );
      await expectRefused(
        policy("p", { filters: { labels: { values: [`prod${c}`] } } }),
        "spec.filters.labels.values[0]",
        HIDDEN,
      );
      await expectRefused(
        project("team", { cveAllowlist: { items: [`CVE-2024-1${c}`] } }),
        "spec.cveAllowlist.items[0]",
        HIDDEN,
      );
      await expectRefused(registry("r", { url: `https://r${c}.example.com` }), "spec.url", HIDDEN);
      await expectAdmitted(
        registry("r", { name: "Docker Hub (EU) – Überprüft" }),
        robot("ci", { description: "line one\n\tline two" }),
      );
    });
  }

  test("a defaulted metadata.name that Harbor would refuse is refused, naming the name", async () => {
    await expectRefused(
      project("team--a"),
      "metadata",
      'name "team--a" is not a valid Harbor project name (lower-case letters and digits, with a single . _ or - between them); choose another metadata.name or set spec.name',
    );
    await expectRefused(robot("ci--bot"), "metadata", "is not a valid Harbor robot name");
    await expectRefused(
      registry("r".repeat(65)),
      "metadata",
      "is not a valid Harbor registry name (at most 64",
    );
    // spec.name takes over the name in Harbor: then any Kubernetes name will do.
    await expectAdmitted(
      project("team--a", { name: "team-a" }),
      registry("r".repeat(65), { name: "mirror" }),
      project("team.a-b"),
      project("team", { name: "team_a.b-c" }),
    );
  });

  test("a CVE id listed twice is refused (Harbor refuses the list)", async () => {
    const text = await refusal(project("team", { cveAllowlist: { items: ["CVE-2024-1", "CVE-2024-1"] } }));
    expect(text).toContain('spec.cveAllowlist.items[1]: Duplicate value: "CVE-2024-1"');
  });
});

describe("quantities and values", () => {
  test("storageLimit: what Harbor cannot store is refused, what it can passes", async () => {
    for (const storageLimit of ["0", "abc", "2Pi", "-2", "0.5", "10GB", "500m"]) {
      await expectRefused(
        project("team", { storageLimit }),
        "spec.storageLimit",
        'must be "unlimited", "-1", or a whole number of bytes',
      );
    }
    await expectAdmitted(
      ...["10Gi", "1.5Gi", "1Pi", "unlimited", "-1", "1073741824"].map((storageLimit) =>
        project("team", { storageLimit }),
      ),
    );
  });

  test("cron: fields out of Harbor's ranges are refused, schedules it runs pass", async () => {
    for (const cron of [
      "0 0 25 * * *",
      "0 60 2 * * *",
      "0 0 2 32 * *",
      "0 0 2 * 13 *",
      "0 0 2 * * 7",
      "0 0 */0 * * *",
      "5 0 2 * * *",
      "0 * 2 * * *",
    ]) {
      await expectRefused(
        policy("p", { trigger: { type: "scheduled", cron } }),
        "spec.trigger.cron",
        "must be a cron schedule Harbor runs",
      );
    }
    await expectAdmitted(
      ...["0 0 2 * * *", "0 */15 8-18 * * MON-FRI", "0 0 0 1 jan,jul *"].map((cron) =>
        policy("p", { trigger: { type: "scheduled", cron } }),
      ),
    );
  });

  test("numbers Harbor keeps in 32 bits", async () => {
    const text = await refusal(
      project("team", { proxyCache: { registryRef: { name: "r" }, speedKbps: 2 ** 31 } }),
    );
    expect(text).toContain("spec.proxyCache.speedKbps: Invalid value");
  });

  test("Secret keys must be keys a Secret can have", async () => {
    await expectRefused(
      connectionOf("harbor", "https://h.example.com", "creds", {
        credentialsSecretRef: { name: "creds", passwordKey: "pass word" },
      }),
      "spec.credentialsSecretRef.passwordKey",
      "should match",
    );
  });

  test("a CA bundle must hold PEM certificates", async () => {
    await expectRefused(
      connectionOf("harbor", "https://h.example.com", "creds", { caBundle: "not a certificate" }),
      "spec.caBundle",
      "must hold PEM certificates",
    );
  });
});

/** The refusal's text, which must hold `line` (e.g. `spec.type: Invalid value: "harbor": …`). */
async function expectRefusal(manifest: AppliedObject, ...lines: string[]): Promise<void> {
  const text = await refusal(manifest);
  expect(text, `${JSON.stringify(manifest)} was admitted`).toBeDefined();
  for (const line of lines) expect(text).toContain(line);
}

describe("messages point at the field and show the value at fault", () => {
  test("a robot permission Harbor does not allow names the pair and what its resource allows", async () => {
    await expectRefusal(
      robot("ci", { permissions: [{ access: [{ resource: "repository", action: "pul" }] }] }),
      'spec.permissions[0].access: Invalid value: "repository:pul" is not a resource/action pair Harbor 2.12 allows in a project permission of a robot: repository allows read, update, delete, list, pull, push',
    );
    await expectRefusal(
      robot("ci", {
        permissions: [
          {
            access: [
              { resource: "repository", action: "pull" },
              { resource: "repositories", action: "pull" },
              { resource: "tag", action: "push" },
            ],
          },
        ],
      }),
      '"repositories:pull" is not a resource/action pair Harbor 2.12 allows in a project permission of a robot: there is no project resource of that name (there are log, project, metadata, repository,',
      "1 more pair(s) of this permission are not allowed either",
    );
    await expectRefusal(
      robot("sys", {
        level: "system",
        projectRef: undefined,
        permissions: [{ kind: "system", access: [{ resource: "registry", action: "pull" }] }],
      }),
      '"registry:pull" is not a resource/action pair Harbor 2.12 allows in a system permission of a robot: registry allows read, create, delete, list, update',
    );
    await expectRefusal(
      robot("sys", {
        level: "system",
        projectRef: undefined,
        permissions: [
          { kind: "system", namespace: "team", access: [{ resource: "registry", action: "read" }] },
        ],
      }),
      'spec.permissions[0].namespace: Invalid value: the namespace of a system permission is "/", not "team"',
    );
    await expectAdmitted(
      robot("ci", { permissions: [{ access: [{ resource: "repository", action: "push" }] }] }),
    );
  });

  test("rules across fields point at the field to change and show the values", async () => {
    await expectRefusal(
      policy("p", { direction: "pull", trigger: { type: "event_based" } }),
      "spec.trigger.type: Invalid value: an event_based trigger needs direction push (Harbor fires it on pushes and deletions in this Harbor), and direction is pull",
    );
    await expectRefusal(
      policy("p", { trigger: { type: "manual", cron: "0 0 2 * * *" } }),
      "spec.trigger.cron: Forbidden: cron is only for scheduled triggers, and this trigger is manual",
    );
    await expectRefusal(
      policy("p", { trigger: { type: "scheduled" } }),
      "spec.trigger.cron: Required value: a scheduled trigger needs a cron",
    );
    await expectRefusal(
      policy("p", { runOnCreate: true, enabled: false }),
      "spec.runOnCreate: Invalid value: runOnCreate needs enabled: true",
    );
    await expectRefusal(
      robot("ci", { durationDays: 5, rotation: { beforeExpiryDays: 9 } }),
      "spec.rotation.beforeExpiryDays: Invalid value: rotation.beforeExpiryDays (9) must be smaller than durationDays (5)",
    );
    await expectRefusal(
      robot("ci", {
        permissions: [
          { namespace: "team", access: [{ resource: "repository", action: "pull" }] },
          { access: [{ resource: "repository", action: "push" }] },
        ],
      }),
      'spec.permissions: Invalid value: a project-level robot has exactly one permission, of kind project, without namespace (its own project); this one has 2, the first of kind project with namespace "team"',
    );
    await expectRefusal(
      robot("ci", { projectRef: undefined }),
      "spec.projectRef: Required value: a project-level robot needs projectRef",
    );
    await expectRefusal(
      project("team", { preventVulnerable: true }),
      "spec.severity: Required value: preventVulnerable needs a severity",
    );
    await expectRefusal(
      webhook("w", {
        targets: [{ type: "slack", address: "https://hooks.example.com/x", payloadFormat: "Default" }],
      }),
      "spec.targets[0].payloadFormat: Forbidden: slack targets take no payloadFormat",
    );
    await expectRefusal(
      robot("ci", {
        secret: {
          copies: {
            namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists", values: ["a"] }] },
          },
        },
      }),
      "spec.secret.copies.namespaceSelector.matchExpressions[0].values: Invalid value: In and NotIn need values; Exists and DoesNotExist take none, and the operator is Exists",
    );
    // A robot whose secret is not delivered: nothing to copy, and no rotation.
    await expectRefusal(
      robot("ci", { secret: { deliver: false, copies: { namespaceSelector: {} } } }),
      "spec.secret.copies: Forbidden: secret.copies needs secret.deliver: true",
    );
    await expectRefusal(
      robot("ci", { secret: { deliver: false }, rotation: { intervalDays: 30 } }),
      "spec.rotation: Forbidden: rotation needs secret.deliver: true",
    );
    expect(await refusal(robot("ci", { secret: { deliver: false } }))).toBeUndefined();
  });
});

describe("what Harbor can never change is refused at admission, showing what it stays", () => {
  // Transition rules compare with the stored object: these are created for real, then changed.
  const stored: Array<[string, string]> = [];
  afterAll(async () => {
    for (const [kind, name] of stored) await ns.kubectl.delete(kind, name);
  });
  async function create(manifest: { kind: string; metadata: { name: string } }): Promise<void> {
    await ns.kubectl.apply(manifest);
    stored.push([manifest.kind.toLowerCase(), manifest.metadata.name]);
  }

  test("a registry's type, once the registry exists in Harbor (its update has no type)", async () => {
    await create(registry("hub", { type: "quay-io", url: "https://hub.docker.com" }));
    // Not in Harbor yet (a type Harbor does not know, say): it can still be fixed.
    await ns.kubectl.apply(registry("hub", { type: "docker-hub", url: "https://hub.docker.com" }));
    await ns.kubectl.run([
      "patch",
      "harborregistry",
      "hub",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":{"harborId":7}}',
    ]);
    await expectRefusal(
      registry("hub", { type: "harbor", url: "https://hub.docker.com" }),
      'spec.type: Invalid value: type is immutable once the registry exists in Harbor (status.harborId 7): Harbor cannot change the type of an existing registry; it stays "docker-hub"',
    );
    // Everything Harbor can change still passes.
    await expectAdmitted(
      registry("hub", {
        type: "docker-hub",
        url: "https://registry-1.docker.io",
        insecure: true,
        description: "x",
      }),
    );
  });

  test("names, a webhook policy's project and a robot's level", async () => {
    await create(webhook("hook", { name: "ci-hook" }));
    await expectRefusal(
      webhook("hook", { name: "cd-hook" }),
      'spec.name: Invalid value: "cd-hook": the webhook policy name is immutable (Harbor keeps objects by name): it stays "ci-hook"',
    );
    await expectRefusal(
      webhook("hook", { name: "ci-hook", projectRef: { name: "other" } }),
      'spec.projectRef: Invalid value: projectRef is immutable: a webhook policy stays in its project; it stays "team"',
    );
    await create(registry("unnamed"));
    await expectRefusal(
      registry("unnamed", { name: "mirror" }),
      "spec.name: Invalid value: name is immutable: it was unset when the object was created, so it stays unset",
    );
    await create(robot("bot"));
    await expectRefusal(
      robot("bot", {
        level: "system",
        projectRef: undefined,
        permissions: [{ kind: "system", access: [{ resource: "registry", action: "read" }] }],
      }),
      "spec.level: Invalid value: level is immutable: it stays project",
    );
  });
});

describe("what Harbor can never change on an existing object is refused, naming the field (more kinds)", () => {
  /** Creates the object, then records a Harbor id the way the operator does (status subresource). */
  async function inHarbor(manifest: { kind: string; metadata: { name: string } }, harborId: number) {
    await ns.kubectl.apply(manifest);
    await ns.kubectl.run([
      "patch",
      manifest.kind.toLowerCase(),
      manifest.metadata.name,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { harborId } }),
    ]);
  }

  test("a replication policy's runOnCreate cannot be turned on once the policy exists; off it may go", async () => {
    await inHarbor(policy("ran", { runOnCreate: true }), 6);
    await expectAdmitted(policy("ran", { runOnCreate: false }), policy("ran", { runOnCreate: true }));
    await inHarbor(policy("never-ran"), 7);
    await expectRefused(
      policy("never-ran", { runOnCreate: true }),
      "spec.runOnCreate",
      "runOnCreate acts only when the policy is created",
    );
    // The direction and the registry are Harbor's to change (its PUT takes both sides).
    await expectAdmitted(policy("never-ran", { direction: "pull", registryRef: { name: "other" } }));
  });

  test("a project's proxy cache: its registry and being one are fixed, its speed is not; no content trust", async () => {
    await ns.kubectl.apply(project("cache", { proxyCache: { registryRef: { name: "hub" }, speedKbps: 10 } }));
    await expectAdmitted(project("cache", { proxyCache: { registryRef: { name: "hub" }, speedKbps: 20 } }));
    const fixed = "proxyCache and proxyCache.registryRef are immutable";
    for (const spec of [{ proxyCache: { registryRef: { name: "other" } } }, {}]) {
      const text = await refusal(project("cache", spec));
      expect(text).toContain(fixed);
    }
    expect(await refusal(project("plain", { proxyCache: { registryRef: { name: "hub" } } }))).toBeUndefined();
    await ns.kubectl.apply(project("ordinary"));
    expect(await refusal(project("ordinary", { proxyCache: { registryRef: { name: "hub" } } }))).toContain(
      fixed,
    );
    expect(
      await refusal(
        project("trusting", { contentTrust: true, proxyCache: { registryRef: { name: "hub" } } }),
      ),
    ).toContain("contentTrust cannot be true on a proxy-cache project");
    await expectAdmitted(project("trusting", { contentTrust: true }));
  });

  test("a robot's level and project, and a webhook policy's project, are immutable", async () => {
    await ns.kubectl.apply(robot("bot-b"));
    expect(await refusal(robot("bot-b", { projectRef: { name: "elsewhere" } }))).toContain(
      "projectRef is immutable",
    );
    expect(
      await refusal(
        robot("bot-b", {
          level: "system",
          projectRef: undefined,
          permissions: [{ kind: "system", access: [{ resource: "project", action: "list" }] }],
        }),
      ),
    ).toContain("level is immutable");
    await ns.kubectl.apply(webhook("hook-b"));
    expect(await refusal(webhook("hook-b", { projectRef: { name: "elsewhere" } }))).toContain(
      "projectRef is immutable",
    );
  });
});

// The refusals the end-to-end files of these kinds used to check with kubectl (no operator needed).

describe("HarborRegistry", () => {
  test("a URL that is not http(s) and a credential type Harbor does not know", async () => {
    await expectRefused(
      registry("r", { url: "ftp://files.example.com" }),
      "spec.url",
      `"ftp://files.example.com": spec.url in body should match`,
    );
    await expectRefusal(
      registry("r", { credential: { type: invalid("token"), secretRef: { name: "s" } } }),
      'spec.credential.type: Unsupported value: "token": supported values: "basic", "oauth"',
    );
  });
});

describe("HarborReplicationPolicy", () => {
  test("a schedule every minute and a direction that is neither push nor pull", async () => {
    await expectRefused(
      policy("p", { trigger: { type: "scheduled", cron: "0 * * * * *" } }),
      "spec.trigger.cron",
      'a minute other than "*"',
    );
    await expectRefusal(
      policy("p", { direction: invalid("sideways") }),
      'spec.direction: Unsupported value: "sideways": supported values: "push", "pull"',
    );
  });
});

describe("HarborGarbageCollectionRun", () => {
  test("workers, concurrencyPolicy and ttlSecondsAfterFinished out of range", async () => {
    await expectRefused(gcRun("r", { workers: 9 }), "spec.workers", "should be less than or equal to 5");
    await expectRefusal(
      gcRun("r", { concurrencyPolicy: invalid("Later") }),
      'spec.concurrencyPolicy: Unsupported value: "Later": supported values: "Wait", "Queue"',
    );
    await expectRefused(
      gcRun("r", { ttlSecondsAfterFinished: -1 }),
      "spec.ttlSecondsAfterFinished",
      "should be greater than or equal to 0",
    );
  });

  test("a run's parameters and connection never change; its deletionPolicy and TTL may", async () => {
    const first = { deleteUntagged: true, workers: 2 };
    await ns.kubectl.apply(gcRun("first", first));
    const stays = (what: string) => `${what}: a run does what it was created with, so it stays`;
    await expectRefused(
      gcRun("first", { ...first, dryRun: true }),
      "spec.dryRun",
      `${stays("dryRun is immutable")} false; create another run instead`,
    );
    await expectRefused(
      gcRun("first", { ...first, workers: 3 }),
      "spec.workers",
      `${stays("workers is immutable")} 2`,
    );
    await expectRefused(
      gcRun("first", { ...first, deleteUntagged: false }),
      "spec.deleteUntagged",
      `${stays("deleteUntagged is immutable")} true`,
    );
    await expectRefused(
      gcRun("first", { ...first, connectionRef: { name: "elsewhere" } }),
      "spec.connectionRef",
      `${stays("connectionRef is immutable")} harbor`,
    );
    await expectAdmitted(gcRun("first", { ...first, deletionPolicy: "Orphan", ttlSecondsAfterFinished: 60 }));
  });
});

describe("HarborReplicationRun", () => {
  test("a run needs a policy, and its policy never changes", async () => {
    const withoutPolicy = {
      ...replicationRun("nothing", "mirror"),
      spec: { connectionRef: { name: "harbor" } },
    };
    await expectRefusal(withoutPolicy, "spec.policyRef: Required value");
    await ns.kubectl.apply(replicationRun("orphan", "missing"));
    await expectRefused(
      replicationRun("orphan", "mirror"),
      "spec.policyRef",
      "policyRef is immutable: a run does what it was created with, so it stays missing; create another run instead",
    );
  });
});

describe("HarborGarbageCollection, HarborAuditLogPurge and HarborScanAll schedules", () => {
  const kinds = [
    ["HarborGarbageCollection", (spec: object) => garbageCollection("s", spec)],
    ["HarborAuditLogPurge", (spec: object) => auditLogPurge("s", spec)],
    ["HarborScanAll", (spec: object) => scanAll("s", spec)],
  ] as const;

  test.each(kinds)("%s: Manual is no schedule; Custom needs a cron Harbor runs", async (_kind, of) => {
    await expectRefused(
      of({ schedule: { type: "Manual" } }),
      "spec.schedule.type",
      "type Manual is not a schedule: Harbor would start a run at every apply. Choose Hourly, Daily, Weekly, Custom or None, and start a run now with the annotation harborconfig.io/runRequestedAt",
    );
    await expectRefusal(
      of({ schedule: { type: "Custom" } }),
      "spec.schedule.cron: Required value: a Custom schedule needs a cron",
    );
    await expectRefused(
      of({ schedule: { type: "Custom", cron: "0 0 25 * * *" } }),
      "spec.schedule.cron",
      "must be a cron schedule Harbor runs",
    );
  });

  test("GC: Schedule does nothing, None takes no cron, seconds must be 0, at most 5 workers", async () => {
    await expectRefused(
      garbageCollection("gc", { schedule: { type: invalid("Schedule") } }),
      "spec.schedule.type",
      "type Schedule is accepted by Harbor and does nothing: choose Hourly, Daily, Weekly, Custom or None",
    );
    await expectRefusal(
      garbageCollection("gc", { schedule: { type: "None", cron: "0 0 0 * * *" } }),
      "spec.schedule.cron: Forbidden: cron is not used with type None",
    );
    await expectRefused(
      garbageCollection("gc", { schedule: { type: "Custom", cron: "5 0 0 * * *" } }),
      "spec.schedule.cron",
      "with seconds 0",
    );
    await expectRefused(garbageCollection("gc", { workers: 6 }), "spec.workers", "less than or equal to 5");
  });

  test("audit-log purge: a type of no schedule, retention out of range, operations Harbor does not purge", async () => {
    await expectRefused(
      auditLogPurge("purge", { schedule: { type: invalid("Yearly") } }),
      "spec.schedule.type",
      'type "Yearly" is not one of Hourly, Daily, Weekly, Custom, None',
    );
    await expectRefused(
      auditLogPurge("purge", { retentionHours: 0 }),
      "spec.retentionHours",
      "greater than or equal to 1",
    );
    await expectRefused(
      auditLogPurge("purge", { retentionHours: 876_001 }),
      "spec.retentionHours",
      "less than or equal to 876000",
    );
    await expectRefusal(
      auditLogPurge("purge", { includeOperations: invalid(["push"]) }),
      'spec.includeOperations[0]: Unsupported value: "push": supported values: "create", "delete", "pull"',
    );
    await expectRefusal(
      auditLogPurge("purge", { includeOperations: ["pull", "pull"] }),
      'spec.includeOperations[1]: Duplicate value: "pull"',
    );
  });
});

describe("HarborJobService", () => {
  test("queues: not ALL, Harbor's upper-case job types, each once, at least one", async () => {
    const queues = (q: unknown) => jobService("jobs", { queues: q as [] });
    await expectRefused(
      queues([{ jobType: "ALL", paused: true }]),
      "spec.queues[0].jobType",
      "ALL is Harbor's word for every queue at once: list the queues to pause or keep running one by one",
    );
    await expectRefused(
      queues([{ jobType: "replication", paused: true }]),
      "spec.queues[0].jobType",
      "should match '^[A-Z][A-Z0-9_]*$'",
    );
    await expectRefusal(
      queues([
        { jobType: "RETENTION", paused: true },
        { jobType: "RETENTION", paused: false },
      ]),
      'spec.queues[1]: Duplicate value: {"jobType":"RETENTION"}',
    );
    await expectRefused(queues([]), "spec.queues", "should have at least 1 items");
  });
});
