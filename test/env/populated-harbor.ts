// A Harbor configured by hand, as one found in the wild before it is brought under GitOps: every
// kind the operator manages, several projects, and names Kubernetes does not allow (underscores,
// capitals, spaces), created through Harbor's API the way its UI would. The export tests and the
// round trip with the operator start from it. What the API cannot make — a local user, a scanner
// adapter to register — the emulator's control API puts there.
import type { HarborClient } from "../../src/harbor/client.ts";
import { ProjectRole } from "../../src/harbor/members.ts";
import type { Control } from "./emulator/index.ts";

/** Values the tests look for (and must never find in a file or an output). */
export const POPULATED = {
  projects: ["team_a", "team-b", "web.shop", "hub-cache"],
  /** The registry a proxy-cache project and a replication policy use. */
  registry: "Docker Hub",
  webhook: { project: "team_a", name: "Notify CI", authHeader: "Bearer Wh00k-T0ken-8812" },
  /** Every exported kind besides: scanners (one a project's own), labels, groups, members, settings, retention, immutable rules. */
  scanners: { default: "Trivy Adapter", other: "Clair (legacy)", project: "web.shop" },
  labels: { global: "Release: Approved", project: { project: "team_a", name: "needs review" } },
  groups: { http: "Ops Team", oidc: "/platform/admins" },
  user: "alice",
  /** A user made through the API with a profile and the admin flag (a HarborUser, as alice is). */
  apiUser: { name: "bob_builder", email: "bob@example.com", realname: "Bob B.", comment: "release manager" },
  /** System settings set by hand (a HarborConfiguration), and the system CVE allowlist. */
  configuration: { tokenExpiration: 45, robotDays: 60, banner: "Registry maintenance on Saturday" },
  systemCve: "CVE-2021-44228",
  pausedQueue: "RETENTION",
  retention: { project: "team_a", tags: "release-*" },
  immutable: { project: "team_a", tags: "v*" },
  /** A P2P provider instance (the Harbor default) and a policy of team_a preheating through it. */
  preheat: {
    instance: "Dragonfly_EU",
    endpoint: "http://127.0.0.1:7301",
    policy: { project: "team_a", name: "Releases" },
  },
  registryWithCredentials: {
    name: "Private Mirror",
    accessKey: "mirror-bot",
    accessSecret: "M1rror-S3cret-77",
  },
} as const;

/**
 * Creates the objects. With `credentials`, also a registry that holds credentials (adopting it
 * pushes them once: the round trip leaves it out).
 */
