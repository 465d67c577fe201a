// A Harbor configured by hand, as one found in the wild before it is brought under GitOps: every
// kind the operator manages, several projects, and names Kubernetes does not allow (underscores,
// capitals, spaces), created through Harbor's API the way its UI would. The export tests and the
// round trip with the operator start from it.
import type { HarborClient } from "../../src/harbor/client.ts";

/** Values the tests look for (and must never find in a file or an output). */
export const POPULATED = {
  projects: ["team_a", "team-b", "web.shop", "hub-cache"],
  /** The registry a proxy-cache project and a replication policy use. */
  registry: "Docker Hub",
  webhook: { project: "team_a", name: "Notify CI", authHeader: "Bearer Wh00k-T0ken-8812" },
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
export async function populateHarbor(h: HarborClient, o: { credentials?: boolean } = {}): Promise<void> {
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
