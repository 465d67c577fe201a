// Safety end to end: the right object, in the right Harbor, for the right tenant, and teardown that
// completes. A second emulator stands for a second Harbor; a second and third namespace stand for
// another team and for a bundle deleted as a whole.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { adminKubectl } from "../env/cluster.ts";
import { harborErrorOf, useEmulator } from "../env/harbor.ts";
import { clusterApi, readyAsKubectlWaits } from "../env/kube-api.ts";
import type { KubeObject } from "../env/kubectl.ts";
import { useOperator } from "../env/operator.ts";
import {
  type ConnectionCR,
  clusterConnection,
  condition,
  connection,
  credentials as credentialsOf,
  eventOf,
  harborIdOf,
  label,
  PULL,
  project,
  type Resource,
  ready,
  readyForSpec,
  robot,
  userGroup,
} from "../env/resources.ts";

const suffix = randomBytes(3).toString("hex");
/** A namespace deleted as a whole with a connection, its Secret and resources in it. */
const bundle = `bundle-${suffix}`;
/** Another team, using a shared ClusterHarborConnection. */
const tenant = `tenant-${suffix}`;
/** Receives a copy of a bundle robot's pull secret. */
const apps = `apps-${suffix}`;
const shared = `shared-${suffix}`;

const op = useOperator({
  namespacePrefix: "safety",
  extraArgs: [`--namespace=${bundle}`, `--namespace=${tenant}`],
});
const other = useEmulator();
const admin = adminKubectl();

/** Follows an object of any namespace (or a cluster-scoped one) until the predicate holds. */
const waitIn = <T extends Resource = Resource>(
  namespace: string | undefined,
  resource: string,
  name: string,
  predicate: (o: T) => boolean,
) => clusterApi(admin.kubeconfigPath).waitFor<T>(resource, namespace, name, predicate);
/** Resolves once the object is gone, its finalizers done. */
const gone = (namespace: string | undefined, resource: string, name: string) =>
  clusterApi(admin.kubeconfigPath).waitGone(resource, namespace, name);
/** Ready=False with this reason. */
const because = (reason: string) => (o: Resource) => ready(o)?.reason === reason;
/** `kubectl delete` that waits for the finalizers within the budget. */
const deleteWaiting = (args: string[]) =>
  admin.tryRun(["delete", ...args, `--timeout=${Math.ceil(budget.operatorMs / 1000)}s`], {
    timeoutMs: budget.operatorMs + budget.requestMs,
  });

/** A credentials Secret for the admin of the fixture's emulator. */
const credentials = (name: string) =>
  credentialsOf(name, { username: op.emulator.adminUsername, password: op.emulator.adminPassword });

beforeAll(async () => {
  for (const name of [bundle, tenant, apps]) {
    await admin.apply({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name,
        // The apps namespace takes the bundle's robot's pull secret.
        ...(name === apps
          ? {
              labels: { [`pull-${suffix}`]: "true" },
              annotations: { "harborconfig.io/accept-pull-secrets-from": bundle },
            }
          : {}),
      },
    });
  }
  // The second Harbor, and a connection to it in the fixture's namespace.
  await op.kubectl.apply([
    credentialsOf("other-credentials", {
      username: other.emulator.adminUsername,
      password: other.emulator.adminPassword,
    }),
    connection("other", other.emulator.url, "other-credentials"),
  ]);
  await op.waitReady("harborconnection", "other");
});

// While the operator still runs (hooks run in reverse order): the tenant's resources, then the
// cluster-scoped connection they used, so that no other test's operator finds it left behind.
afterAll(
  async () => {
    await deleteWaiting(["namespace", tenant]);
    await deleteWaiting(["clusterharborconnection", shared]);
    for (const name of [bundle, apps]) await admin.tryRun(["delete", "namespace", name, "--wait=false"]);
  },
  2 * (budget.operatorMs + budget.requestMs),
);

