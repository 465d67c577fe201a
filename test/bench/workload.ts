// The benchmark's workload: a platform team's Harbor configuration, sized by its number of
// projects. Per project one HarborProject, one project robot (whose Secret the operator writes), one
// project HarborLabel and one HarborProjectMember granting one of a few LDAP HarborUserGroups (one
// per twenty projects, at most five); two global labels; for every tenth project a HarborRegistry
// with a push HarborReplicationPolicy to it; for every fifth a HarborWebhookPolicy. 1,000 projects
// make the full mix of 4,407 objects.
import { harborLabel } from "../../src/api/label.ts";
import { harborProjectMember } from "../../src/api/member.ts";
import { harborProject } from "../../src/api/project.ts";
import { harborRegistry } from "../../src/api/registry.ts";
import { harborReplicationPolicy } from "../../src/api/replication.ts";
import { harborRobot } from "../../src/api/robot.ts";
import { harborUserGroup } from "../../src/api/usergroup.ts";
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
};

/** Global labels of the mix (besides one label per project). */
const GLOBAL_LABELS = 2;

/** The LDAP directory group each HarborUserGroup of the mix names. */
export const groupDn = (name: string) => `cn=${name},ou=groups,dc=example,dc=com`;

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
  };
  return { perKind, total: KIND_NAMES.reduce((n, k) => n + perKind[k], 0) };
}

/**
 * Every object of the mix, in the order a user's manifests would create them: the user groups and
 * global labels, the registries and their replication policies, then team by team its project,
 * robot, webhook, label and member.
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
  }
  return out;
}

/**
 * What the mix needs of Harbor before it is applied: its LDAP groups in the directory, and LDAP
 * auth mode, in which alone Harbor creates LDAP user groups.
 */
export async function prepareHarbor(
  control: {
    ldap: {
      setAuthMode(mode: "ldap"): Promise<void>;
      addGroup(g: { name: string; dn?: string }): Promise<unknown>;
    };
  },
  objects: readonly BenchObject[],
): Promise<void> {
  await control.ldap.setAuthMode("ldap");
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
    default:
      return { spec: { description: "edited by the benchmark's update wave" } };
  }
}

export function keyOf(kind: string, name: string): string {
  return `${kind}/${name}`;
}
