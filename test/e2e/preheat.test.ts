// HarborPreheatInstance and HarborPreheatPolicy end to end: kubectl → apiserver → the operator
// process → Harbor (the emulator). An instance is created only once Harbor reaches its provider
// (ProviderUnreachable before), with its credential from an opted-in Secret, a changed Secret pushed;
// Harbor's default instance moved to it; updated; drift made in Harbor reverted and named; an
// endpoint another instance has waited on (EndpointInUse); a deletion that waits for the policies
// using the instance. A policy waits for its project and instance, is created with its filters and
// trigger as Harbor takes them, updated, put back when changed in Harbor (compared by meaning), and
// deleted. On the newest Harbor, which no longer shows an instance's credential: a drift check
// neither compares nor pushes it (no perpetual drift), a changed Secret still is pushed, and a
// policy's scope reaches Harbor in extra_attrs. What every kind does alike (adoption, Orphan, conflicts, tenancy) is proven in
// test/unit/runtime/managed-lifecycle.test.ts and the kinds' own claims, identities and tenancy in
// test/unit/controllers/scan-all-preheat-mapping.test.ts; admission refusals in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { clusterApi } from "../env/kube-api.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  type PreheatInstanceCR,
  type PreheatPolicyCR,
  preheatInstance,
  preheatPolicy,
  project,
  readyForSpec,
  secret,
} from "../env/resources.ts";
import { until, untilTrue } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "preheat" });
const INSTANCE = "harborpreheatinstance";
const POLICY = "harborpreheatpolicy";
const DF = "http://127.0.0.1:7101";
const LOGIN = { username: "harbor", password: "df-password-1" };

const count = (o: string) => op.emulator.counters.total({ op: o });
const harborInstance = (name: string) => op.harbor.preheat.getInstance(name);
/** The credential Harbor stores (its world holds it; the API shows it only up to 2.14.3). */
const storedCredential = (name: string) => op.emulator.world.preheat.instanceByName(name)?.auth_info;

const basic = { mode: "BASIC" as const, secretRef: { name: "df-login" } };

