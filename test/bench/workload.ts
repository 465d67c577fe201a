// The benchmark's workload: a platform team's Harbor configuration, sized by its number of
// projects. Per project one HarborProject, one project robot (whose Secret the operator writes), one
// project HarborLabel and one HarborProjectMember granting one of a few LDAP HarborUserGroups (one
// per twenty projects, at most five); two global labels; for every tenth project a HarborRegistry
// with a push HarborReplicationPolicy to it; for every fifth a HarborWebhookPolicy. Per project also
// a HarborRetentionPolicy (two rules, daily) and a HarborImmutableTagRule; for every tenth project a
// HarborPreheatPolicy to the one HarborPreheatInstance; once per Harbor a HarborConfiguration and a
// HarborScanAll (with Harbor's built-in Trivy as its default scanner). No HarborUsers: they exist
// only in db_auth mode, and the mix's LDAP groups need LDAP mode (see prepareHarbor). 1,000 projects
// make the full mix of 6,510 objects.
import { harborConfiguration } from "../../src/api/configuration.ts";
import { harborImmutableTagRule } from "../../src/api/immutable-tag-rule.ts";
import { harborLabel } from "../../src/api/label.ts";
import { harborProjectMember } from "../../src/api/member.ts";
import { harborPreheatInstance } from "../../src/api/preheat-instance.ts";
import { harborPreheatPolicy } from "../../src/api/preheat-policy.ts";
import { harborProject } from "../../src/api/project.ts";
import { harborRegistry } from "../../src/api/registry.ts";
import { harborReplicationPolicy } from "../../src/api/replication.ts";
import { harborRetentionPolicy } from "../../src/api/retention.ts";
import { harborRobot } from "../../src/api/robot.ts";
import { harborScanAll } from "../../src/api/scan-all.ts";
import { harborUserGroup } from "../../src/api/user-group.ts";
import { harborWebhookPolicy } from "../../src/api/webhook.ts";
import { resourceType } from "../../src/controllers/shared/kinds.ts";
import type { KubeObject, ResourceType } from "../../src/kube/types.ts";
import { KIND_NAMES, type KindName, type Workload } from "./types.ts";

export const SIZES = { small: 80, full: 1000 } as const;
export const SCALING_SIZES = [100, 1000, 5000] as const;

export const TYPES: Record<KindName, ResourceType> = {
  HarborProject: resourceType(harborProject),
  HarborRobot: resourceType(harborRobot),
  HarborRegistry: resourceType(harborRegistry),
  HarborReplicationPolicy: resourceType(harborReplicationPolicy),
  HarborWebhookPolicy: resourceType(harborWebhookPolicy),
  HarborLabel: resourceType(harborLabel),
  HarborUserGroup: resourceType(harborUserGroup),
  HarborProjectMember: resourceType(harborProjectMember),
  HarborRetentionPolicy: resourceType(harborRetentionPolicy),
  HarborImmutableTagRule: resourceType(harborImmutableTagRule),
  HarborPreheatInstance: resourceType(harborPreheatInstance),
  HarborPreheatPolicy: resourceType(harborPreheatPolicy),
  HarborConfiguration: resourceType(harborConfiguration),
  HarborScanAll: resourceType(harborScanAll),
};

/** Global labels of the mix (besides one label per project). */
const GLOBAL_LABELS = 2;

/** The LDAP directory group each HarborUserGroup of the mix names. */
export const groupDn = (name: string) => `cn=${name},ou=groups,dc=example,dc=com`;

/** The one P2P provider of the mix (the emulator answers its pings; nothing is dialed). */
export const PREHEAT_INSTANCE = "dragonfly";
export const PREHEAT_ENDPOINT = "http://dragonfly-manager.example.com:8080";

/** A platform team's retention: the 10 newest artifacts of each repository, release tags for a year. */
function retentionRules(keep: number) {
  return [
    {
      template: "latestPushedK",
      count: keep,
      repositories: { decoration: "matches", pattern: "**" },
      tags: { decoration: "matches", pattern: "**" },
    },
    {
      template: "nDaysSinceLastPush",
      days: 365,
      repositories: { decoration: "matches", pattern: "**" },
      tags: { decoration: "matches", pattern: "release-*" },
    },
  ];
}

export interface BenchObject {
  kind: KindName;
  name: string;
  /** The Harbor project it lives in (per-project kinds), for steady-state accounting. */
  project?: string;
  manifest: KubeObject & { spec: Record<string, unknown> };
}

