// HarborPreheatInstance and HarborPreheatPolicy end to end: kubectl → apiserver → the operator
// process → Harbor (the emulator). An instance is created only once Harbor reaches its provider
// (ProviderUnreachable before), with its credential from an opted-in Secret; Harbor's default
// instance moved to it; updated; drift made in Harbor reverted and named; one owner per instance and
// one holder of the default (Conflict); bad input refused by kubectl; adoption; a deletion that waits
// for the policies using the instance. A policy waits for its project and instance, is created with
// its filters and trigger as Harbor takes them, updated, put back when changed in Harbor (compared by
// meaning), conflicts with a second resource for the same policy, refuses bad input, and is deleted.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventReasons,
  invalid,
  type PreheatInstanceCR,
  type PreheatPolicyCR,
  preheatInstance,
  preheatPolicy,
  project,
  readyForSpec,
  secret,
  stalled,
} from "../env/resources.ts";
import { onlyWithSystemSettings } from "../env/tenancy.ts";

const op = useOperator({ namespacePrefix: "preheat" });
const INSTANCE = "harborpreheatinstance";
const POLICY = "harborpreheatpolicy";
const DF = "http://127.0.0.1:7101";
const LOGIN = { username: "harbor", password: "df-password-1" };

const count = (o: string) => op.emulator.counters.total({ op: o });
const harborInstance = (name: string) => op.harbor.preheat.getInstance(name);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
    const cr = await op.waitReady<PreheatInstanceCR>(INSTANCE, "df", 30_000);
    const h = await harborInstance("df");
    expect(h).toMatchObject({
      vendor: "dragonfly",
      endpoint: DF,
      auth_mode: "BASIC",
      auth_info: LOGIN,
      enabled: true,
      default: true,
      insecure: false,
    });
    expect(cr.status).toMatchObject({ harborId: h.id, isDefault: true, health: "healthy" });
    expect(JSON.stringify(cr.status)).not.toContain(LOGIN.password);
    expect(await eventReasons(op.kubectl, "df", "HarborPreheatInstance")).toContain("Created");
    const table = await op.kubectl.run(["get", "harborpreheatinstances"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+VENDOR\s+DEFAULT\s+HEALTH\s+AGE/);
    expect(table).toMatch(/df\s+True\s+Synced\s+\d+\s+dragonfly\s+true\s+healthy/);
  });

  test("a Secret that does not opt in is refused; a changed Secret is pushed", async () => {
    await op.kubectl.apply(secret("plain", LOGIN));
    await op.kubectl.apply(
      preheatInstance("kr", {
        vendor: "kraken",
        endpoint: "http://127.0.0.1:7102",
        auth: { mode: "BASIC", secretRef: { name: "plain" } },
      }),
    );
    const refused = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "kr",
      (o) => condition(o, "Ready")?.reason === "SecretNotAllowed",
    );
    expect(condition(refused, "Ready")?.message).toContain("preheat-credential");
    await op.kubectl.delete(INSTANCE, "kr", { wait: true });

    const rotated = { username: "harbor", password: "df-password-2" };
    op.emulator.control.preheat.addProvider(DF, { mode: "BASIC", info: rotated });
    await op.kubectl.apply(secret("df-login", rotated, { usableAs: "preheat-credential", watched: true }));
    await until("the new password in Harbor", async () =>
      (await harborInstance("df")).auth_info?.password === rotated.password ? true : undefined,
    );
    await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => o.status?.health === "healthy" && readyForSpec(o),
    );
  });

  test("a spec change is applied; a change made in Harbor is reverted within one drift interval and named", async () => {
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
    const changed = Date.now();
    await until("the instance to be reverted", async () => {
      const now = await harborInstance("df");
      return now.enabled && now.insecure && now.description === "team" ? true : undefined;
    });
    expect(Date.now() - changed).toBeLessThan(5_000);
    const cr = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(cr.status?.lastDriftCorrection?.fields).toEqual([
      "description",
      "auth.secretRef",
      "enabled",
      "insecure",
    ]);
    expect((await harborInstance("df")).auth_info?.password).toBe("df-password-2");
  });

  test("one resource per instance and one holder of Harbor's default: Conflict, nothing written", async () => {
    const writes = op.emulator.counters.writes();
    await op.kubectl.apply([
      preheatInstance("df-again", { name: "df", endpoint: DF }),
      preheatInstance("other-default", { endpoint: "http://127.0.0.1:7103", default: true }),
    ]);
    const same = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "df-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(same, "Ready")?.message).toContain(
      `HarborPreheatInstance ${op.namespace}/df already manages`,
    );
    const other = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "other-default",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(other, "Ready")?.message).toContain("default preheat instance");
    expect(op.emulator.counters.writes()).toBe(writes);
    await op.kubectl.run(["delete", INSTANCE, "df-again", "other-default", "--wait=true"]);
  });

  test("bad input is refused by kubectl, naming the field", async () => {
    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(preheatInstance(name, { endpoint: "http://127.0.0.1:7199", ...spec })),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("vendor", { vendor: invalid("p2p") })).toContain("spec.vendor");
    expect(await rejected("auth", { auth: { mode: "BASIC" } })).toContain(
      "auth mode BASIC needs secretRef: the Secret holding its credential",
    );
    expect(await rejected("none", { auth: { mode: "NONE", secretRef: { name: "x" } } })).toContain(
      "auth mode NONE takes no secretRef",
    );
    expect(await rejected("name", { name: "-df" })).toContain("spec.name");
    expect(await rejected("userinfo", { endpoint: "http://u:p@127.0.0.1:7199" })).toContain("user info");
    // The vendor of an existing instance stays.
    expect(await rejected("df", { vendor: "kraken", auth: basic, default: true })).toContain(
      "vendor is immutable: Harbor never changes an instance's provider (it stays dragonfly)",
    );
  });

  test("an instance someone else created: Create refuses it, CreateOrAdopt takes it over; Orphan leaves it", async () => {
    op.emulator.control.preheat.addProvider("http://127.0.0.1:7104");
    await op.harbor.preheat.createInstance({
      name: "theirs",
      vendor: "kraken",
      endpoint: "http://127.0.0.1:7104",
      auth_mode: "NONE",
      enabled: true,
      default: false,
      insecure: false,
    });
    await op.kubectl.apply(
      preheatInstance("theirs", { vendor: "kraken", endpoint: "http://127.0.0.1:7104" }),
    );
    const refused = await op.waitFor<PreheatInstanceCR>(INSTANCE, "theirs", stalled);
    expect(condition(refused, "Ready")?.reason).toBe("AlreadyExists");
    // Another name at the same endpoint: Harbor keeps one instance per endpoint (a masked 500), so
    // the operator waits and names the instance that has it.
    const creates = count("CreateInstance");
    await op.kubectl.apply(preheatInstance("copy", { vendor: "kraken", endpoint: "http://127.0.0.1:7104/" }));
    const inUse = await op.waitFor<PreheatInstanceCR>(
      INSTANCE,
      "copy",
      (o) => condition(o, "Ready")?.reason === "EndpointInUse",
    );
    expect(condition(inUse, "Ready")?.message).toContain(
      `Harbor's preheat instance "theirs" already uses the endpoint`,
    );
    expect(count("CreateInstance")).toBe(creates);
    await op.kubectl.delete(INSTANCE, "copy", { wait: true });
    await op.kubectl.apply(
      preheatInstance("theirs", {
        vendor: "kraken",
        endpoint: "http://127.0.0.1:7104",
        insecure: true,
        creationPolicy: "CreateOrAdopt",
        deletionPolicy: "Orphan",
      }),
    );
    await op.waitFor<PreheatInstanceCR>(INSTANCE, "theirs", readyForSpec);
    expect((await harborInstance("theirs")).insecure).toBe(true);
    expect(await eventReasons(op.kubectl, "theirs", "HarborPreheatInstance")).toContain("Adopted");
    await op.kubectl.delete(INSTANCE, "theirs", { wait: true });
    expect((await harborInstance("theirs")).name).toBe("theirs");
    await op.harbor.preheat.deleteInstance("theirs");
  });
});

