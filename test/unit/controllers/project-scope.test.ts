// Where a project-scoped kind's object lives (labels, members, immutable rules, retention policies,
// webhook policies): its HarborProject's Harbor id, allowed by the connection's tenancy, and while
// the resource is being deleted after its project went, the project id its status recorded.
import { describe, expect, test } from "vitest";
import { FINALIZER } from "../../../src/api/common.ts";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import { tenancyFor } from "../../../src/controllers/connection/tenancy.ts";
import { projectScope } from "../../../src/controllers/shared/project-scope.ts";
import { type ManagedObject, NotReady, Stalled } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const HARBOR = "https://harbor.example.com";
const direct = { kind: "HarborConnection", name: "harbor" };
const shared = { kind: "ClusterHarborConnection", name: "shared" };

const projectObject = (
  name: string,
  o: { ready?: boolean; deleting?: boolean; connectionRef?: object; spec?: object } = {},
): ManagedObject => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: "HarborProject",
  metadata: {
    name,
    namespace: "team-a",
    finalizers: [FINALIZER],
    ...(o.deleting ? { deletionTimestamp: "2025-06-01T12:00:00Z" } : {}),
  },
  spec: { connectionRef: o.connectionRef ?? direct, ...o.spec },
  status: {
    harborId: 7,
    harborUrl: HARBOR,
    conditions: [
      {
        type: "Ready",
        status: o.ready === false ? ("False" as const) : ("True" as const),
        reason: "Synced",
        message: "",
        lastTransitionTime: "2025-06-01T12:00:00Z",
      },
    ],
  },
});

/** The HarborProject informer holding these projects of namespace team-a. */
const projects = (...objects: ManagedObject[]) =>
  ({
    type: { kind: "HarborProject" },
    get: (key: string) => objects.find((o) => `${o.metadata.namespace}/${o.metadata.name}` === key),
  }) as unknown as Informer<ManagedObject>;

const resource = (o: { deleting?: boolean; projectId?: number } = {}): ManagedObject => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: "HarborLabel",
  metadata: {
    name: "approved",
    namespace: "team-a",
    ...(o.deleting ? { deletionTimestamp: "2025-06-01T12:00:00Z" } : {}),
  },
  ...(o.projectId === undefined ? {} : { status: { projectId: o.projectId } as never }),
});

const conn = (tenancy?: HarborConnectionHandle["tenancy"]) =>
  ({ harbor: HARBOR, ...(tenancy ? { tenancy } : {}) }) as HarborConnectionHandle;

const failure = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected it to throw");
};

describe("projectScope", () => {
  test("the Ready HarborProject's Harbor id; a project not Ready or missing is waited for", () => {
    const spec = { projectRef: { name: "team" }, connectionRef: direct };
    expect(projectScope(projects(projectObject("team")), resource(), spec, conn())).toEqual({ projectId: 7 });
    for (const informer of [projects(projectObject("team", { ready: false })), projects()]) {
      const e = failure(() => projectScope(informer, resource(), spec, conn()));
      expect(e).toBeInstanceOf(NotReady);
      expect(e).toMatchObject({ reason: "DependencyNotReady" });
    }
  });

  test("through a ClusterHarborConnection, the project must match the tenant's tenancy.projects", () => {
    const tenancy = tenancyFor(
      {
        projects: ["{namespace}"],
        allowAdoption: false,
        allowSystemRobots: false,
        allowSystemSettings: false,
      },
      "shared",
      "team-a",
    );
    const ours = projectObject("team-a", { connectionRef: shared });
    const spec = { projectRef: { name: "team-a" }, connectionRef: shared };
    expect(projectScope(projects(ours), resource(), spec, conn(tenancy))).toEqual({ projectId: 7 });
    // The project resource's Harbor name is what the tenancy judges.
    const renamed = projectObject("team-a", { connectionRef: shared, spec: { name: "platform" } });
    const e = failure(() => projectScope(projects(renamed), resource(), spec, conn(tenancy)));
    expect(e).toBeInstanceOf(Stalled);
    expect(e).toMatchObject({ reason: "NotAllowed" });
    expect((e as Error).message).toContain('project "platform"');
    expect((e as Error).message).toContain("spec.tenancy.projects");
  });

  test("being deleted with or after its project: the project id status recorded serves; otherwise it waits", () => {
    const spec = { projectRef: { name: "team" }, connectionRef: direct };
    const deleting = resource({ deleting: true, projectId: 4 });
    expect(projectScope(projects(), deleting, spec, conn())).toEqual({ projectId: 4 });
    expect(projectScope(projects(projectObject("team", { deleting: true })), deleting, spec, conn())).toEqual(
      {
        projectId: 4,
      },
    );
    // Not being deleted, or nothing recorded: the missing project is waited for.
    expect(failure(() => projectScope(projects(), resource({ projectId: 4 }), spec, conn()))).toBeInstanceOf(
      NotReady,
    );
    expect(
      failure(() => projectScope(projects(), resource({ deleting: true }), spec, conn())),
    ).toBeInstanceOf(NotReady);
  });
});