export function mixFor(projects: number): Workload {
  const share = (every: number) => (projects === 0 ? 0 : Math.max(1, Math.round(projects / every)));
  const perKind: Record<KindName, number> = {
    HarborProject: projects,
    HarborRobot: projects,
    HarborRegistry: share(10),
    HarborReplicationPolicy: share(10),
    HarborWebhookPolicy: Math.min(projects, share(5)),
    HarborLabel: projects + Math.min(projects, GLOBAL_LABELS),
    HarborUserGroup: Math.min(5, share(20)),
    HarborProjectMember: projects,
    HarborRetentionPolicy: projects,
    HarborImmutableTagRule: projects,
    HarborPreheatInstance: Math.min(1, projects),
    HarborPreheatPolicy: share(10),
    HarborConfiguration: Math.min(1, projects),
    HarborScanAll: Math.min(1, projects),
  };
  return { perKind, total: KIND_NAMES.reduce((n, k) => n + perKind[k], 0) };
}

/**
 * Every object of the mix, in the order a user's manifests would create them: the per-Harbor
 * settings (configuration, scan all, the preheat instance), the user groups and global labels, the
 * registries and their replication policies, then team by team its project, robot, webhook, label,
 * member, retention policy, immutable tag rule and preheat policy.
 */
export function buildWorkload(projects: number, connection: string): BenchObject[] {
  const mix = mixFor(projects).perKind;
  const width = String(Math.max(projects, 1)).length;
  const pad = (i: number) => String(i).padStart(width, "0");
  const object = (kind: KindName, name: string, spec: Record<string, unknown>, project?: string) => ({
    kind,
    name,
    ...(project ? { project } : {}),
    manifest: {
      apiVersion: "harborconfig.io/v1alpha1",
      kind,
      metadata: { name },
      spec: { connectionRef: { name: connection }, ...spec },
    },
  });
  const out: BenchObject[] = [];
  if (mix.HarborConfiguration > 0) {
    out.push(
      object("HarborConfiguration", "harbor-config", {
        projectCreationRestriction: "adminonly",
        robotTokenDurationDays: 90,
        banner: { message: "Registry maintenance on Saturday 06:00-08:00 UTC", type: "warning" },
        cveAllowlist: { items: ["CVE-2024-0001"] },
      }),
    );
  }
  if (mix.HarborScanAll > 0) {
    out.push(object("HarborScanAll", "scan-all", { schedule: { type: "Daily", cron: "0 0 3 * * *" } }));
  }
  if (mix.HarborPreheatInstance > 0) {
    out.push(
      object("HarborPreheatInstance", PREHEAT_INSTANCE, {
        vendor: "dragonfly",
        endpoint: PREHEAT_ENDPOINT,
        description: "Dragonfly of the platform team",
        default: true,
      }),
    );
  }
  const groups = Array.from({ length: mix.HarborUserGroup }, (_, i) => `devs-${pad(i)}`);
  for (const group of groups) {
    out.push(object("HarborUserGroup", group, { type: "ldap", name: group, ldapGroupDn: groupDn(group) }));
  }
  for (let i = 0; i < mix.HarborLabel - projects; i++) {
    out.push(object("HarborLabel", `global-${i}`, { name: `Global ${i}`, color: "#0065AB" }));
  }
  for (let i = 0; i < mix.HarborRegistry; i++) {
    out.push(
      object("HarborRegistry", `reg-${pad(i)}`, {
        type: "docker-registry",
        url: `https://mirror-${pad(i)}.example.com`,
      }),
    );
  }
  for (let i = 0; i < mix.HarborReplicationPolicy; i++) {
    out.push(
      object("HarborReplicationPolicy", `repl-${pad(i)}`, {
        direction: "push",
        registryRef: { name: `reg-${pad(i % mix.HarborRegistry)}` },
        filters: { name: `team-${pad(i)}/**` },
      }),
    );
  }
  for (let i = 0; i < projects; i++) {
    const project = `team-${pad(i)}`;
    out.push(object("HarborProject", project, {}));
    out.push(
      object(
        "HarborRobot",
        `${project}-ci`,
        {
          projectRef: { name: project },
          permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
        },
        project,
      ),
    );
    if (i < mix.HarborWebhookPolicy) {
      out.push(
        object(
          "HarborWebhookPolicy",
          `${project}-hook`,
          {
            projectRef: { name: project },
            eventTypes: ["PUSH_ARTIFACT"],
            targets: [{ address: `http://hooks.example.com/${project}` }],
          },
          project,
        ),
      );
    }
    out.push(
      object(
        "HarborLabel",
        `${project}-label`,
        { projectRef: { name: project }, name: `${project} approved`, description: "approved" },
        project,
      ),
    );
    out.push(
      object(
        "HarborProjectMember",
        `${project}-devs`,
        {
          projectRef: { name: project },
          group: { groupRef: { name: groups[i % groups.length] } },
          role: "developer",
        },
        project,
      ),
    );
    out.push(
      object(
        "HarborRetentionPolicy",
        `${project}-retention`,
        {
          projectRef: { name: project },
          schedule: { type: "Daily", cron: "0 0 3 * * *" },
          rules: retentionRules(10),
        },
        project,
      ),
    );
    out.push(
      object(
        "HarborImmutableTagRule",
        `${project}-releases`,
        {
          projectRef: { name: project },
          repositories: { decoration: "matches", pattern: "**" },
          tags: { decoration: "matches", pattern: "v*" },
        },
        project,
      ),
    );
    if (i < mix.HarborPreheatPolicy) {
      out.push(
        object(
          "HarborPreheatPolicy",
          `${project}-preheat`,
          {
            projectRef: { name: project },
            instanceRef: { name: PREHEAT_INSTANCE },
            filters: { repository: "**", tag: "v*" },
            trigger: { type: "event_based" },
          },
          project,
        ),
      );
    }
  }
  return out;
}