describe("HarborPreheatInstance", () => {
  test("created only once Harbor reaches the provider, with the opted-in credential; Harbor's default; kubectl get shows it", async () => {
    await op.kubectl.apply(secret("df-login", LOGIN, { usableAs: "preheat-credential", watched: true }));
    await op.kubectl.apply(preheatInstance("df", { endpoint: DF, auth: basic, default: true }));
    const waiting = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => condition(o, "Ready")?.reason === "ProviderUnreachable",
    );
    expect(condition(waiting, "Ready")?.message).toContain(
      `Harbor cannot reach the dragonfly provider at ${DF}`,
    );
    expect(count("CreateInstance")).toBe(0);

    op.emulator.control.preheat.addProvider(DF, { mode: "BASIC", info: LOGIN });
    const cr = await op.waitReady<PreheatInstanceCR>(INSTANCE, "df");
    const h = await harborInstance("df");
    expect(h).toMatchObject({
      vendor: "dragonfly",
      endpoint: DF,
      auth_mode: "BASIC",
      enabled: true,
      default: true,
      insecure: false,
    });
    expect(h).not.toHaveProperty("auth_info");
    expect(storedCredential("df")).toEqual(LOGIN);
    expect(cr.status).toMatchObject({ harborId: h.id, isDefault: true, health: "healthy" });
    expect(JSON.stringify(cr.status)).not.toContain(LOGIN.password);
    const table = await op.kubectl.run(["get", "harborpreheatinstances"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+VENDOR\s+DEFAULT\s+HEALTH\s+AGE/);
    expect(table).toMatch(/df\s+True\s+Synced\s+\d+\s+dragonfly\s+true\s+healthy/);
  });

  test("a changed credential Secret is pushed to Harbor", async () => {
    const rotated = { username: "harbor", password: "df-password-2" };
    op.emulator.control.preheat.addProvider(DF, { mode: "BASIC", info: rotated });
    await op.kubectl.apply(secret("df-login", rotated, { usableAs: "preheat-credential", watched: true }));
    await untilTrue(
      "the new password in Harbor",
      async () => storedCredential("df")?.password === rotated.password,
    );
    await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => o.status?.health === "healthy" && readyForSpec(o),
    );
  });

  test("a credential Harbor does not show is not drift: drift checks write nothing and record no correction", async () => {
    await op.waitFor<PreheatInstanceCR>(INSTANCE, "df", readyForSpec);
    // One sweep first, so that no reconcile of the rotation is still writing.
    await op.sweeps("HarborPreheatInstance", 1);
    const updates = count("UpdateInstance");
    const corrected = (await op.kubectl.get<PreheatInstanceCR>(INSTANCE, "df")).status?.lastDriftCorrection;
    await op.sweeps("HarborPreheatInstance", 2);
    expect(count("UpdateInstance")).toBe(updates);
    expect((await op.kubectl.get<PreheatInstanceCR>(INSTANCE, "df")).status?.lastDriftCorrection).toEqual(
      corrected,
    );
  });

  test("a spec change is applied; a change made in Harbor is reverted and named", async () => {
    await op.kubectl.apply(
      preheatInstance("df", {
        endpoint: DF,
        auth: basic,
        default: true,
        insecure: true,
        description: "team",
      }),
    );
    await op.waitFor<PreheatInstanceCR>(INSTANCE, "df", readyForSpec);
    expect(await harborInstance("df")).toMatchObject({ insecure: true, description: "team" });

    const h = await harborInstance("df");
    await op.harbor.preheat.updateInstance("df", {
      id: h.id,
      name: "df",
      vendor: "dragonfly",
      endpoint: DF,
      auth_mode: "BASIC",
      auth_info: { username: "harbor", password: "wrong" },
      description: "changed",
      enabled: false,
      default: true,
      insecure: false,
    });
    await untilTrue("the instance to be reverted", async () => {
      const now = await harborInstance("df");
      return now.enabled === true && now.insecure === true && now.description === "team";
    });
    // The credential pushed before was recorded as a correction too: wait for this one. The password
    // typed in Harbor is not seen (Harbor does not show it), but the update that reverts the rest
    // carries the Secret's.
    const cr = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => o.status?.lastDriftCorrection?.fields.includes("description") === true,
    );
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["description", "enabled", "insecure"]);
    expect(storedCredential("df")?.password).toBe("df-password-2");
  });

  test("an endpoint another instance in Harbor has: the new one waits with EndpointInUse naming it, and nothing is created", async () => {
    // Harbor keeps one instance per endpoint but says so with a masked 500: the operator looks first.
    const endpoint = "http://127.0.0.1:7104";
    op.emulator.control.preheat.addProvider(endpoint);
    await op.harbor.preheat.createInstance({
      name: "theirs",
      vendor: "kraken",
      endpoint,
      auth_mode: "NONE",
      enabled: true,
      default: false,
      insecure: false,
    });
    const creates = count("CreateInstance");
    await op.kubectl.apply(preheatInstance("copy", { vendor: "kraken", endpoint: `${endpoint}/` }));
    const inUse = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "copy",
      (o) => condition(o, "Ready")?.reason === "EndpointInUse",
    );
    expect(condition(inUse, "Ready")?.message).toContain(
      `Harbor's preheat instance "theirs" already uses the endpoint`,
    );
    expect(condition(inUse, "Stalled")).toBeUndefined();
    expect(count("CreateInstance")).toBe(creates);
    await op.kubectl.delete(INSTANCE, "copy", { wait: true });
    expect((await harborInstance("theirs")).name).toBe("theirs");
    await op.harbor.preheat.deleteInstance("theirs");
  });
});