describe("Harbor ids are bound to their Harbor", () => {
  test("moving a resource to another connection never touches the object with its old id there", async () => {
    // The two Harbors number their projects alike: the id of our project in the first one is the
    // id of an unrelated project in the second.
    await op.kubectl.apply(project("moving", { connectionRef: { name: op.connection }, public: true }));
    const before = await op.waitReady<Resource>("harborproject", "moving");
    const oldId = harborIdOf(before);
    expect(before.status?.harborUrl).toBe(op.emulator.url);
    let unrelated = "";
    for (let id = 0; id < oldId; ) {
      unrelated = `unrelated-${id}`;
      id = await other.admin.projects.create({ project_name: unrelated, metadata: { public: "false" } });
    }
    expect((await other.admin.projects.get(oldId)).name).toBe(unrelated);

    await op.kubectl.run([
      "patch",
      "harborproject",
      "moving",
      "--type=merge",
      "-p",
      '{"spec":{"connectionRef":{"name":"other"}}}',
    ]);
    // Ready for the edited spec: the move is recorded (harborUrl) before the create in the other
    // Harbor, while Ready still describes the previous generation.
    const moved = await op.waitFor<Resource>(
      "harborproject",
      "moving",
      (o) => o.status?.harborUrl === other.emulator.url && readyForSpec(o),
    );
    const created = await other.admin.projects.get("moving");
    expect(moved.status?.harborId).toBe(created.project_id);
    expect(created.metadata?.public).toBe("true");
    // The unrelated project with the old id is as it was; the first Harbor keeps its project.
    expect((await other.admin.projects.get(unrelated)).metadata?.public).toBe("false");
    expect((await op.harbor.projects.get("moving")).project_id).toBe(oldId);
    await eventOf(op.kubectl, "moving", "HarborProject", "HarborChanged");

    // Deleting it deletes the object in the Harbor it is in now, and only that one.
    await op.kubectl.delete("harborproject", "moving", { wait: true });
    expect(await harborErrorOf(other.admin.projects.get("moving"))).toMatchObject({ status: 404 });
    expect((await other.admin.projects.get(unrelated)).project_id).toBe(oldId);
    expect((await op.harbor.projects.get("moving")).project_id).toBe(oldId);
  });

  test("a connection whose URL changes finds a same-named object there and leaves it (creationPolicy Create)", async () => {
    await op.kubectl.apply(connection("switching", op.emulator.url, "harbor-credentials"));
    await op.waitReady("harborconnection", "switching");
    await op.kubectl.apply(project("switched", { connectionRef: { name: "switching" }, public: true }));
    const first = await op.waitReady<Resource>("harborproject", "switched");
    await other.admin.projects.create({ project_name: "switched", metadata: { public: "false" } });

    await op.kubectl.run([
      "patch",
      "harborconnection",
      "switching",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { url: other.emulator.url } }),
    ]);
    // The credentials are those of the first emulator; the second shares them (both default admin).
    const stalled = await op.waitFor<Resource>(
      "harborproject",
      "switched",
      (o) => ready(o)?.reason === "AlreadyExists",
    );
    expect(ready(stalled)?.message).toContain(other.emulator.url);
    expect((await other.admin.projects.get("switched")).metadata?.public).toBe("false");

    // Deleting it leaves both Harbors' objects: the recorded one is in a Harbor it no longer reaches.
    await op.kubectl.delete("harborproject", "switched", { wait: true });
    expect((await other.admin.projects.get("switched")).metadata?.public).toBe("false");
    expect((await op.harbor.projects.get("switched")).project_id).toBe(first.status?.harborId);
  });

  test("an id that now names another object is never updated or deleted", async () => {
    await op.kubectl.apply(project("victim", { connectionRef: { name: op.connection }, public: false }));
    const victim = await op.waitReady<Resource>("harborproject", "victim");
    await op.kubectl.apply(project("owner", { connectionRef: { name: op.connection }, public: true }));
    await op.waitReady("harborproject", "owner");
    // As after a restore from a backup: the status of "owner" records the id of "victim".
    await op.kubectl.run([
      "patch",
      "harborproject",
      "owner",
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { harborId: victim.status?.harborId } }),
    ]);
    await op.kubectl.run(["annotate", "harborproject", "owner", "test/poke=1"]);
    await op.waitFor<Resource>("harborproject", "owner", (o) => ready(o)?.reason === "AlreadyExists");
    expect((await op.harbor.projects.get("victim")).metadata?.public).toBe("false");
    await op.kubectl.delete("harborproject", "owner", { wait: true });
    expect((await op.harbor.projects.get("victim")).project_id).toBe(victim.status?.harborId);
  });
});

