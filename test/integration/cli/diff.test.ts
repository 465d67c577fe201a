// `kubectl harbor diff`: a folder of resources against the live Harbor, judged by the kinds' own
// diff functions: in sync, drift per field with both values, objects missing in Harbor, invalid
// resources, secret values compared without being shown, exit codes for CI.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { expectCleanFailure, runAgainst, runCli } from "../../env/cli.ts";
import { useEmulator } from "../../env/harbor.ts";
import { POPULATED, populateHarbor } from "../../env/populated-harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });
const work = mkdtempSync(join(tmpdir(), "hco-diff-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh export of the emulator into its own folder. */
async function exported(name: string): Promise<string> {
  const out = join(work, name);
  const r = await runAgainst(h.emulator, ["export", "--out", out, "-q"]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** The file of a resource by kind folder and Harbor name, and a way to change it. */
function resourceFile(dir: string, folder: string, harborName: string) {
  const kustomization = parse(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as {
    resources: string[];
  };
  const file = kustomization.resources
    .filter((f) => f.startsWith(`${folder}/`))
    .find(
      (f) =>
        (parse(readFileSync(join(dir, f), "utf8")) as { spec: { name: string } }).spec.name === harborName,
    );
  if (!file) throw new Error(`no ${folder} ${harborName}`);
  const path = join(dir, file);
  return {
    path,
    edit(change: (doc: { spec: Record<string, unknown> }) => void) {
      const doc = parse(readFileSync(path, "utf8"));
      change(doc);
      writeFileSync(path, stringify(doc));
    },
  };
}

beforeAll(async () => {
  await populateHarbor(h.admin, h.emulator.control);
});

describe("in sync", () => {
  test("a fresh export matches Harbor: exit 0, every resource in sync", async () => {
    const dir = await exported("fresh");
    const r = await runAgainst(h.emulator, ["diff", dir, "-q"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^= HarborProject library: in sync$/m);
    expect(r.stdout).toMatch(/^= HarborWebhookPolicy [^ ]+ \("Notify CI"\): in sync$/m);
    expect(r.stdout).toMatch(/all 39 resources match Harbor\n$/);
    const json = JSON.parse((await runAgainst(h.emulator, ["diff", dir, "-q", "-o", "json"])).stdout) as {
      resources: Array<{ state: string }>;
    };
    expect(json.resources.map((x) => x.state)).toEqual(Array(39).fill("in-sync"));
  });
});

describe("drift", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await exported("drift");
  });

  test("changes made in Harbor: each field named with the folder's and Harbor's value; exit 2", async () => {
    await h.admin.projects.update("team-b", { metadata: { auto_scan: "true" } });
    const robot = (await h.admin.robots.list({})).find((x) => x.name?.endsWith("scanner.sys"));
    if (!robot) throw new Error("no robot");
    await h.admin.robots.update(robot.id, {
      name: robot.name ?? "",
      level: "system",
      description: robot.description ?? "",
      disable: true,
      permissions: (robot.permissions ?? []).map((p) => ({
        kind: p.kind as "system" | "project",
        namespace: p.namespace ?? "",
        access: (p.access ?? []).map((a) => ({ resource: a.resource ?? "", action: a.action ?? "" })),
      })),
    });
    const r = await runAgainst(h.emulator, ["diff", dir, "-q"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^~ HarborProject team-b: 1 field\(s\) differ\n {4}autoScan: folder false, Harbor true$/m,
    );
    expect(r.stdout).toMatch(
      /^~ HarborRobot scanner.sys: 1 field\(s\) differ\n {4}disabled: folder false, Harbor true$/m,
    );
    expect(r.stdout).toMatch(/2 of 39 resources differ from Harbor/);
    const yaml = parse((await runAgainst(h.emulator, ["diff", dir, "-q", "-o", "yaml"])).stdout) as {
      resources: Array<{ name: string; state: string; fields: unknown[] }>;
    };
    expect(yaml.resources.find((x) => x.name === "team-b")).toMatchObject({
      state: "drift",
      fields: [{ field: "autoScan", folder: false, harbor: true }],
    });
    await h.admin.projects.update("team-b", { metadata: { auto_scan: "false" } });
    await h.admin.robots.update(robot.id, {
      name: robot.name ?? "",
      level: "system",
      description: robot.description ?? "",
      disable: false,
      permissions: (robot.permissions ?? []).map((p) => ({
        kind: p.kind as "system" | "project",
        namespace: p.namespace ?? "",
        access: (p.access ?? []).map((a) => ({ resource: a.resource ?? "", action: a.action ?? "" })),
      })),
    });
  });

  test("the kinds that joined: a label's colour, a member's role, the GC schedule, a resumed queue, the default scanner", async () => {
    const label = (await h.admin.labels.list({ scope: "g" })).find((l) => l.name === POPULATED.labels.global);
    await h.admin.labels.update(label?.id as number, {
      name: POPULATED.labels.global,
      description: label?.description ?? "",
      color: "#FF0000",
    });
    const alice = (await h.admin.members.list("team_a")).find((m) => m.entity_name === POPULATED.user);
    await h.admin.members.updateRole("team_a", alice?.id as number, 3);
    await h.admin.gc.updateSchedule({
      schedule: { type: "Daily", cron: "0 0 0 * * *" },
      parameters: { delete_untagged: true, workers: 2 },
    });
    await h.admin.jobService.actOnQueue(POPULATED.pausedQueue, "resume");
    const clair = (await h.admin.scanners.list()).find((x) => x.name === POPULATED.scanners.other);
    await h.admin.scanners.setDefault(clair?.uuid as string);
    const bob = await h.admin.users.byName(POPULATED.apiUser.name);
    await h.admin.users.setSysAdmin(bob?.user_id as number, false);
    await h.admin.system.updateConfigurations({ token_expiration: 15 });
    try {
      const r = await runAgainst(h.emulator, ["diff", dir, "-q"]);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(
        /^~ HarborLabel \S+ \("Release: Approved"\): 1 field\(s\) differ\n {4}color: folder #0065AB, Harbor #FF0000$/m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborProjectMember team-a\.alice-\S+: 1 field\(s\) differ\n {4}role: folder developer, Harbor guest$/m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborGarbageCollection garbage-collection: 2 field\(s\) differ\n {4}schedule\.type: folder Custom, Harbor Daily\n {4}schedule\.cron: /m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborJobService job-service: 1 field\(s\) differ\n {4}queues\[RETENTION\]\.paused: /m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborScannerRegistration \S+ \("Trivy Adapter"\): 1 field\(s\) differ\n {4}default: folder true, Harbor false$/m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborUser \S+ \("bob_builder"\): 1 field\(s\) differ\n {4}admin: folder true, Harbor false$/m,
      );
      expect(r.stdout).toMatch(
        /^~ HarborConfiguration configuration: 1 field\(s\) differ\n {4}tokenExpirationMinutes: folder 45, Harbor 15$/m,
      );
      // The project that follows Harbor's default scanner follows it: no difference there.
      expect(r.stdout).toMatch(/^= HarborProject team-b: in sync$/m);
    } finally {
      await h.admin.labels.update(label?.id as number, {
        name: POPULATED.labels.global,
        description: label?.description ?? "",
        color: "#0065AB",
      });
      await h.admin.members.updateRole("team_a", alice?.id as number, 2);
      await h.admin.gc.updateSchedule({
        schedule: { type: "Custom", cron: "0 30 2 * * 6" },
        parameters: { delete_untagged: true, workers: 2 },
      });
      await h.admin.jobService.actOnQueue(POPULATED.pausedQueue, "pause");
      const trivy = (await h.admin.scanners.list()).find((x) => x.name === POPULATED.scanners.default);
      await h.admin.scanners.setDefault(trivy?.uuid as string);
      await h.admin.users.setSysAdmin(bob?.user_id as number, true);
      await h.admin.system.updateConfigurations({
        token_expiration: POPULATED.configuration.tokenExpiration,
      });
    }
    expect((await runAgainst(h.emulator, ["diff", dir, "-q"])).code).toBe(0);
  });

  test("changes made in the folder are differences too, including references and lists", async () => {
    resourceFile(dir, "harborreplicationpolicies", "Push to Hub").edit((d) => {
      d.spec.speedKbps = 100;
      (d.spec.filters as Record<string, unknown>).name = "team-b/**";
    });
    resourceFile(dir, "harborprojects", "team_a").edit((d) => {
      (d.spec.cveAllowlist as { items: string[] }).items.push("CVE-2025-0001");
    });
    const r = await runAgainst(h.emulator, ["diff", dir, "-q"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^ {4}speedKbps: folder 100, Harbor 2048$/m);
    expect(r.stdout).toMatch(
      /^ {4}filters: folder \{"name":"team-b\/\*\*","tag":\{"pattern":"v\*","decoration":"matches"\}\}, Harbor \{"name":"team_a\/\*\*"/m,
    );
    expect(r.stdout).toMatch(
      /^ {4}cveAllowlist: folder \{"items":\["CVE-2023-44487","CVE-2024-3094","CVE-2025-0001"\]/m,
    );
  });

  test("an auth header changed in Harbor is found, its value never shown", async () => {
    const policy = (await h.admin.webhooks.listPolicies("team_a")).find((p) => p.name === "Notify CI");
    if (!policy) throw new Error("no policy");
    const fresh = await exported("secrets");
    await h.admin.webhooks.updatePolicy("team_a", policy.id, {
      name: "Notify CI",
      description: policy.description ?? "",
      enabled: true,
      event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
      targets: [
        { type: "http", address: "https://ci.example.com/harbor-hook", payload_format: "CloudEvents" },
      ],
    });
    try {
      const r = await runAgainst(h.emulator, ["diff", fresh, "-q"]);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(
        /^ {4}targets\[0\]\.authHeader: differs \(a value from a Secret: not shown\)$/m,
      );
      // The folder's Secret holds a value now: that is what is compared (and still not shown).
      const stub = join(
        fresh,
        "secrets",
        `${resourceFile(fresh, "harborwebhookpolicies", "Notify CI")
          .path.split("/")
          .pop()
          ?.replace(/\.yaml$/, "")}-auth.yaml`,
      );
      const secret = parse(readFileSync(stub, "utf8"));
      secret.stringData.authHeader = "Bearer In-The-Folder-42";
      writeFileSync(stub, stringify(secret));
      const again = await runAgainst(h.emulator, ["diff", fresh, "-q", "-o", "json"]);
      expect(again.stdout).toContain('"field": "targets[0].authHeader"');
      expect(again.stdout).not.toMatch(/In-The-Folder-42|Wh00k/);
    } finally {
      await h.admin.webhooks.updatePolicy("team_a", policy.id, {
        name: "Notify CI",
        description: policy.description ?? "",
        enabled: true,
        event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
        targets: [
          {
            type: "http",
            address: "https://ci.example.com/harbor-hook",
            auth_header: POPULATED.webhook.authHeader,
            payload_format: "CloudEvents",
          },
        ],
      });
    }
  });
});

describe("missing, invalid, unmanaged", () => {
  test("an object Harbor does not have: missing, exit 2", async () => {
    const dir = await exported("missing");
    await h.admin.projects.create({ project_name: "short-lived" });
    const withIt = await exported("missing-2");
    await h.admin.projects.delete("short-lived");
    const r = await runAgainst(h.emulator, ["diff", withIt, "-q"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^\+ HarborProject short-lived: missing in Harbor \(Harbor has no project "short-lived"\)$/m,
    );
    expect((await runAgainst(h.emulator, ["diff", dir, "-q"])).code).toBe(0);
  });

  test("a resource whose spec does not parse: invalid, exit 1", async () => {
    const dir = await exported("invalid");
    resourceFile(dir, "harborprojects", "team-b").edit((d) => {
      d.spec.severity = "apocalyptic";
    });
    const r = await runAgainst(h.emulator, ["diff", dir, "-q"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^! HarborProject team-b: invalid \(spec\.severity: .*\) in harborprojects\/team-b\.yaml$/m,
    );
  });

  test("--unmanaged lists what Harbor holds that no resource names, without counting it as drift", async () => {
    const dir = await exported("unmanaged");
    await h.admin.projects.create({ project_name: "created-in-the-ui" });
    try {
      const r = await runAgainst(h.emulator, ["diff", dir, "--unmanaged", "-q"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /In Harbor, named by no resource of the folder:\nKIND\s+HARBOR NAME\nHarborProject\s+created-in-the-ui/,
      );
      expect((await runAgainst(h.emulator, ["diff", dir, "-q"])).stdout).not.toContain("created-in-the-ui");
    } finally {
      await h.admin.projects.delete("created-in-the-ui");
    }
  });
});

describe("the connected release", () => {
  // A release without the project's webhook_allow_private_ip (2.13.6, 2.14.5 and 2.15.3 have it).
  const older = useEmulator({ harborVersion: "2.12.4", loginFreezeMs: 0 });

  test("a field the release lacks: true, which such a Harbor does anyway, matches; false is refused, exit 1", async () => {
    await older.admin.projects.create({ project_name: "hooks" });
    const out = join(work, "older");
    expect((await runAgainst(older.emulator, ["export", "--out", out, "-q"])).code).toBe(0);
    const hooks = resourceFile(out, "harborprojects", "hooks");
    expect(parse(readFileSync(hooks.path, "utf8")).spec).not.toHaveProperty("webhookAllowPrivateIP");

    hooks.edit((d) => {
      d.spec.webhookAllowPrivateIP = true;
    });
    const allowed = await runAgainst(older.emulator, ["diff", out, "-q"]);
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/^= HarborProject hooks: in sync$/m);

    hooks.edit((d) => {
      d.spec.webhookAllowPrivateIP = false;
    });
    const refused = await runAgainst(older.emulator, ["diff", out, "-q"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /^! HarborProject hooks: invalid \(spec\.webhookAllowPrivateIP false .* needs Harbor 2\.15\.3 \(on 2\.13: 2\.13\.6; on 2\.14: 2\.14\.5\) or later; this Harbor is v2\.12\.4-\w+\) in harborprojects\/hooks\.yaml$/m,
    );
  });
});

describe("failures", () => {
  test("a folder that does not exist, or holds nothing to compare", async () => {
    expectCleanFailure(
      await runAgainst(h.emulator, ["diff", join(work, "nowhere")]),
      1,
      /cannot read .*nowhere: no such file or folder/,
    );
    const empty = join(work, "empty");
    writeFileSync(join(work, "empty.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n");
    expectCleanFailure(
      await runAgainst(h.emulator, ["diff", `${empty}.yaml`]),
      1,
      /holds no resources this command can compare/,
    );
    writeFileSync(join(work, "broken.yaml"), "kind: [unclosed\n");
    expectCleanFailure(
      await runAgainst(h.emulator, ["diff", join(work, "broken.yaml")]),
      1,
      /broken\.yaml: not YAML/,
    );
  });

  test("no Harbor at the URL; Harbor failing; wrong credentials", async () => {
    const dir = await exported("failures");
    expectCleanFailure(
      await runCli(["diff", dir, "--harbor-url", "http://127.0.0.1:1", "-u", "admin"], {
        env: { HARBOR_PASSWORD: "Harbor12345" },
      }),
      1,
      /cannot reach Harbor at 127\.0\.0\.1:1/,
      ["Harbor12345"],
    );
    const fault = h.emulator.control.faults.add({ op: "listRegistries", status: 500 });
    try {
      expectCleanFailure(
        await runAgainst(h.emulator, ["diff", dir, "-q"]),
        1,
        /answered listRegistries with HTTP 500/,
      );
    } finally {
      h.emulator.control.faults.remove(fault);
    }
    expectCleanFailure(
      await runCli([
        "diff",
        dir,
        "--harbor-url",
        h.emulator.url,
        "-u",
        "admin",
        "--password",
        "Wrong-Pass-99",
      ]),
      1,
      /does not accept the username "admin" and the password from --password/,
      ["Wrong-Pass-99"],
    );
  });
});
