// Secrets by opt-in, end to end: a Secret whose value the operator would send where the resource
// says (a webhook's auth header, a remote registry's credential) is used only when its annotation
// harborconfig.io/usable-as names that use, and the Secret of a connection never is. Until then the
// resource is Ready=False with reason SecretNotAllowed, and Harbor (the emulator) never receives the
// value; the message's own kubectl command is what makes the resource Ready.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { adminKubectl } from "../env/cluster.ts";
import { clusterApi } from "../env/kube-api.ts";
import { useOperator } from "../env/operator.ts";
import {
  clusterConnection,
  condition,
  eventsOf,
  harborIdOf,
  project,
  type Resource,
  registry as registryOf,
  secret,
  webhookPolicy,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "optin" });
const admin = adminKubectl();

const USABLE_AS = "harborconfig.io/usable-as";
const HOOK_TOKEN = "Bearer opt-in-hook-token-1";
const MIRROR_SECRET = "opt-in-mirror-Secret1";
const SHARED_PASSWORD = "shared-connection-Passw0rd";

type CR = Resource;

const refused = (o: CR) =>
  condition(o, "Ready")?.reason === "SecretNotAllowed" &&
  o.status?.observedGeneration === o.metadata.generation;

const webhook = (name: string, secretRef: { name: string; key?: string }) =>
  webhookPolicy(name, {
    projectRef: { name: "team" },
    targets: [{ address: "http://127.0.0.1:9/hooks", authHeaderSecretRef: secretRef }],
  });

const registry = (
  name: string,
  secretRef: { name: string; accessKeyKey?: string; accessSecretKey?: string },
) => registryOf(name, { credential: { secretRef } });

/** Everything Harbor stores that a Secret's value could have reached: registries and webhooks. */
async function harborHolds(value: string): Promise<boolean> {
  const policies = await op.harbor.webhooks.listPolicies("team");
  return JSON.stringify([op.emulator.world.registries.all(), policies]).includes(value);
}

/** Harbor requests that could carry a value to Harbor: every write. */
const writes = () => op.emulator.counters.writes();

/** Runs the `kubectl annotate …` command a SecretNotAllowed message ends with. */
async function runHint(message: string): Promise<void> {
  const command = /kubectl (annotate .+)$/.exec(message)?.[1];
  expect(command, message).toBeDefined();
  await op.kubectl.run((command as string).split(" "));
}

/** Neither the resource, its Events nor the operator's output shows the value. */
async function nowhereShown(resource: string, name: string, value: string): Promise<void> {
  expect(JSON.stringify(await op.kubectl.get(resource, name))).not.toContain(value);
  expect(JSON.stringify(await eventsOf(op.kubectl, name))).not.toContain(value);
  expect(op.output()).not.toContain(value);
}

let shared = "";

beforeAll(async () => {
  // A ClusterHarborConnection whose credentials Secret lives in this namespace.
  shared = `${op.namespace}-shared`;
  await op.kubectl.apply([
    project("team"),
    secret(
      "shared-credentials",
      { username: "admin", password: SHARED_PASSWORD },
      { usableAs: "harbor-connection" },
    ),
  ]);
  await admin.apply(
    clusterConnection(shared, {
      url: op.emulator.url,
      credentialsSecretRef: { name: "shared-credentials", namespace: op.namespace },
      allowedNamespaces: [op.namespace],
    }),
  );
  await op.waitReady("harborproject", "team");
});

// While the operator still runs (hooks run in reverse order): the resources that use the shared
// connection, then the connection, so that its finalizer is released and nothing is left behind.
const waiting = [`--timeout=${Math.ceil(budget.operatorMs / 1000)}s`];
const waitingMs = budget.operatorMs + budget.requestMs;
afterAll(
  async () => {
    if (!shared) return;
    await op.kubectl.tryRun(["delete", "harbor", "--all", ...waiting], { timeoutMs: waitingMs });
    await admin.tryRun(["delete", "clusterharborconnection", shared, ...waiting], { timeoutMs: waitingMs });
  },
  2 * waitingMs, // two waiting deletions
);