describe("teardown completes", () => {
  test("a namespace deleted with its connection, Secret, project and robot is gone, and so is everything in Harbor", async () => {
    const ns = admin.inNamespace(bundle);
    await ns.apply([
      credentials("creds"),
      connection("harbor", op.emulator.url, "creds"),
      project(`bundle-${suffix}`, { connectionRef: { name: "harbor" } }),
      robot("pull", {
        projectRef: { name: `bundle-${suffix}` },
        permissions: [{ access: PULL }],
        secret: {
          type: "kubernetes.io/dockerconfigjson",
          copies: {
            namespaceSelector: { matchLabels: { [`pull-${suffix}`]: "true" } },
            serviceAccounts: ["default"],
          },
        },
      }),
    ]);
    const robotId = harborIdOf(await waitIn(bundle, "harborrobot", "pull", readyAsKubectlWaits));
    const copies = () => admin.inNamespace(apps).get<{ items: KubeObject[] }>("secrets");
    expect((await copies()).items.some((s) => s.metadata.name === "pull")).toBe(true);
    expect((await op.harbor.robots.get(robotId)).name).toMatch(/\+pull$/);

    const started = Date.now();
    await admin.run(["delete", "namespace", bundle, "--wait=false"]);
    await gone(undefined, "namespace", bundle);
    process.stderr.write(`[safety] namespace ${bundle} gone in ${Date.now() - started} ms\n`);

    expect(await harborErrorOf(op.harbor.projects.get(`bundle-${suffix}`))).toMatchObject({ status: 404 });
    expect(await harborErrorOf(op.harbor.robots.get(robotId))).toMatchObject({ status: 404 });
    expect((await copies()).items.some((s) => s.metadata.name === "pull")).toBe(false);
    const sa = await admin
      .inNamespace(apps)
      .get<{ imagePullSecrets?: Array<{ name: string }> }>("serviceaccount", "default");
    expect(sa.imagePullSecrets ?? []).not.toContainEqual({ name: "pull" });
  });

  test("a connection being deleted waits for its resources and says so; its Secret waits for it", async () => {
    await op.kubectl.apply([
      credentials("kept-credentials"),
      connection("kept", op.emulator.url, "kept-credentials"),
    ]);
    await op.waitReady("harborconnection", "kept");
    await op.kubectl.apply(project(`kept-${suffix}`, { connectionRef: { name: "kept" } }));
    await op.waitReady("harborproject", `kept-${suffix}`);

    // Secret first, then the connection, as a careless `kubectl delete` might do: both stay.
    await op.kubectl.delete("secret", "kept-credentials");
    await op.kubectl.delete("harborconnection", "kept");
    const pending = await op.waitFor<ConnectionCR>(
      "harborconnection",
      "kept",
      (o) => condition(o, "DeletionPending")?.status === "True",
    );
    expect(condition(pending, "DeletionPending")?.message).toContain(`kept-${suffix}`);
    expect((await op.kubectl.get("secret", "kept-credentials")).metadata.name).toBe("kept-credentials");

    // The project still works through it, and is deleted in Harbor; then both go.
    await op.kubectl.delete("harborproject", `kept-${suffix}`, { wait: true });
    expect(await harborErrorOf(op.harbor.projects.get(`kept-${suffix}`))).toMatchObject({ status: 404 });
    await gone(op.namespace, "harborconnection", "kept");
    await gone(op.namespace, "secret", "kept-credentials");
  });
});

describe("a deletion that waits says so", () => {
  test("on a connection that is not Ready: 'deletion pending', what it waits on, and deletionPolicy Orphan lets it go", async () => {
    await op.kubectl.apply([
      credentials("flaky-credentials"),
      connection("flaky", op.emulator.url, "flaky-credentials"),
    ]);
    await op.waitReady("harborconnection", "flaky");
    await op.kubectl.apply(project(`flaky-${suffix}`, { connectionRef: { name: "flaky" } }));
    await op.waitReady("harborproject", `flaky-${suffix}`);
    // The connection's login stops working, then the project is deleted.
    await op.kubectl.apply(credentialsOf("flaky-credentials", { username: "nobody", password: "wrong" }));
    await op.waitFor<ConnectionCR>("harborconnection", "flaky", (o) => ready(o)?.status === "False");
    await op.kubectl.delete("harborproject", `flaky-${suffix}`);
    const pending = await op.waitFor<Resource>("harborproject", `flaky-${suffix}`, (o) =>
      (ready(o)?.message ?? "").startsWith("deletion pending:"),
    );
    expect(ready(pending)?.reason).toBe("ConnectionNotReady");
    expect(ready(pending)?.message).toContain("deletionPolicy: Orphan");
    await op.kubectl.run([
      "patch",
      "harborproject",
      `flaky-${suffix}`,
      "--type=merge",
      "-p",
      '{"spec":{"deletionPolicy":"Orphan"}}',
    ]);
    await gone(op.namespace, "harborproject", `flaky-${suffix}`);
    expect((await op.harbor.projects.get(`flaky-${suffix}`)).name).toBe(`flaky-${suffix}`);
  });
});