export async function populateHarbor(
  h: HarborClient,
  control: Control,
  o: { credentials?: boolean } = {},
): Promise<void> {
  const hub = await h.registries.create({
    name: POPULATED.registry,
    type: "docker-hub",
    url: "https://hub.docker.com",
    insecure: false,
    description: "Docker's public registry",
  });
  const teamA = await h.projects.create({
    project_name: "team_a",
    metadata: { public: "false", auto_scan: "true", prevent_vul: "true", severity: "high" },
    storage_limit: 10 * 2 ** 30,
  });
  await h.projects.update(teamA, {
    cve_allowlist: {
      items: [{ cve_id: "CVE-2024-3094" }, { cve_id: "CVE-2023-44487" }],
      expires_at: 1_900_000_000,
    },
  });
  await h.projects.create({
    project_name: "team-b",
    metadata: { public: "true", enable_content_trust_cosign: "true" },
  });
  await h.projects.create({
    project_name: "web.shop",
    metadata: { public: "false", auto_sbom_generation: "true" },
  });
  await h.projects.create({
    project_name: "hub-cache",
    registry_id: hub,
    metadata: { public: "true", proxy_speed_kb: "4096" },
  });
  await h.robots.create({
    name: "ci",
    level: "project",
    duration: 90,
    description: "CI pushes",
    permissions: [
      {
        kind: "project",
        namespace: "team_a",
        access: [
          { resource: "repository", action: "pull" },
          { resource: "repository", action: "push" },
          { resource: "artifact", action: "delete", effect: "deny" },
        ],
      },
    ],
  });
  await h.robots.create({
    name: "deploy_bot",
    level: "project",
    duration: -1,
    permissions: [
      { kind: "project", namespace: "web.shop", access: [{ resource: "repository", action: "pull" }] },
    ],
  });
  await h.robots.create({
    name: "scanner.sys",
    level: "system",
    duration: 30,
    description: "Reads every project",
    permissions: [
      { kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] },
      { kind: "project", namespace: "*", access: [{ resource: "repository", action: "pull" }] },
    ],
  });
  await h.replication.createPolicy({
    name: "Push to Hub",
    description: "team_a's releases",
    src_registry: { id: 0 },
    dest_registry: { id: hub },
    dest_namespace: "mirror",
    dest_namespace_replace_count: 1,
    trigger: { type: "scheduled", trigger_settings: { cron: "0 0 3 * * *" } },
    filters: [
      { type: "name", value: "team_a/**" },
      { type: "tag", value: "v*", decoration: "matches" },
    ],
    replicate_deletion: false,
    override: true,
    enabled: true,
    speed: 2048,
    copy_by_chunk: false,
  });
  await h.webhooks.createPolicy(POPULATED.webhook.project, {
    name: POPULATED.webhook.name,
    description: "Tells CI about pushes",
    enabled: true,
    event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
    targets: [
      {
        type: "http",
        address: "https://ci.example.com/harbor-hook",
        auth_header: POPULATED.webhook.authHeader,
        skip_cert_verify: false,
        payload_format: "CloudEvents",
      },
    ],
  });
  await h.webhooks.createPolicy("web.shop", {
    name: "chat",
    enabled: false,
    event_types: ["SCANNING_FAILED"],
    targets: [{ type: "slack", address: "https://hooks.slack.example.com/services/T0/B0/x" }],
  });
  // Two scanner registrations (the first becomes Harbor's default), a project scanning with the other.
  control.scanners.addAdapter("http://trivy.example.com:8080");
  control.scanners.addAdapter("http://clair.example.com:6060");
  await h.scanners.create({
    name: POPULATED.scanners.default,
    url: "http://trivy.example.com:8080",
    description: "Scans everything",
    auth: "",
  });
  const clair = await h.scanners.create({
    name: POPULATED.scanners.other,
    url: "http://clair.example.com:6060",
    auth: "",
    skip_certVerify: true,
  });
  await h.scanners.setOfProject(POPULATED.scanners.project, clair);
  // Labels: a global one with a colour, a project one with neither colour nor description.
  await h.labels.create({
    name: POPULATED.labels.global,
    scope: "g",
    color: "#0065AB",
    description: "Released to production",
  });
  await h.labels.create({ name: POPULATED.labels.project.name, scope: "p", project_id: teamA });
  // Tag retention (team_a's own; hub-cache has the one Harbor gives a proxy cache) and immutable
  // tag rules (one of them disabled), written as Harbor's UI writes them.
  const selector = (decoration: string, pattern: string, extras?: string) => [
    { kind: "doublestar", decoration, pattern, ...(extras === undefined ? {} : { extras }) },
  ];
  await h.retention.create({
    algorithm: "or",
    rules: [
      {
        disabled: false,
        action: "retain",
        template: "latestPushedK",
        params: { latestPushedK: 10 },
        tag_selectors: selector("matches", "**", '{"untagged":true}'),
        scope_selectors: { repository: selector("repoMatches", "**") },
      },
      {
        disabled: false,
        action: "retain",
        template: "nDaysSinceLastPull",
        params: { nDaysSinceLastPull: 90 },
        tag_selectors: selector("matches", POPULATED.retention.tags, '{"untagged":false}'),
        scope_selectors: { repository: selector("repoExcludes", "tmp/**") },
      },
    ],
    trigger: { kind: "Schedule", settings: { cron: "0 0 4 * * *" }, references: {} },
    scope: { level: "project", ref: teamA },
  });
  const immutable = (repos: string, tags: string) => ({
    action: "immutable",
    template: "immutable_template",
    tag_selectors: selector("matches", tags),
    scope_selectors: { repository: selector("repoMatches", repos) },
  });
  await h.immutable.create(teamA, immutable("**", POPULATED.immutable.tags));
  const frozen = await h.immutable.create("web.shop", immutable("shop/**", "frozen-*"));
  await h.immutable.update("web.shop", frozen, { ...immutable("shop/**", "frozen-*"), disabled: true });
  // User groups (Harbor in database mode lists every type) and members: a user, two groups.
  const ops = await h.userGroups.create({ group_name: POPULATED.groups.http, group_type: 2 });
  const admins = await h.userGroups.create({ group_name: POPULATED.groups.oidc, group_type: 3 });
  control.users.add({ username: POPULATED.user, password: "Alice-Passw0rd" });
  const [alice] = await h.users.search(POPULATED.user);
  await h.members.create(teamA, {
    role_id: ProjectRole.developer,
    member_user: { user_id: alice?.user_id as number },
  });
  await h.members.create(teamA, { role_id: ProjectRole.maintainer, member_group: { id: ops } });
  await h.members.create("web.shop", { role_id: ProjectRole.guest, member_group: { id: admins } });
  // Housekeeping: a GC schedule with parameters, a weekly audit-log purge, a paused queue.
  await h.gc.updateSchedule({
    schedule: { type: "Custom", cron: "0 30 2 * * 6" },
    parameters: { delete_untagged: true, workers: 2 },
  });
  // The UI's purge of every create, delete and pull: from 2.13 named by event type.
  const eventTypes = await eventTypesRelease(h);
  await h.purge.updateSchedule({
    schedule: { type: "Weekly", cron: "0 0 0 * * 0" },
    parameters: {
      audit_retention_hour: 720,
      ...(eventTypes
        ? { include_event_types: "create_artifact,delete_artifact,pull_artifact" }
        : { include_operations: "create,delete,pull" }),
      dry_run: false,
    },
  });
  await h.jobService.actOnQueue(POPULATED.pausedQueue, "pause");
  // Users and the system configuration.
  const b = POPULATED.apiUser;
  const bob = await h.users.create({
    username: b.name,
    email: b.email,
    realname: b.realname,
    comment: b.comment,
    password: "Bob-Passw0rd",
  });
  await h.users.setSysAdmin(bob, true);
  const c = POPULATED.configuration;
  await h.system.updateConfigurations({
    token_expiration: c.tokenExpiration,
    robot_token_duration: c.robotDays,
    banner_message: JSON.stringify({ closable: true, message: c.banner, type: "warning" }),
  });
  await h.system.putCveAllowlist({ items: [POPULATED.systemCve] });
  // Scans: every artifact on a daily schedule (Harbor has a default scanner by now).
  await h.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 1 * * *" } });
  // P2P preheat: a Dragonfly instance the world answers for, made the default as Harbor's UI does
  // (an update), and a policy of team_a preheating its release tags on push.
  const p = POPULATED.preheat;
  control.preheat.addProvider(p.endpoint);
  const dragonfly = {
    name: p.instance,
    description: "EU seed peers",
    vendor: "dragonfly",
    endpoint: p.endpoint,
    auth_mode: "NONE",
    enabled: true,
    default: false,
    insecure: false,
  };
  await h.preheat.createInstance(dragonfly);
  const instance = await h.preheat.getInstance(p.instance);
  await h.preheat.updateInstance(p.instance, { ...dragonfly, id: instance.id, default: true });
  await h.preheat.createPolicy(p.policy.project, {
    name: p.policy.name,
    provider_id: instance.id as number,
    filters: JSON.stringify([
      { type: "repository", value: "**" },
      { type: "tag", value: "v*" },
    ]),
    trigger: JSON.stringify({ type: "event_based", trigger_setting: {} }),
    enabled: true,
  });
  if (o.credentials) {
    const c = POPULATED.registryWithCredentials;
    await h.registries.create({
      name: c.name,
      type: "docker-registry",
      url: "https://mirror.example.com",
      insecure: true,
      credential: { type: "basic", access_key: c.accessKey, access_secret: c.accessSecret },
    });
  }
}

/** Whether the Harbor is 2.13 or newer, where the audit-log purge takes event types. */
async function eventTypesRelease(h: HarborClient): Promise<boolean> {
  const m = /^v?(\d+)\.(\d+)/.exec((await h.system.getSystemInfo()).harbor_version ?? "");
  return m !== null && (Number(m[1]) > 2 || Number(m[2]) >= 13);
}