describe("a webhook auth header Secret", () => {
  test("without the annotation: SecretNotAllowed saying how to opt in, and Harbor never sees the value", async () => {
    await op.kubectl.apply([
      secret("hook-token", { authHeader: HOOK_TOKEN }, { watched: true }),
      webhook("hook", { name: "hook-token" }),
    ]);
    const cr = await op.waitFor<CR>("harborwebhookpolicy", "hook", refused);
    const ready = condition(cr, "Ready");
    expect(ready?.status).toBe("False");
    expect(ready?.message).toContain("hook-token");
    expect(ready?.message).toMatch(
      /kubectl annotate secret hook-token harborconfig\.io\/usable-as=webhook-auth-header$/,
    );
    // The user can fix it: not Stalled.
    expect(condition(cr, "Stalled")).toBeUndefined();
    expect(cr.status?.harborId).toBeUndefined();
    expect((await op.harbor.webhooks.listPolicies("team")).map((p) => p.name)).not.toContain("hook");
    expect(await harborHolds(HOOK_TOKEN)).toBe(false);
    await nowhereShown("harborwebhookpolicy", "hook", HOOK_TOKEN);
  });

  test("opted in for another use only: still refused, and the hint keeps that use", async () => {
    await op.kubectl.run(["annotate", "secret", "hook-token", `${USABLE_AS}=registry-credential`]);
    const cr = await op.waitFor<CR>(
      "harborwebhookpolicy",
      "hook",
      (o) => refused(o) && (condition(o, "Ready")?.message.includes("registry-credential") ?? false),
    );
    expect(condition(cr, "Ready")?.message).toMatch(
      /kubectl annotate --overwrite secret hook-token harborconfig\.io\/usable-as=registry-credential,webhook-auth-header$/,
    );
    expect(await harborHolds(HOOK_TOKEN)).toBe(false);
  });

  test("running the message's command makes it Ready, and the value reaches Harbor", async () => {
    const cr = await op.kubectl.get<CR>("harborwebhookpolicy", "hook");
    await runHint(condition(cr, "Ready")?.message ?? "");
    // The Secret carries the watch label: the annotation queues the policy (that the watch alone
    // does is proven by scanner.test.ts, with drift sweeps out of the way).
    const ready = await op.waitReady<CR>("harborwebhookpolicy", "hook");
    const policy = (await op.harbor.webhooks.listPolicies("team")).find((p) => p.name === "hook");
    expect(policy?.id).toBe(ready.status?.harborId);
    expect(policy?.targets?.[0]?.auth_header).toBe(HOOK_TOKEN);
    await nowhereShown("harborwebhookpolicy", "hook", HOOK_TOKEN);
  });
});

describe("a registry credential Secret", () => {
  test("without the annotation: SecretNotAllowed, no registry in Harbor; annotated: Ready with the credential", async () => {
    // Watched, so that the annotation queues the registry at once (without the label the retry of a
    // waiting resource finds it, 15 s later: test/unit/runtime/managed-lifecycle.test.ts, "waits").
    await op.kubectl.apply([
      secret("mirror-creds", { accessKey: "mirror-bot", accessSecret: MIRROR_SECRET }, { watched: true }),
      registry("mirror", { name: "mirror-creds" }),
    ]);
    const cr = await op.waitFor<CR>("harborregistry", "mirror", refused);
    expect(condition(cr, "Ready")?.message).toMatch(
      /kubectl annotate secret mirror-creds harborconfig\.io\/usable-as=registry-credential$/,
    );
    expect(condition(cr, "Stalled")).toBeUndefined();
    expect(op.emulator.world.registries.all().map((r) => r.name)).not.toContain("mirror");
    expect(await harborHolds(MIRROR_SECRET)).toBe(false);
    expect(await harborHolds("mirror-bot")).toBe(false);
    await nowhereShown("harborregistry", "mirror", MIRROR_SECRET);

    await runHint(condition(cr, "Ready")?.message ?? "");
    const ready = await op.waitReady<CR>("harborregistry", "mirror");
    const stored = op.emulator.world.registries.get(harborIdOf(ready));
    expect(stored?.credential).toMatchObject({ access_key: "mirror-bot", access_secret: MIRROR_SECRET });
    await nowhereShown("harborregistry", "mirror", MIRROR_SECRET);
  });
});