describe("HarborPreheatPolicy", () => {
  test("waits for its project and instance, then Harbor holds filters and trigger as written", async () => {
    await op.kubectl.apply(
      preheatPolicy("releases", {
        projectRef: { name: "team" },
        instanceRef: { name: "df" },
        filters: { repository: "app/**", tag: "v*", labels: ["approved"] },
        trigger: { type: "event_based" },
      }),
    );
    await op.kubectl.apply(project("team"));
    const cr = await op.waitReady<PreheatPolicyCR>(POLICY, "releases");
    const h = await op.harbor.preheat.getPolicy("team", "releases");
    expect(JSON.parse(h.filters ?? "")).toEqual([
      { type: "repository", value: "app/**" },
      { type: "tag", value: "v*" },
      { type: "label", value: ["approved"] },
    ]);
    expect(JSON.parse(h.trigger ?? "")).toEqual({ type: "event_based", trigger_setting: { cron: "" } });
    // The default scope, one seed peer, in extra_attrs (2.13 on; `scope` is no field there).
    expect(h).toMatchObject({
      enabled: true,
      provider_name: "df",
      extra_attrs: '{"scope":"single_seed_peer"}',
    });
    expect(h).not.toHaveProperty("scope");
    expect(cr.status).toMatchObject({ harborId: h.id, projectName: "team", instanceId: h.provider_id });
    const table = await op.kubectl.run(["get", "harborpreheatpolicies"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+INSTANCE\s+TRIGGER\s+AGE/);
    expect(table).toMatch(/releases\s+True\s+Synced\s+\d+\s+team\s+df\s+event_based/);
  });

  test("a spec change is applied; a change made in Harbor is reverted and named", async () => {
    await op.kubectl.apply(
      preheatPolicy("releases", {
        projectRef: { name: "team" },
        instanceRef: { name: "df" },
        filters: { repository: "app/**", tag: "v*" },
        trigger: { type: "scheduled", cron: "0 0 2 * * *" },
        scope: "all_seed_peers",
      }),
    );
    await op.waitFor<PreheatPolicyCR>(POLICY, "releases", readyForSpec);
    const h = await op.harbor.preheat.getPolicy("team", "releases");
    expect(JSON.parse(h.trigger ?? "")).toEqual({
      type: "scheduled",
      trigger_setting: { cron: "0 0 2 * * *" },
    });
    expect(JSON.parse(h.filters ?? "")).toHaveLength(2);
    expect(h.extra_attrs).toBe('{"scope":"all_seed_peers"}');

    // An update in Harbor that says no extra_attrs removes them: the scope is drift too.
    await op.harbor.preheat.updatePolicy("team", "releases", {
      id: h.id,
      name: "releases",
      provider_id: h.provider_id ?? 0,
      filters: JSON.stringify([
        { type: "tag", value: "**" },
        { type: "repository", value: "app/**" },
      ]),
      trigger: h.trigger ?? "",
      enabled: false,
    });
    await until("the policy to be reverted", async () => {
      const now = await op.harbor.preheat.getPolicy("team", "releases");
      return now.enabled ? now : undefined;
    });
    const cr = await op.waitFor<PreheatPolicyCR>(
      POLICY,
      "releases",
      (o) => o.status?.lastDriftCorrection?.fields.includes("enabled") === true,
    );
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["filters.tag", "scope", "enabled"]);
    expect((await op.harbor.preheat.getPolicy("team", "releases")).extra_attrs).toBe(
      '{"scope":"all_seed_peers"}',
    );
  });

  test("the instance is not deleted while the policy uses it; both go, in Harbor too", async () => {
    await op.kubectl.run(["delete", INSTANCE, "df", "--wait=false"]);
    const blocked = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => condition(o, "Ready")?.reason === "DeletionBlocked",
    );
    expect(condition(blocked, "Ready")?.message).toContain(
      "cannot be deleted as some preheat policies are using it",
    );
    expect((await harborInstance("df")).name).toBe("df");

    await op.kubectl.delete(POLICY, "releases", { wait: true });
    expect(await op.harbor.preheat.listPolicies("team")).toEqual([]);
    await clusterApi(op.kubectl.kubeconfigPath).waitGone(INSTANCE, op.namespace, "df");
    expect((await op.harbor.preheat.listInstances()).map((i) => i.name)).not.toContain("df");
  });
});
