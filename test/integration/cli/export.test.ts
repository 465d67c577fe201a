// `kubectl harbor export` against a Harbor configured by hand (the emulator, populated through
// Harbor's API): the files it writes, what they hold and never hold, that a second export gives
// the same bytes, --check, the filters, and its failures.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { buildExport } from "../../../src/cli/export.ts";
import { Progress } from "../../../src/cli/output.ts";
import { MANAGED_KINDS } from "../../../src/controllers/kind-list.ts";
import { projectKind } from "../../../src/controllers/project/index.ts";
import { kubernetesName } from "../../../src/controllers/shared/export.ts";
import { expectCleanFailure, runAgainst, runCli } from "../../env/cli.ts";
import { useEmulator } from "../../env/harbor.ts";
import { POPULATED, populateHarbor } from "../../env/populated-harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });
const work = mkdtempSync(join(tmpdir(), "hco-export-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const dir = () => join(work, `out-${++n}`);

/** Every file under a folder, relative path → content. */
function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out.set(p, readFileSync(join(root, p), "utf8"));
    }
  };
  walk("");
  return out;
}

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: Record<string, unknown> & { name: string };
  stringData?: Record<string, string>;
}

const resources = (root: string): Doc[] =>
  [...files(root)].filter(([p]) => p.startsWith("harbor")).map(([, text]) => parse(text) as Doc);

/** What names a resource's object: spec.name, else a member's user or group, else its kind alone. */
function named(d: Doc): string {
  const s = d.spec as {
    name?: string;
    projectRef?: { name: string };
    user?: { name: string };
    group?: { groupRef?: { name: string }; name?: string; ldapGroupDn?: string };
    rules?: unknown[];
    tags?: { pattern: string };
  };
  if (s.name !== undefined) return s.name;
  if (s.rules) return `${s.projectRef?.name}:retention`;
  if (s.tags) return `${s.projectRef?.name}:tags ${s.tags.pattern}`;
  if (s.user) return `${s.projectRef?.name}:user ${s.user.name}`;
  if (s.group)
    return `${s.projectRef?.name}:group ${s.group.groupRef?.name ?? s.group.name ?? s.group.ldapGroupDn}`;
  return "(the Harbor's)";
}

/** Every secret the populated Harbor holds: none may appear in a file or an output. */
const SECRETS = [
  POPULATED.webhook.authHeader,
  POPULATED.registryWithCredentials.accessSecret,
  POPULATED.registryWithCredentials.accessKey,
  "Harbor12345",
];

beforeAll(async () => {
  await populateHarbor(h.admin, h.emulator.control, { credentials: true });
});

