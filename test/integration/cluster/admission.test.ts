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
  configuration,
  connection as connectionOf,
  garbageCollection,
  gcRun,
  immutableTagRule,
  invalid,
  jobService,
  label,
  preheatInstance,
  preheatPolicy,
  project,
  projectMember,
  registry as registryOf,
  replicationPolicy,
  replicationRun,
  retentionPolicy,
  robot as robotOf,
  scanAll,
  scannerRegistration,
  user,
  userGroup,
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

  test("plain http:// only to loopback, or with allowInsecureHTTP: the credentials would go unencrypted", async () => {
    const INSECURE = "an http:// URL would send the credentials unencrypted";
    for (const url of [
      "http://harbor-core.harbor.svc",
      "http://10.0.0.7:8080",
      "http://127.evil.example.com",
    ]) {
      await expectRefused(connection(url), "spec.url", INSECURE);
      await expectRefused(clusterConnection(url), "spec.url", INSECURE);
    }
    await expectAdmitted(
      connectionOf("harbor", "http://harbor-core.harbor.svc", "creds", { allowInsecureHTTP: true }),
      connection("http://127.0.0.1:8080"),
      connection("http://localhost:8080"),
      connection("http://[::1]:8080"),
      connection("https://harbor.example.com"),
    );
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

  test("a registry's CA must be PEM certificates, or empty", async () => {
    await expectRefused(
      registry("r", { caCertificate: "not a certificate" }),
      "spec.caCertificate",
      'must be "" (none) or hold PEM certificates',
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

// Each kind's own refusals (moved here from its end-to-end file). Rules that compare with the
// stored object are checked against objects created for real first.

describe("HarborLabel", () => {
  test("names Harbor refuses and colours that are not #RRGGBB; a name no Kubernetes object could have passes", async () => {
    await expectRefusal(
      label("too-long", { name: "x".repeat(129) }),
      "spec.name: Too long: may not be more than 128 bytes",
    );
    await expectRefused(label("padded", { name: " padded" }), "spec.name", "should match '^\\S(.*\\S)?$'");
    await expectRefused(label("zero-width", { name: "a\u200bb" }), "spec.name", `${HIDDEN} or invisible`);
    await expectRefused(label("blue", { color: "blue" }), "spec.color", "should match '^#[0-9A-Fa-f]{6}$'");
    await expectAdmitted(label("approved", { name: "Release: Approved ✓", color: "#0065ab" }));
  });

  test("the name and the scope stay as created", async () => {
    await ns.kubectl.apply([
      label("approved", { name: "Release: Approved ✓" }),
      label("team-approved", { name: "Release: Approved ✓", projectRef: { name: "team" } }),
    ]);
    await expectRefused(
      label("approved", { name: "renamed" }),
      "spec.name",
      'the label name is immutable (Harbor keeps objects by name): it stays "Release: Approved ✓"',
    );
    await expectRefused(
      label("approved", { name: "Release: Approved ✓", projectRef: { name: "team" } }),
      "spec.projectRef",
      "projectRef is immutable: it was unset when the object was created, so it stays unset",
    );
    await expectRefused(
      label("team-approved", { name: "Release: Approved ✓", projectRef: { name: "other" } }),
      "spec.projectRef",
      'projectRef is immutable: it stays "team"',
    );
    await expectAdmitted(label("approved", { name: "Release: Approved ✓", description: "ok for prod" }));
  });
});

describe("HarborProjectMember", () => {
  const team = { projectRef: { name: "team" } };

  test("exactly one of user and group, a group named as its type names it, Harbor's roles and user names", async () => {
    const one = "spec.user: Invalid value: set exactly one of user and group";
    await expectRefusal(
      projectMember("both", { ...team, user: { name: "a" }, group: { groupRef: { name: "devs" } } }),
      one,
    );
    await expectRefusal(projectMember("neither", team), one);
    await expectRefusal(
      projectMember("ref-and-name", { ...team, group: { groupRef: { name: "devs" }, name: "x" } }),
      "spec.group.groupRef: Forbidden: name and ldapGroupDn go with type, not with groupRef",
    );
    await expectRefused(
      projectMember("ldap-by-name", { ...team, group: { type: "ldap", name: "x" } }),
      "spec.group.ldapGroupDn",
      "an ldap group is named by ldapGroupDn (and no name)",
    );
    await expectRefused(
      projectMember("oidc-by-dn", { ...team, group: { type: "oidc", ldapGroupDn: "cn=x,dc=y" } }),
      "spec.group.name",
      "an http or oidc group is named by name (and no ldapGroupDn)",
    );
    await expectRefusal(
      projectMember("role", { ...team, user: { name: "a" }, role: invalid("owner") }),
      'spec.role: Unsupported value: "owner"',
    );
    await expectRefused(
      projectMember("comma", { ...team, user: { name: "a,b" } }),
      "spec.user.name",
      "should match",
    );
    await expectAdmitted(
      projectMember("ldap", {
        ...team,
        group: { type: "ldap", ldapGroupDn: "cn=qa,ou=groups,dc=example,dc=com" },
      }),
    );
  });

  test("the project and who the member is stay as created; the role may change", async () => {
    await ns.kubectl.apply(projectMember("team-carol", { ...team, user: { name: "carol" } }));
    await expectRefused(
      projectMember("team-carol", { projectRef: { name: "other" }, user: { name: "carol" } }),
      "spec.projectRef",
      "projectRef is immutable: a member belongs to one project",
    );
    await expectRefused(
      projectMember("team-carol", { ...team, user: { name: "dave" } }),
      "spec.user",
      'user is immutable: it stays "carol"',
    );
    await expectAdmitted(
      projectMember("team-carol", { ...team, user: { name: "carol" }, role: "maintainer" }),
    );
  });
});

describe("HarborUserGroup", () => {
  const DN = "cn=Platform Team,ou=groups,dc=example,dc=com";

  test("an LDAP group is named by its DN, and only an LDAP group has one", async () => {
    await expectRefused(
      userGroup("no-dn", { type: "ldap" }),
      "spec.ldapGroupDn",
      "an ldap group needs ldapGroupDn: Harbor knows LDAP groups by their DN",
    );
    await expectRefused(
      userGroup("dn-on-oidc", { ldapGroupDn: DN }),
      "spec.ldapGroupDn",
      "ldapGroupDn is only for type ldap, and this group has type oidc",
    );
    await expectRefused(
      userGroup("bad-dn", { type: "ldap", ldapGroupDn: "not a dn" }),
      "spec.ldapGroupDn",
      'must be an LDAP DN, e.g. "cn=developers,ou=groups,dc=example,dc=com"',
    );
    await expectRefusal(userGroup("kind", { type: invalid("ad") }), 'spec.type: Unsupported value: "ad"');
  });

  test("the type, an HTTP or OIDC group's name and an LDAP group's DN stay as created; an LDAP group's name may change", async () => {
    await ns.kubectl.apply([
      userGroup("devs", { name: "Developers (EU)" }),
      userGroup("platform", { type: "ldap", name: "Platform Team", ldapGroupDn: DN }),
    ]);
    await expectRefused(
      userGroup("devs", { type: "http", name: "Developers (EU)" }),
      "spec.type",
      'type is immutable: a user group keeps its kind; it stays "oidc"',
    );
    await expectRefused(
      userGroup("devs", { name: "Developers" }),
      "spec.name",
      "name is immutable for http and oidc groups: the proxy or the OIDC provider reports a group by its name",
    );
    await expectRefused(
      userGroup("platform", { type: "ldap", name: "Platform Team", ldapGroupDn: "cn=other,dc=x" }),
      "spec.ldapGroupDn",
      `ldapGroupDn is immutable: it stays "${DN}"`,
    );
    await expectAdmitted(userGroup("platform", { type: "ldap", name: "Platform", ldapGroupDn: DN }));
  });
});

describe("HarborImmutableTagRule", () => {
  test("selectors Harbor refuses; the project stays as created", async () => {
    await expectRefused(
      immutableTagRule("bad", "team", { tags: { pattern: "" } }),
      "spec.tags.pattern",
      "should be at least 1 chars long",
    );
    await expectRefusal(
      immutableTagRule("bad", "team", {
        repositories: { decoration: invalid("repoMatches"), pattern: "**" },
      }),
      'spec.repositories.decoration: Unsupported value: "repoMatches": supported values: "matches", "excludes"',
    );
    await ns.kubectl.apply(immutableTagRule("releases", "team"));
    await expectRefused(
      immutableTagRule("releases", "other"),
      "spec.projectRef",
      'projectRef is immutable: it stays "team"',
    );
    await expectAdmitted(immutableTagRule("releases", "team", { tags: { pattern: "v*" }, disabled: true }));
  });
});

describe("HarborRetentionPolicy", () => {
  const keepTen = { template: "latestPushedK" as const, count: 10 };
  const releases = { template: "nDaysSinceLastPush" as const, days: 365 };
  const policy = (rules: unknown[], extra: object = {}) =>
    retentionPolicy("bad", "team", { rules: invalid(rules), ...extra });

  test("rules Harbor refuses: too many, alike, parameters missing, out of place or out of range", async () => {
    await expectRefusal(
      policy(Array.from({ length: 16 }, (_, i) => ({ ...keepTen, count: i }))),
      "spec.rules: Too many: 16: must have at most 15 items",
    );
    await expectRefused(
      policy([keepTen, releases, keepTen]),
      "spec.rules",
      "two rules are alike: Harbor refuses a policy with duplicate rules",
    );
    await expectRefusal(
      policy([{ template: "latestPushedK" }]),
      "spec.rules[0].count: Required value: latestPushedK and latestPulledN need a count",
    );
    await expectRefusal(
      policy([{ template: "always", days: 3 }]),
      "spec.rules[0].days: Forbidden: days is only for nDaysSinceLastPush and nDaysSinceLastPull",
    );
    await expectRefused(
      policy([{ template: "latestPushedK", count: 40000 }]),
      "spec.rules[0].count",
      "should be less than or equal to 32766",
    );
    await expectRefusal(
      policy([{ template: "keepAll" }]),
      'spec.rules[0].template: Unsupported value: "keepAll"',
    );
    await expectAdmitted(policy([keepTen, releases, { ...keepTen, disabled: true }]));
  });

  test("Manual is no schedule; the project stays as created", async () => {
    await expectRefused(
      policy([], { schedule: { type: "Manual" } }),
      "spec.schedule.type",
      "type Manual is not a schedule: Harbor would start a run at every apply",
    );
    await ns.kubectl.apply(retentionPolicy("team-retention", "team"));
    await expectRefused(
      retentionPolicy("team-retention", "other"),
      "spec.projectRef",
      'projectRef is immutable: it stays "team"',
    );
    await expectAdmitted(retentionPolicy("team-retention", "team", { schedule: { type: "Daily" } }));
  });
});

describe("HarborScannerRegistration", () => {
  const scanner = scannerRegistration;

  test("auth: a secretRef for every type but None, and only the types Harbor knows", async () => {
    await expectRefused(
      scanner("no-secret", { auth: { type: "Bearer" } }),
      "spec.auth.secretRef",
      "auth type Bearer needs secretRef: the Secret holding its credential",
    );
    await expectRefused(
      scanner("none-secret", { auth: { type: "None", secretRef: { name: "x" } } }),
      "spec.auth.secretRef",
      "auth type None takes no secretRef",
    );
    await expectRefusal(
      scanner("typo", { auth: { type: invalid("Token") } }),
      'spec.auth.type: Unsupported value: "Token": supported values: "None", "Basic", "Bearer", "APIKey"',
    );
    await expectAdmitted(scanner("bearer", { auth: { type: "Bearer", secretRef: { name: "x" } } }));
  });

  test("the URL: required unless adopted, http(s), without user info", async () => {
    await expectRefusal(
      scanner("no-url", { url: undefined }),
      "spec.url: Required value: url is required unless creationPolicy is Adopt: Harbor registers a scanner at the adapter's URL",
    );
    await expectRefused(scanner("ftp", { url: "ftp://adapter" }), "spec.url", "should match '^https?:");
    await expectRefused(scanner("userinfo", { url: "http://u:p@adapter" }), "spec.url", USER_INFO);
    await expectAdmitted(scanner("adopted", { url: undefined, creationPolicy: "Adopt" }));
  });

  test("a default scanner cannot be disabled; Harbor's built-in Trivy can only be adopted", async () => {
    await expectRefusal(
      scanner("both", { default: true, disabled: true }),
      "spec.disabled: Forbidden: a default scanner cannot be disabled: Harbor keeps its default scanner enabled",
    );
    await expectRefused(
      scanner("trivy-create", { name: "Trivy", creationPolicy: "CreateOrAdopt" }),
      "spec.creationPolicy",
      "Harbor reserves the name Trivy for its built-in scanner, which can only be adopted, read-only: set creationPolicy: Adopt (it is CreateOrAdopt)",
    );
    await expectAdmitted(scanner("trivy", { name: "Trivy", creationPolicy: "Adopt", url: undefined }));
  });

  test("the name, unset when created, stays unset", async () => {
    await ns.kubectl.apply(scanner("plain"));
    await expectRefused(
      scanner("plain", { name: "renamed" }),
      "spec.name",
      "name is immutable: it was unset when the object was created, so it stays unset",
    );
    await ns.kubectl.delete("harborscannerregistration", "plain");
  });

  test("a project's scanner is a registration or Harbor's default, exactly one", async () => {
    const one = "scanner takes exactly one of registrationRef or systemDefault: true";
    await expectRefused(project("bad-scan", { scanner: {} }), "spec.scanner", one);
    await expectRefused(
      project("bad-scan", { scanner: { registrationRef: { name: "x" }, systemDefault: true } }),
      "spec.scanner",
      one,
    );
    await expectAdmitted(
      project("scanned", { scanner: { registrationRef: { name: "x" } } }),
      project("follows", { scanner: { systemDefault: true } }),
    );
  });
});

describe("HarborPreheatInstance", () => {
  const instance = (name: string, spec: Parameters<typeof preheatInstance>[1] = {}) =>
    preheatInstance(name, { endpoint: "http://127.0.0.1:7199", ...spec });

  test("the vendor, the name, the endpoint and the credential Harbor needs", async () => {
    await expectRefusal(
      instance("vendor", { vendor: invalid("p2p") }),
      'spec.vendor: Unsupported value: "p2p": supported values: "dragonfly", "kraken"',
    );
    await expectRefused(
      instance("auth", { auth: { mode: "BASIC" } }),
      "spec.auth.secretRef",
      "auth mode BASIC needs secretRef: the Secret holding its credential",
    );
    await expectRefused(
      instance("none", { auth: { mode: "NONE", secretRef: { name: "x" } } }),
      "spec.auth.secretRef",
      "auth mode NONE takes no secretRef",
    );
    await expectRefused(
      instance("name", { name: "-df" }),
      "spec.name",
      '"-df": spec.name in body should match',
    );
    await expectRefused(
      instance("userinfo", { endpoint: "http://u:p@127.0.0.1:7199" }),
      "spec.endpoint",
      USER_INFO,
    );
    await expectAdmitted(instance("df", { auth: { mode: "BASIC", secretRef: { name: "x" } } }));
  });

  test("the vendor of an existing instance stays", async () => {
    await ns.kubectl.apply(instance("df"));
    await expectRefused(
      instance("df", { vendor: "kraken" }),
      "spec.vendor",
      "vendor is immutable: Harbor never changes an instance's provider (it stays dragonfly)",
    );
    await expectAdmitted(instance("df", { insecure: true }));
    await ns.kubectl.delete("harborpreheatinstance", "df");
  });
});

describe("HarborPreheatPolicy", () => {
  const policy = (name: string, spec: Parameters<typeof preheatPolicy>[1] = {}) =>
    preheatPolicy(name, { projectRef: { name: "team" }, instanceRef: { name: "df" }, ...spec });

  test("a cron exactly when the trigger is scheduled, and one Harbor runs", async () => {
    await expectRefused(
      policy("nocron", { trigger: { type: "scheduled" } }),
      "spec.trigger.cron",
      "a scheduled trigger needs a cron",
    );
    await expectRefused(
      policy("cron", { trigger: { type: "manual", cron: "0 0 2 * * *" } }),
      "spec.trigger.cron",
      "cron is only used with trigger type scheduled",
    );
    await expectRefused(
      policy("badcron", { trigger: { type: "scheduled", cron: "0 0 2 * *" } }),
      "spec.trigger.cron",
      "must be a cron schedule Harbor runs",
    );
    await expectAdmitted(policy("nightly", { trigger: { type: "scheduled", cron: "0 0 2 * * *" } }));
  });

  test("a policy stays in its project", async () => {
    await ns.kubectl.apply(policy("releases"));
    await expectRefused(
      policy("releases", { projectRef: { name: "other" } }),
      "spec.projectRef",
      "projectRef is immutable: Harbor keeps a policy in its project",
    );
    await ns.kubectl.delete("harborpreheatpolicy", "releases");
  });
});

describe("HarborConfiguration", () => {
  test("the URLs Harbor sends secrets to: ldap(s):// for LDAP, https:// (http:// to loopback) for OIDC, UAA and the auth proxy, no user info", async () => {
    const SECURE = "must be an https:// URL (http:// only to localhost or 127.x.x.x)";
    const LDAP = "must be ldaps://host[:port] or ldap://host[:port]";
    for (const [auth, field, says] of [
      [{ ldap: { url: "http://ldap.example.com" } }, "spec.auth.ldap.url", LDAP],
      [{ ldap: { url: "ldaps://admin:pw@ldap.example.com" } }, "spec.auth.ldap.url", USER_INFO],
      [{ oidc: { endpoint: "http://idp.example.com" } }, "spec.auth.oidc.endpoint", SECURE],
      [{ uaa: { endpoint: "file:///etc/passwd" } }, "spec.auth.uaa.endpoint", SECURE],
      [{ http: { endpoint: "http://authproxy.auth.svc" } }, "spec.auth.http.endpoint", SECURE],
      [
        { http: { tokenReviewEndpoint: "https://u:p@review.example.com" } },
        "spec.auth.http.tokenReviewEndpoint",
        USER_INFO,
      ],
    ] as const)
      await expectRefused(configuration("bad", { auth }), field, says);
    await expectAdmitted(
      configuration("good", {
        auth: {
          ldap: { url: "ldaps://ldap.example.com:636" },
          oidc: { endpoint: "https://idp.example.com/realms/harbor" },
          uaa: { endpoint: "http://127.0.0.1:8080/uaa" },
          http: {
            endpoint: "https://authproxy.example.com",
            tokenReviewEndpoint: "http://localhost:8443/review",
          },
        },
      }),
      configuration("bare", { auth: { ldap: { url: "ldap.example.com:389" } } }),
    );
  });

  test("values Harbor cannot take, naming the field", async () => {
    await expectRefusal(
      configuration("bad", { projectCreationRestriction: invalid("nobody") }),
      'spec.projectCreationRestriction: Unsupported value: "nobody": supported values: "everyone", "adminonly"',
    );
    await expectRefused(
      configuration("bad", { auditLog: { skipDatabase: true } }),
      "spec.auditLog.skipDatabase",
      "auditLog.skipDatabase needs auditLog.forwardEndpoint: Harbor keeps audit logs somewhere",
    );
    await expectRefused(
      configuration("bad", { storagePerProject: "0" }),
      "spec.storagePerProject",
      'must be "unlimited", "-1", or a whole number of bytes',
    );
    await expectRefused(
      configuration("bad", { robotTokenDurationDays: 0 }),
      "spec.robotTokenDurationDays",
      "should be greater than or equal to 1",
    );
    await expectRefusal(
      configuration("bad", { auth: { mode: invalid("kerberos") } }),
      'spec.auth.mode: Unsupported value: "kerberos"',
    );
    await expectRefusal(
      configuration("bad", { auth: { ldap: { scope: invalid("Everything") } } }),
      'spec.auth.ldap.scope: Unsupported value: "Everything": supported values: "Base", "OneLevel", "Subtree"',
    );
    await expectRefused(configuration("bad", { robotNamePrefix: "bot@" }), "spec.robotNamePrefix", '"bot@"');
    await expectAdmitted(
      configuration("good", {
        projectCreationRestriction: "adminonly",
        storagePerProject: "50Gi",
        robotTokenDurationDays: 90,
        auth: { mode: "ldap_auth", ldap: { scope: "Subtree" } },
        robotNamePrefix: "svc$",
      }),
    );
  });
});

describe("HarborUser", () => {
  test("Harbor's administrator, and profile fields Harbor refuses, naming the field", async () => {
    await expectRefused(
      user("x", { name: "admin", email: "a@example.com" }),
      "spec.name",
      "admin is Harbor's built-in administrator: it is not managed as a HarborUser",
    );
    await expectRefused(user("x", { email: "not-an-email" }), "spec.email", '"not-an-email"');
    await expectRefusal(
      user("x", { email: "x@example.com", comment: "c".repeat(31) }),
      "spec.comment: Too long: may not be more than 30 bytes",
    );
    await expectRefused(user("x", { email: "x@example.com", realname: "a,b" }), "spec.realname", '"a,b"');
    await expectRefused(user("x", { name: "has space", email: "x@example.com" }), "spec.name", '"has space"');
    await expectAdmitted(
      user("x", { name: "alice", email: "alice@example.com", realname: "Alice A.", comment: "c".repeat(30) }),
    );
  });
});

describe("HarborProject", () => {
  test("a spec.name Harbor would refuse is refused, naming the field; once set it cannot change", async () => {
    await expectRefusal(
      project("bad-name", { name: "Not_Valid" }),
      'spec.name: Invalid value: "Not_Valid"',
      "should match",
    );
    await ns.kubectl.apply(project("named", { name: "alpha" }));
    await expectRefusal(
      project("named", { name: "renamed" }),
      'spec.name: Invalid value: "renamed": the project name is immutable (Harbor keeps objects by name): it stays "alpha"',
    );
    await expectAdmitted(project("named", { name: "alpha", public: true }));
  });
});

describe("HarborRobot", () => {
  test("a spec.name Harbor would refuse is refused, naming the field; once set it cannot change", async () => {
    await expectRefusal(
      robot("bad-name", { name: "Not_Valid" }),
      'spec.name: Invalid value: "Not_Valid"',
      "should match",
    );
    await ns.kubectl.apply(robot("named", { name: "ci" }));
    await expectRefusal(
      robot("named", { name: "renamed" }),
      'spec.name: Invalid value: "renamed": the robot name is immutable (Harbor keeps objects by name): it stays "ci"',
    );
  });

  test("a system robot's project permission needs a namespace", async () => {
    await expectRefusal(
      robot("sys", {
        level: "system",
        projectRef: undefined,
        permissions: [{ kind: "project", access: [{ resource: "repository", action: "pull" }] }],
      }),
      'spec.permissions: Required value: a project permission of a system-level robot needs a namespace: a project name or "*"',
    );
  });

  test("durationDays is -1 or at least 1, and the rotation window is shorter than it", async () => {
    await expectRefused(
      robot("ci", { durationDays: 0 }),
      "spec.durationDays",
      "durationDays is -1 (never expires) or at least 1",
    );
    await expectRefusal(
      robot("ci", { durationDays: 5, rotation: { beforeExpiryDays: 5 } }),
      "spec.rotation.beforeExpiryDays: Invalid value: rotation.beforeExpiryDays (5) must be smaller than durationDays (5)",
    );
    await expectAdmitted(
      robot("ci", { durationDays: -1 }),
      robot("ci", { durationDays: 1 }),
      robot("ci", { durationDays: 5, rotation: { beforeExpiryDays: 4 } }),
    );
  });
});

describe("HarborWebhookPolicy", () => {
  test("event types are Harbor's, each once; there is at least one target", async () => {
    await expectRefusal(
      webhook("w", { eventTypes: [invalid("PUSH_IMAGE")] }),
      'spec.eventTypes[0]: Unsupported value: "PUSH_IMAGE"',
    );
    await expectRefusal(
      webhook("w", { eventTypes: ["PUSH_ARTIFACT", "PUSH_ARTIFACT"] }),
      'spec.eventTypes[1]: Duplicate value: "PUSH_ARTIFACT"',
    );
    await expectRefusal(
      webhook("w", { targets: [] }),
      "spec.targets: Invalid value",
      "should have at least 1 items",
    );
    await expectAdmitted(webhook("w", { eventTypes: ["PUSH_ARTIFACT", "SCANNING_FAILED"] }));
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
    await expectRefused(gcRun("r", { workers: 11 }), "spec.workers", "should be less than or equal to 10");
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
    await expectRefused(garbageCollection("gc", { workers: 11 }), "spec.workers", "less than or equal to 10");
  });

  test("audit-log purge: a type of no schedule, retention out of range, operations Harbor does not purge, event types not in Harbor's form, both lists at once", async () => {
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
    await expectRefused(
      auditLogPurge("purge", { includeEventTypes: ["Create_Artifact"] }),
      "spec.includeEventTypes[0]",
      "an event type is lower-case words joined by _, as Harbor lists them (e.g. create_artifact)",
    );
    await expectRefused(
      auditLogPurge("purge", { includeOperations: ["pull"], includeEventTypes: ["pull_artifact"] }),
      "spec.includeEventTypes",
      "includeOperations (Harbor 2.12) and includeEventTypes (Harbor 2.13 and later) exclude each other",
    );
    await expectAdmitted(
      auditLogPurge("purge", { includeEventTypes: ["pull_artifact", "update_configuration"] }),
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