describe("tenancy of a shared ClusterHarborConnection", () => {
  const tenantKubectl = () => admin.inNamespace(tenant);
  const sharedRef = { kind: "ClusterHarborConnection", name: shared } as const;

  beforeAll(async () => {
    await op.kubectl.apply(credentials("shared-credentials"));
    await admin.apply(
      clusterConnection(shared, {
        url: op.emulator.url,
        credentialsSecretRef: { name: "shared-credentials", namespace: op.namespace },
        allowedNamespaces: [tenant],
      }),
    );
    await waitIn(undefined, "clusterharborconnection", shared, readyAsKubectlWaits);
  });

  test("a tenant manages projects named after its namespace, and no others", async () => {
    const t = tenantKubectl();
    await t.apply([
      project(`${tenant}-app`, { connectionRef: sharedRef }),
      project("platform", { connectionRef: sharedRef }),
    ]);
    await waitIn(tenant, "harborproject", `${tenant}-app`, readyAsKubectlWaits);
    const platform = await waitIn(tenant, "harborproject", "platform", because("NotAllowed"));
    expect(ready(platform)?.message).toContain(`${tenant}-*`);
    expect(await harborErrorOf(op.harbor.projects.get("platform"))).toMatchObject({ status: 404 });
  });

  test("one owner per Harbor object across connections: a tenant cannot take a project another namespace manages", async () => {
    // The fixture's namespace manages the project through its own connection to the same Harbor.
    const name = `${tenant}-owned`;
    await op.kubectl.apply(project(name, { connectionRef: { name: op.connection }, public: false }));
    await op.waitReady("harborproject", name);
    await admin.run([
      "patch",
      "clusterharborconnection",
      shared,
      "--type=merge",
      "-p",
      '{"spec":{"tenancy":{"allowAdoption":true}}}',
    ]);
    const t = tenantKubectl();
    await t.apply(project(name, { connectionRef: sharedRef, creationPolicy: "Adopt", public: true }));
    await waitIn(tenant, "harborproject", name, because("Conflict"));
    expect((await op.harbor.projects.get(name)).metadata?.public).toBe("false");
    await t.delete("harborproject", name, { wait: true });
    expect((await op.harbor.projects.get(name)).metadata?.public).toBe("false");
    await admin.run([
      "patch",
      "clusterharborconnection",
      shared,
      "--type=merge",
      "-p",
      '{"spec":{"tenancy":{"allowAdoption":false}}}',
    ]);
  });

  test("adoption, system robots and robots on every project are refused by default", async () => {
    const existing = `${tenant}-existing`;
    await op.harbor.projects.create({ project_name: existing, metadata: { public: "false" } });
    const t = tenantKubectl();
    await t.apply([
      project(existing, { connectionRef: sharedRef, creationPolicy: "CreateOrAdopt", public: true }),
      robot("everywhere", {
        connectionRef: sharedRef,
        level: "system",
        permissions: [
          { kind: "project", namespace: "*", access: [{ resource: "repository", action: "push" }] },
        ],
      }),
    ]);
    const [adopting, everywhere] = await Promise.all([
      waitIn(tenant, "harborproject", existing, because("NotAllowed")),
      waitIn(tenant, "harborrobot", "everywhere", because("NotAllowed")),
    ]);
    expect(ready(adopting)?.message).toContain("allowAdoption");
    expect(ready(everywhere)?.message).toContain("allowSystemRobots");
    expect((await op.harbor.projects.get(existing)).metadata?.public).toBe("false");
    expect((await op.harbor.robots.list({})).some((r) => r.name?.endsWith("everywhere"))).toBe(false);
  });

  test("a global label and a user group reach every project: refused by default; a label of the tenant's project is not", async () => {
    const t = tenantKubectl();
    await t.apply([
      label("everywhere", { connectionRef: sharedRef, name: `Everywhere ${suffix}` }),
      userGroup("everyone", { connectionRef: sharedRef, name: `everyone-${suffix}` }),
      label("app-only", { connectionRef: sharedRef, projectRef: { name: `${tenant}-app` } }),
    ]);
    const refused = await Promise.all([
      waitIn(tenant, "harborlabel", "everywhere", because("NotAllowed")),
      waitIn(tenant, "harborusergroup", "everyone", because("NotAllowed")),
    ]);
    await waitIn(tenant, "harborlabel", "app-only", readyAsKubectlWaits);
    for (const cr of refused) expect(ready(cr)?.message).toContain("this reaches every project");
    expect((await op.harbor.labels.list({ scope: "g" })).some((l) => l.name === `Everywhere ${suffix}`)).toBe(
      false,
    );
    expect((await op.harbor.userGroups.search(`everyone-${suffix}`)).length).toBe(0);
  });
});