/**
 * What the mix needs of Harbor before it is applied: its LDAP groups in the directory, and LDAP
 * auth mode, in which alone Harbor creates LDAP user groups (and no local users: hence none in the
 * mix); Harbor's built-in Trivy as the default scanner, as Harbor's installers set it up (scan all
 * needs one); the P2P provider the preheat instance names, answering Harbor's pings.
 */
export async function prepareHarbor(
  control: {
    ldap: {
      setAuthMode(mode: "ldap"): Promise<void>;
      addGroup(g: { name: string; dn?: string }): Promise<unknown>;
    };
    scanners: { installTrivy(): Promise<string> };
    preheat: { addProvider(endpoint: string): Promise<void> };
  },
  objects: readonly BenchObject[],
): Promise<void> {
  await control.ldap.setAuthMode("ldap");
  if (objects.some((o) => o.kind === "HarborScanAll")) await control.scanners.installTrivy();
  if (objects.some((o) => o.kind === "HarborPreheatInstance"))
    await control.preheat.addProvider(PREHEAT_ENDPOINT);
  for (const o of objects) {
    if (o.kind === "HarborUserGroup") await control.ldap.addGroup({ name: o.name, dn: groupDn(o.name) });
  }
}

/** Every n-th object of each kind (fraction 0.1: a tenth of each kind), at least one per kind. */
export function pickForUpdate(objects: readonly BenchObject[], fraction: number): BenchObject[] {
  const every = Math.max(1, Math.round(1 / fraction));
  const seen = new Map<KindName, number>();
  return objects.filter((o) => {
    const i = seen.get(o.kind) ?? 0;
    seen.set(o.kind, i + 1);
    return i % every === 0;
  });
}

/** A spec change Harbor must be told about (a merge patch). */
export function editOf(o: BenchObject): Record<string, unknown> {
  switch (o.kind) {
    case "HarborProject":
      return { spec: { public: true } };
    case "HarborUserGroup":
      return { spec: { name: `${o.name} (edited)` } }; // an LDAP group's name may change
    case "HarborProjectMember":
      return { spec: { role: "maintainer" } };
    case "HarborRetentionPolicy":
      return { spec: { rules: retentionRules(20) } }; // a merge patch replaces the list
    case "HarborImmutableTagRule":
      return { spec: { tags: { pattern: "v*.*" } } };
    case "HarborConfiguration":
      return { spec: { banner: { message: "edited by the benchmark's update wave" } } };
    case "HarborScanAll":
      return { spec: { schedule: { cron: "0 0 4 * * *" } } };
    default:
      return { spec: { description: "edited by the benchmark's update wave" } };
  }
}

export function keyOf(kind: string, name: string): string {
  return `${kind}/${name}`;
}
