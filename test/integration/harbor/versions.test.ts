// The emulator's Harbor release switch: 2.12.4 (the default) and 2.10.3 differ where HARBOR-API.md
// §0 and §8 say, on the wire; everything else is the same on both.
import { describe, expect, test } from "vitest";
import { startEmulator } from "../../env/emulator/index.ts";
import { harborErrorOf, systemRobot, useEmulator } from "../../env/harbor.ts";

const listProjects = [{ resource: "project", action: "list" }];

describe.each([
  { version: "2.12.4", newer: true },
  { version: "2.10.3", newer: false },
])("Harbor $version", ({ version, newer }) => {
  const h = useEmulator({ harborVersion: version });

  test("systeminfo and the emulator say which release it is", async () => {
    expect(h.emulator.harborVersion).toBe(version);
    expect(h.emulator.world.version.name).toBe(version);
    expect((await h.admin.system.getSystemInfo()).harbor_version).toBe(`v${version}-emulator`);
  });

  test("robots: creator fields from 2.12; duration 0 is the 30-day default up to 2.10", async () => {
    const robot = await h.admin.robots.create(systemRobot("creator", listProjects, 7));
    const raw = JSON.parse((await h.raw("GET", `/robots/${robot.id}`)).text);
    if (newer) expect(raw).toMatchObject({ creator_type: "local", creator_ref: 1 });
    else {
      expect(raw).not.toHaveProperty("creator_type");
      expect(raw).not.toHaveProperty("creator_ref");
    }

    const zero = harborErrorOf(h.admin.robots.create(systemRobot("zero", listProjects, 0)));
    if (newer) expect(await zero).toMatchObject({ status: 400 });
    else {
      expect(await zero).toBeUndefined();
      const stored = (await h.admin.robots.list()).find((r) => r.name === "robot$zero");
      expect(stored?.duration).toBe(30);
    }
  });

  test("project metadata: auto_sbom_generation from 2.11, proxy_speed_kb from 2.12 (else dropped)", async () => {
    await h.admin.projects.create({
      project_name: "meta",
      metadata: { public: "false", auto_scan: "true", auto_sbom_generation: "true" },
    });
    const metadata = (await h.admin.projects.get("meta")).metadata;
    expect(metadata?.auto_scan).toBe("true");
    expect(metadata?.auto_sbom_generation).toBe(newer ? "true" : undefined);
    await h.admin.projects.update("meta", { metadata: { auto_sbom_generation: "false" } });
    expect((await h.admin.projects.get("meta")).metadata?.auto_sbom_generation).toBe(
      newer ? "false" : undefined,
    );
  });

  test("scanner registrations: capabilities from 2.12", async () => {
    h.emulator.control.scanners.addAdapter("http://scanner.example.com");
    const uuid = await h.admin.scanners.create({ name: "s", url: "http://scanner.example.com" });
    const got = JSON.parse((await h.raw("GET", `/scanners/${uuid}`)).text);
    const own = JSON.parse(
      (
        await h.raw("GET", "/projects/library/scanner", undefined, {
          headers: { "x-is-resource-name": "true" },
        })
      ).text,
    );
    const deleted = JSON.parse((await h.raw("DELETE", `/scanners/${uuid}`)).text);
    if (newer) {
      expect(got.capabilities).toEqual({ support_vulnerability: true, support_sbom: true });
      expect(own.capabilities).toEqual({ support_vulnerability: true, support_sbom: true });
      expect(deleted).toHaveProperty("capabilities", null);
    } else {
      for (const body of [got, own, deleted]) expect(body).not.toHaveProperty("capabilities");
    }
  });

  test("the same everywhere else: webhook addresses as sent, int4 ids, the login freeze", async () => {
    await h.admin.projects.create({ project_name: "hooks" });
    const id = await h.admin.webhooks.createPolicy("hooks", {
      name: "p",
      enabled: true,
      event_types: ["PUSH_ARTIFACT"],
      targets: [{ type: "http", address: "https://ci.example.com/hook/?x=1" }],
    });
    expect((await h.admin.webhooks.getPolicy("hooks", id)).targets?.[0]?.address).toBe(
      "https://ci.example.com/hook/?x=1",
    );
    expect((await h.raw("GET", `/labels/${2 ** 31}`)).status).toBe(500);
    const started = performance.now();
    const wrong = await fetch(`${h.emulator.url}/api/v2.0/users/current`, {
      headers: { authorization: `Basic ${Buffer.from("admin:nope").toString("base64")}` },
    });
    expect(wrong.status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

test("an unknown release is refused at start", async () => {
  await expect(startEmulator({ harborVersion: "2.9.0" })).rejects.toThrow(
    "unsupported Harbor version 2.9.0; the emulator models 2.12.4, 2.10.3",
  );
});