describe("a connection's credentials Secret", () => {
  test("of a HarborConnection or a ClusterHarborConnection, is never used, even annotated: SecretNotAllowed, and Harbor never sees the password", async () => {
    const adminPassword = op.emulator.adminPassword;
    for (const name of ["harbor-credentials", "shared-credentials"]) {
      // Besides its own use (harbor-connection), the uses a tenant would want it for.
      await op.kubectl.run([
        "annotate",
        "--overwrite",
        "secret",
        name,
        `${USABLE_AS}=harbor-connection,webhook-auth-header,registry-credential`,
      ]);
    }
    const before = writes();
    // A webhook and a registry pointed at each connection's Secret, all at once.
    const cases = [
      {
        secretName: "harbor-credentials",
        password: adminPassword,
        hook: "leak-hook",
        registry: "leak-registry",
      },
      {
        secretName: "shared-credentials",
        password: SHARED_PASSWORD,
        hook: "shared-hook",
        registry: "shared-registry",
      },
    ];
    await op.kubectl.apply(
      cases.flatMap((c) => [
        webhook(c.hook, { name: c.secretName, key: "password" }),
        registry(c.registry, { name: c.secretName, accessKeyKey: "username", accessSecretKey: "password" }),
      ]),
    );
    await Promise.all(
      cases.flatMap((c) =>
        [
          ["harborwebhookpolicy", c.hook],
          ["harborregistry", c.registry],
        ].map(async ([resource, name]) => {
          const cr = await op.waitFor<CR>(resource as string, name as string, refused);
          expect(condition(cr, "Ready")?.message).toContain(c.secretName);
          expect(condition(cr, "Ready")?.message).toContain("a connection's credentials can never be");
          expect(condition(cr, "Stalled")).toBeUndefined();
        }),
      ),
    );
    expect(writes()).toBe(before);
    for (const c of cases) {
      expect(await harborHolds(c.password)).toBe(false);
      await nowhereShown("harborwebhookpolicy", c.hook, c.password);
      await nowhereShown("harborregistry", c.registry, c.password);
    }
    // Refused resources never reached Harbor, so they go at once.
    await op.kubectl.delete("harborwebhookpolicy", "leak-hook", { wait: true });
    await op.kubectl.delete("harborregistry", "leak-registry", { wait: true });
  });

  test("a Ready policy pointed at it stops syncing without sending it, and can still be deleted", async () => {
    const id = harborIdOf(await op.kubectl.get<CR>("harborwebhookpolicy", "hook"));
    await op.kubectl.apply(webhook("hook", { name: "harbor-credentials", key: "password" }));
    await op.waitFor<CR>("harborwebhookpolicy", "hook", refused);
    // Harbor keeps what it had; the admin password never reaches it.
    const policy = (await op.harbor.webhooks.listPolicies("team")).find((p) => p.id === id);
    expect(policy?.targets?.[0]?.auth_header).toBe(HOOK_TOKEN);
    expect(await harborHolds(op.emulator.adminPassword)).toBe(false);

    await op.kubectl.delete("harborwebhookpolicy", "hook");
    await clusterApi(op.kubectl.kubeconfigPath).waitGone("harborwebhookpolicy", op.namespace, "hook");
    expect((await op.harbor.webhooks.listPolicies("team")).map((p) => p.id)).not.toContain(id);
  });
});