test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage preheat instances", async () => {
  const endpoint = "http://127.0.0.1:7105";
  op.emulator.control.preheat.addProvider(endpoint);
  const names = async () => (await op.harbor.preheat.listInstances()).map((i) => i.name);
  await onlyWithSystemSettings(op, {
    kind: INSTANCE,
    resource: (connectionRef) => preheatInstance("tenant", { endpoint, connectionRef }),
    whileRefused: async () => expect(await names()).not.toContain("tenant"),
    afterDelete: async () => expect(await names()).not.toContain("tenant"),
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
    const cr = await op.waitReady<PreheatPolicyCR>(POLICY, "releases", 30_000);
    const h = await op.harbor.preheat.getPolicy("team", "releases");
    expect(JSON.parse(h.filters ?? "")).toEqual([
      { type: "repository", value: "app/**" },
      { type: "tag", value: "v*" },
      { type: "label", value: ["approved"] },
    ]);
    expect(JSON.parse(h.trigger ?? "")).toEqual({ type: "event_based", trigger_setting: { cron: "" } });
    expect(h).toMatchObject({ enabled: true, provider_name: "df", scope: "single_peer" });
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
      }),
    );
    await op.waitFor<PreheatPolicyCR>(POLICY, "releases", readyForSpec);
    const h = await op.harbor.preheat.getPolicy("team", "releases");
    expect(JSON.parse(h.trigger ?? "")).toEqual({
      type: "scheduled",
      trigger_setting: { cron: "0 0 2 * * *" },
    });
    expect(JSON.parse(h.filters ?? "")).toHaveLength(2);

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
    const changed = Date.now();
    await until("the policy to be reverted", async () => {
      const now = await op.harbor.preheat.getPolicy("team", "releases");
      return now.enabled ? now : undefined;
    });
    expect(Date.now() - changed).toBeLessThan(5_000);
    const cr = await op.waitFor<PreheatPolicyCR>(
      POLICY,
      "releases",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["filters.tag", "enabled"]);
  });

  test("a second resource for the same policy gets Conflict; bad input is refused by kubectl", async () => {
    await op.kubectl.apply(
      preheatPolicy("releases-again", {
        name: "releases",
        projectRef: { name: "team" },
        instanceRef: { name: "df" },
      }),
    );
    const cr = await op.waitFor<PreheatPolicyCR>(
      POLICY,
      "releases-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain(
      `HarborPreheatPolicy ${op.namespace}/releases already manages`,
    );
    await op.kubectl.delete(POLICY, "releases-again", { wait: true });

    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(
          preheatPolicy(name, { projectRef: { name: "team" }, instanceRef: { name: "df" }, ...spec }),
        ),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("nocron", { trigger: { type: "scheduled" } })).toContain(
      "a scheduled trigger needs a cron",
    );
    expect(await rejected("cron", { trigger: { type: "manual", cron: "0 0 2 * * *" } })).toContain(
      "cron is only used with trigger type scheduled",
    );
    expect(await rejected("badcron", { trigger: { type: "scheduled", cron: "0 0 2 * *" } })).toContain(
      "spec.trigger.cron",
    );
    expect(await rejected("releases", { projectRef: { name: "other" } })).toContain(
      "projectRef is immutable",
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
    await until(
      "the instance to go",
      async () => ((await op.kubectl.tryRun(["get", INSTANCE, "df"])).code !== 0 ? true : undefined),
      30_000,
    );
    expect((await op.harbor.preheat.listInstances()).map((i) => i.name)).not.toContain("df");
  });
});