describe("the files", () => {
  let out: string;
  let result: Awaited<ReturnType<typeof runAgainst>>;
  beforeAll(async () => {
    out = dir();
    result = await runAgainst(h.emulator, ["export", "--out", out]);
  });

  test("one file per object under a folder per kind, and a kustomization listing exactly them", () => {
    expect(result.code, result.stderr).toBe(0);
    const all = files(out);
    const kustomization = parse(all.get("kustomization.yaml") as string) as {
      resources: string[];
      kind: string;
    };
    expect(kustomization.kind).toBe("Kustomization");
    const listed = [...all.keys()].filter((p) => p.startsWith("harbor")).sort();
    expect([...kustomization.resources].sort()).toEqual(listed);
    const byKind = (kind: string) =>
      resources(out)
        .filter((d) => d.kind === kind)
        .map((d) => d.spec.name)
        .sort();
    // The emulator's Harbor has its "library" project, as every Harbor has.
    expect(byKind("HarborProject")).toEqual(["hub-cache", "library", "team-b", "team_a", "web.shop"]);
    expect(byKind("HarborRobot")).toEqual(["ci", "deploy_bot", "scanner.sys"]);
    expect(byKind("HarborRegistry")).toEqual(["Docker Hub", "Private Mirror"]);
    expect(byKind("HarborReplicationPolicy")).toEqual(["Push to Hub"]);
    expect(byKind("HarborWebhookPolicy")).toEqual(["Notify CI", "chat"]);
    expect(byKind("HarborScannerRegistration")).toEqual(["Clair (legacy)", "Trivy Adapter"]);
    expect(byKind("HarborLabel")).toEqual(["Release: Approved", "needs review"]);
    expect(byKind("HarborUserGroup")).toEqual(["/platform/admins", "Ops Team"]);
    expect(byKind("HarborUser")).toEqual(["alice", "bob_builder"]);
    expect(resources(out).filter((d) => d.kind === "HarborRetentionPolicy")).toHaveLength(2);
    expect(resources(out).filter((d) => d.kind === "HarborImmutableTagRule")).toHaveLength(2);
    expect(byKind("HarborPreheatInstance")).toEqual(["Dragonfly_EU"]);
    expect(byKind("HarborPreheatPolicy")).toEqual(["Releases"]);
    for (const kind of [
      "HarborGarbageCollection",
      "HarborAuditLogPurge",
      "HarborJobService",
      "HarborConfiguration",
      "HarborScanAll",
    ])
      expect(resources(out).filter((d) => d.kind === kind)).toHaveLength(1);
    for (const [path, text] of all) {
      if (!path.startsWith("harbor")) continue;
      const doc = parse(text) as Doc;
      expect(path).toBe(
        `${MANAGED_KINDS.find((k) => k.def.kind === doc.kind)?.def.plural}/${doc.metadata.name}.yaml`,
      );
    }
  });

  test("Kubernetes-safe names, Harbor's in spec.name; adopt and orphan; the default connection", () => {
    for (const d of resources(out)) {
      expect(d.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
      expect(d.spec).toMatchObject({
        connectionRef: { kind: "HarborConnection", name: "harbor" },
        creationPolicy: "Adopt",
        deletionPolicy: "Orphan",
      });
    }
    const names = new Map(resources(out).map((d) => [`${d.kind}/${d.spec.name}`, d.metadata.name]));
    expect(names.get("HarborProject/team-b")).toBe("team-b");
    expect(names.get("HarborProject/team_a")).toMatch(/^team-a-[0-9a-f]{6}$/);
    expect(names.get("HarborRegistry/Docker Hub")).toMatch(/^docker-hub-[0-9a-f]{6}$/);
  });

  test("references name the other resources, never Harbor ids", () => {
    const docs = resources(out);
    const name = (kind: string, harborName: string) =>
      docs.find((d) => d.kind === kind && d.spec.name === harborName)?.metadata.name;
    const find = (kind: string, harborName: string) =>
      docs.find((d) => d.kind === kind && d.spec.name === harborName) as Doc;
    expect(find("HarborRobot", "ci").spec.projectRef).toEqual({ name: name("HarborProject", "team_a") });
    expect(find("HarborWebhookPolicy", "Notify CI").spec.projectRef).toEqual({
      name: name("HarborProject", "team_a"),
    });
    expect(find("HarborReplicationPolicy", "Push to Hub").spec.registryRef).toEqual({
      name: name("HarborRegistry", "Docker Hub"),
    });
    expect(find("HarborProject", "hub-cache").spec.proxyCache).toEqual({
      registryRef: { name: name("HarborRegistry", "Docker Hub") },
      speedKbps: 4096,
    });
    expect(JSON.stringify(docs)).not.toMatch(/"(harborId|registry_id|project_id)"/);
  });

  test("every managed field of a project, robots that keep their secrets", () => {
    const docs = resources(out);
    expect(docs.find((d) => d.spec.name === "team_a" && d.kind === "HarborProject")?.spec).toMatchObject({
      public: false,
      autoScan: true,
      preventVulnerable: true,
      severity: "high",
      cveAllowlist: { items: ["CVE-2023-44487", "CVE-2024-3094"], expiresAt: "2030-03-17T17:46:40Z" },
      storageLimit: "10Gi",
    });
    for (const robot of docs.filter((d) => d.kind === "HarborRobot"))
      expect(robot.spec.secret).toEqual({ deliver: false });
    expect(result.stderr).toMatch(/HarborRobot [^:]+: its secret stays with whoever holds it/);
  });

  test("Secret stubs apart from the kustomization, with the keys and no values", () => {
    const all = files(out);
    const stubs = [...all.keys()].filter((p) => p.startsWith("secrets/")).sort();
    expect(stubs).toHaveLength(2);
    const kustomization = all.get("kustomization.yaml") as string;
    for (const s of stubs) expect(kustomization).not.toContain(s);
    const docs = stubs.map((p) => parse(all.get(p) as string) as Doc);
    const webhook = docs.find(
      (d) => d.metadata.annotations?.["harborconfig.io/usable-as"] === "webhook-auth-header",
    );
    expect(webhook?.stringData).toEqual({ authHeader: "" });
    const registry = docs.find(
      (d) => d.metadata.annotations?.["harborconfig.io/usable-as"] === "registry-credential",
    );
    expect(registry?.stringData).toEqual({ accessKey: "", accessSecret: "" });
    expect(registry?.metadata.labels).toEqual({ "harborconfig.io/watch": "true" });
    // The resources point at them.
    const mirror = resources(out).find((d) => d.spec.name === "Private Mirror");
    expect(mirror?.spec.credential).toEqual({ type: "basic", secretRef: { name: registry?.metadata.name } });
    expect(result.stderr).toMatch(/it reads Secret [^:]+: fill in accessKey and accessSecret/);
  });

  test("the kinds that joined: scanners, labels, groups, members by reference, the per-Harbor settings", () => {
    const all = resources(out);
    const one = (kind: string, name?: string) =>
      all.find((d) => d.kind === kind && (name === undefined || d.spec.name === name))?.spec;
    const names = new Map(all.map((d) => [`${d.kind}/${d.spec.name}`, d.metadata.name]));
    expect(one("HarborScannerRegistration", "Trivy Adapter")).toMatchObject({
      url: "http://trivy.example.com:8080",
      description: "Scans everything",
      auth: { type: "None" },
      default: true,
    });
    expect(one("HarborScannerRegistration", "Clair (legacy)")).toMatchObject({
      skipCertVerify: true,
      default: false,
    });
    // web.shop scans with its own registration; the others with Harbor's default.
    expect(one("HarborProject", "web.shop")?.scanner).toEqual({
      registrationRef: { name: names.get("HarborScannerRegistration/Clair (legacy)") },
    });
    expect(one("HarborProject", "team-b")?.scanner).toEqual({ systemDefault: true });
    expect(one("HarborLabel", "Release: Approved")).toMatchObject({ color: "#0065AB" });
    expect(one("HarborLabel", "Release: Approved")).not.toHaveProperty("projectRef");
    expect(one("HarborLabel", "needs review")).toMatchObject({
      projectRef: { name: names.get("HarborProject/team_a") },
    });
    expect(one("HarborUserGroup", "Ops Team")).toMatchObject({ type: "http" });
    expect(
      all
        .filter((d) => d.kind === "HarborProjectMember")
        .map((d) => `${named(d)} ${String(d.spec.role)}`)
        .sort(),
    ).toEqual(
      [
        "hub-cache:user admin projectAdmin",
        "library:user admin projectAdmin",
        `${names.get("HarborProject/team_a")}:group ${names.get("HarborUserGroup/Ops Team")} maintainer`,
        `${names.get("HarborProject/team_a")}:user admin projectAdmin`,
        `${names.get("HarborProject/team_a")}:user alice developer`,
        "team-b:user admin projectAdmin",
        `web.shop:group ${names.get("HarborUserGroup//platform/admins")} guest`,
        "web.shop:user admin projectAdmin",
      ].sort(),
    );
    expect(one("HarborGarbageCollection")).toMatchObject({
      schedule: { type: "Custom", cron: "0 30 2 * * 6" },
      deleteUntagged: true,
      workers: 2,
    });
    // Weekly on Harbor's own cron, every operation, no dry run: only what differs from the defaults.
    expect(one("HarborAuditLogPurge")).toMatchObject({ schedule: { type: "Weekly" }, retentionHours: 720 });
    expect(one("HarborAuditLogPurge")).not.toHaveProperty("includeOperations");
    expect(one("HarborJobService")).toMatchObject({ queues: [{ jobType: "RETENTION", paused: true }] });
    expect(one("HarborUser", "bob_builder")).toMatchObject({
      name: "bob_builder",
      email: POPULATED.apiUser.email,
      realname: POPULATED.apiUser.realname,
      comment: POPULATED.apiUser.comment,
      admin: true,
      managePassword: false,
    });
    expect(one("HarborConfiguration")).toMatchObject({
      tokenExpirationMinutes: POPULATED.configuration.tokenExpiration,
      robotTokenDurationDays: POPULATED.configuration.robotDays,
      banner: { message: POPULATED.configuration.banner, type: "warning", closable: true },
      cveAllowlist: { items: [POPULATED.systemCve] },
    });
  });

  test("no secret value in any file or output", () => {
    const everything = [...files(out).values(), result.stdout, result.stderr].join("\n");
    for (const s of SECRETS) expect(everything).not.toContain(s);
  });

  test("the summary: per kind, exported and skipped; where the files went", () => {
    for (const k of MANAGED_KINDS) expect(result.stdout).toMatch(new RegExp(`${k.def.kind}\\s+\\d+\\s+0`));
    expect(result.stdout).toMatch(/Wrote 40 resources to .* and 2 Secret stubs to fill in/);
    expect(result.stderr).toMatch(/^Reading Harbor at http:\/\/127\.0\.0\.1:\d+\n/);
  });
});

describe("the same bytes again, and --check", () => {
  test("a second export is byte-identical; --check exits 0, then 2 naming what Harbor changed", async () => {
    const a = dir();
    const b = dir();
    expect((await runAgainst(h.emulator, ["export", "--out", a, "-q"])).code).toBe(0);
    expect((await runAgainst(h.emulator, ["export", "--out", b, "-q"])).code).toBe(0);
    expect(files(b)).toEqual(files(a));

    const same = await runAgainst(h.emulator, ["export", "--out", a, "--check", "-q"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/is what an export of http:\/\/127\.0\.0\.1:\d+ writes \(40 resources\)/);

    await h.admin.projects.update("team-b", { metadata: { public: "false" } });
    await h.admin.projects.create({ project_name: "newcomer" });
    const changed = await runAgainst(h.emulator, ["export", "--out", a, "--check", "-q"]);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toMatch(/changed\s+harborprojects\/team-b\.yaml/);
    expect(changed.stdout).toMatch(/added\s+harborprojects\/newcomer\.yaml/);
    expect(changed.stdout).toMatch(/changed\s+kustomization\.yaml/);
    const json = await runAgainst(h.emulator, ["export", "--out", a, "--check", "-q", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      upToDate: false,
      changes: expect.arrayContaining([{ file: "harborprojects/team-b.yaml", change: "changed" }]),
    });
    expect(files(a)).toEqual(files(b)); // --check writes nothing

    // A re-export brings the folder up to date, and then removes what Harbor no longer has.
    expect((await runAgainst(h.emulator, ["export", "--out", a, "-q"])).code).toBe(0);
    expect((await runAgainst(h.emulator, ["export", "--out", a, "--check", "-q"])).code).toBe(0);
    await h.admin.projects.delete("newcomer");
    await h.admin.projects.update("team-b", { metadata: { public: "true" } });
    const again = await runAgainst(h.emulator, ["export", "--out", a, "-q"]);
    // The project, and its creator's membership, which went with it.
    expect(again.stdout).toMatch(/removed 2 files of objects Harbor no longer has/);
    expect(existsSync(join(a, "harborprojects", "newcomer.yaml"))).toBe(false);
    expect(readdirSync(join(a, "harborprojectmembers")).some((f) => f.startsWith("newcomer"))).toBe(false);
    expect(files(a)).toEqual(files(b));
  });

  test("a Secret stub that was filled in is never overwritten", async () => {
    const out = dir();
    await runAgainst(h.emulator, ["export", "--out", out, "-q"]);
    const stub = [...files(out).keys()].find(
      (p) => p.startsWith("secrets/") && p.includes("credentials"),
    ) as string;
    const filled = (files(out).get(stub) as string).replace('accessSecret: ""', "accessSecret: filled-in");
    writeFileSync(join(out, stub), filled);
    await runAgainst(h.emulator, ["export", "--out", out, "-q"]);
    expect(files(out).get(stub)).toBe(filled);
    expect((await runAgainst(h.emulator, ["export", "--out", out, "--check", "-q"])).code).toBe(0);
  });
});

describe("what to export", () => {
  test("--projects: the objects of those projects and what they reference, nothing that reaches beyond", async () => {
    const out = dir();
    const r = await runAgainst(h.emulator, ["export", "--out", out, "--projects", "team_*", "-q"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      resources(out)
        .map((d) => `${d.kind} ${named(d).replace(/^team-a-[0-9a-f]+:/, "")}`)
        .sort(),
    ).toEqual([
      "HarborImmutableTagRule tags v*",
      "HarborLabel needs review",
      "HarborPreheatInstance Dragonfly_EU", // the preheat policy's instance: it goes along
      "HarborPreheatPolicy Releases",
      "HarborProject team_a",
      `HarborProjectMember group ${kubernetesName("Ops Team")}`, // by reference: the group goes along
      "HarborProjectMember user admin",
      "HarborProjectMember user alice",
      "HarborRegistry Docker Hub", // the replication policy's remote
      "HarborReplicationPolicy Push to Hub", // its name filter stays in team_a
      "HarborRetentionPolicy retention",
      "HarborRobot ci",
      "HarborUserGroup Ops Team",
      "HarborWebhookPolicy Notify CI",
    ]);
  });

  test("--kinds: only those kinds; a reference to one left out is said", async () => {
    const out = dir();
    const r = await runAgainst(h.emulator, ["export", "--out", out, "--kinds", "robots,webhookpolicies"]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(resources(out).map((d) => d.kind))).toEqual(
      new Set(["HarborRobot", "HarborWebhookPolicy"]),
    );
    expect(r.stderr).toMatch(
      /HarborRobot [^:]+: it references HarborProject team-a-[0-9a-f]{6}, which this export does not write \(--kinds\)/,
    );
    const bad = await runAgainst(h.emulator, ["export", "--out", out, "--kinds", "teleporters"]);
    expectCleanFailure(
      bad,
      64,
      /--kinds: "teleporters" is not a kind of this operator \(projects, robots, registries/,
    );
  });

  test("policies, connection, namespace and robot secrets as asked", async () => {
    const out = dir();
    const r = await runAgainst(h.emulator, [
      "export",
      "--out",
      out,
      "--creation-policy",
      "CreateOrAdopt",
      "--deletion-policy",
      "Delete",
      "--connection-ref",
      "ClusterHarborConnection/shared-harbor",
      "--namespace",
      "platform",
      "--robot-secrets",
      "issue",
      "-q",
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const d of resources(out))
      expect(d.spec).toMatchObject({
        connectionRef: { kind: "ClusterHarborConnection", name: "shared-harbor" },
        creationPolicy: "CreateOrAdopt",
        deletionPolicy: "Delete",
      });
    for (const robot of resources(out).filter((d) => d.kind === "HarborRobot"))
      expect(robot.spec).not.toHaveProperty("secret");
    expect(parse(files(out).get("kustomization.yaml") as string)).toMatchObject({ namespace: "platform" });
    for (const [p, text] of files(out))
      if (p.startsWith("secrets/"))
        expect(parse(text)).toMatchObject({ metadata: { namespace: "platform" } });
    const bad = await runAgainst(h.emulator, ["export", "--out", out, "--deletion-policy", "Keep"]);
    expectCleanFailure(bad, 64, /--deletion-policy "Keep" must be one of Orphan, Delete/);
  });

  test("JSON: the resources, the skipped objects and the stubs, for scripts", async () => {
    const out = dir();
    const r = await runAgainst(h.emulator, ["export", "--out", out, "-o", "json", "-q"]);
    const j = JSON.parse(r.stdout) as {
      resources: Array<{ kind: string; harborName: string; file: string }>;
      skipped: unknown[];
      secretStubs: string[];
      kinds: unknown[];
    };
    expect(j.resources).toHaveLength(40);
    expect(j.resources).toContainEqual(
      expect.objectContaining({ kind: "HarborWebhookPolicy", harborName: "Notify CI" }),
    );
    expect(j.skipped).toEqual([]);
    expect(j.secretStubs).toHaveLength(2);
    expect(j.kinds).toHaveLength(MANAGED_KINDS.length);
  });

  test("a kind without an exporter is listed as not exported yet", async () => {
    const { exporter: _none, ...unexported } = projectKind;
    const r = await buildExport(
      h.admin,
      {
        kinds: [unexported, ...MANAGED_KINDS.filter((k) => k !== projectKind)],
        projects: [],
        creationPolicy: "Adopt",
        deletionPolicy: "Orphan",
        connectionRef: { kind: "HarborConnection", name: "harbor" },
        deliverSecrets: false,
        harborUrl: h.emulator.url,
      },
      {
        signal: new AbortController().signal,
        concurrency: 4,
        progress: new Progress(process.stderr, { tty: false, quiet: true }),
      },
    );
    expect(r.notExported).toEqual(["HarborProject"]);
    expect(r.resources.some((x) => x.kind === "HarborProject")).toBe(false);
    // Robots still name their projects: the reference waits for a resource this export does not write.
    expect(r.resources.find((x) => x.harborName === "ci")?.notes.join()).toMatch(
      /references HarborProject .* \(--kinds\)/,
    );
  });

  test("an object the CRD cannot hold is skipped and said, the others written", async () => {
    await h.admin.webhooks.createPolicy("team-b", {
      name: "  padded name  ",
      enabled: true,
      event_types: ["PUSH_ARTIFACT"],
      targets: [{ type: "http", address: "https://x.example.com" }],
    });
    const out = dir();
    const r = await runAgainst(h.emulator, ["export", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /skipped HarborWebhookPolicy " {2}padded name {2}": the CRD would refuse it: spec\.name/,
    );
    expect(r.stdout).toMatch(/HarborWebhookPolicy\s+2\s+1/);
    const policies = await h.admin.webhooks.listPolicies("team-b");
    await h.admin.webhooks.deletePolicy(
      "team-b",
      policies.find((p) => p.name === "  padded name  ")?.id as number,
    );
  });
});

describe("failures", () => {
  test("no Harbor at the URL: exit 1, what failed, no stack trace", async () => {
    const r = await runCli(["export", "--out", dir(), "--harbor-url", "http://127.0.0.1:1", "-u", "admin"], {
      env: { HARBOR_PASSWORD: "Harbor12345" },
    });
    expectCleanFailure(r, 1, /cannot reach Harbor at 127\.0\.0\.1:1: connection refused/, ["Harbor12345"]);
  });

  test("wrong credentials: the user and where the password came from, never the password", async () => {
    const r = await runCli(["export", "--out", dir(), "--harbor-url", h.emulator.url, "-u", "admin"], {
      env: { HARBOR_PASSWORD: "Not-The-Pass-123" },
    });
    expectCleanFailure(
      r,
      1,
      /does not accept the username "admin" and the password from HARBOR_PASSWORD \(HTTP 401\)/,
      ["Not-The-Pass-123"],
    );
  });

  test("Harbor fails a list: exit 1 with Harbor's answer, nothing written", async () => {
    const fault = h.emulator.control.faults.add({
      op: "ListWebhookPoliciesOfProject",
      status: 500,
      message: "database is down",
    });
    try {
      const out = dir();
      const r = await runAgainst(h.emulator, ["export", "--out", out, "-q"]);
      expectCleanFailure(r, 1, /answered ListWebhookPoliciesOfProject with HTTP 500/, SECRETS);
      expect(existsSync(out)).toBe(false);
    } finally {
      h.emulator.control.faults.remove(fault);
    }
  });

  test("--check of a folder that does not exist: every file would be added, exit 2", async () => {
    const r = await runAgainst(h.emulator, ["export", "--out", join(work, "nowhere"), "--check", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/added\s+kustomization\.yaml/);
  });

  test("no --out", async () => {
    expectCleanFailure(await runAgainst(h.emulator, ["export"]), 64, /--out DIR is required/);
  });
});

test("every file parses as YAML documents a kubectl apply takes", async () => {
  const out = dir();
  await runAgainst(h.emulator, ["export", "--out", out, "-q"]);
  for (const [p, text] of files(out)) {
    const docs = parseAllDocuments(text);
    expect(docs, p).toHaveLength(1);
    expect(docs[0]?.errors, p).toEqual([]);
  }
});
