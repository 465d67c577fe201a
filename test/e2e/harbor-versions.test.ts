// The operator against the earlier Harbor the emulator models (2.10.3), next to the default 2.12.4:
// the same flows converge on both and stay converged. 2.10 answers differently where §0/§8 of
// HARBOR-API.md say: robots without creator fields, `duration: 0` taken as the 30-day default,
// project metadata without auto_sbom_generation and proxy_speed_kb, scanners without capabilities.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { pullAccess } from "../env/registry-auth.ts";
import {
  type ConnectionCR,
  deliveredCredentials,
  harborIdOf,
  PULL,
  project,
  type Resource,
  ready,
  robot,
  webhookPolicy,
} from "../env/resources.ts";

type CR = Resource;

describe.each(["2.10.3", "2.12.4"])("Harbor %s", (harborVersion) => {
  const op = useOperator({
    namespacePrefix: `v${harborVersion.replace(/\./g, "")}`,
    emulator: { harborVersion },
  });

  test("the connection reports the release", async () => {
    const conn = await op.kubectl.get<ConnectionCR>("harborconnection", "harbor");
    expect(conn.status?.harborVersion).toBe(`v${harborVersion}-emulator`);
  });

  test("a project, a robot and a webhook policy converge, and stay converged", async () => {
    await op.kubectl.apply([
      project("team", { public: false, autoScan: true, severity: "high", preventVulnerable: true }),
      robot("ci", { projectRef: { name: "team" }, durationDays: 30, permissions: [{ access: PULL }] }),
      webhookPolicy("hook", {
        projectRef: { name: "team" },
        eventTypes: ["PUSH_ARTIFACT"],
        targets: [{ address: "http://127.0.0.1:9/hooks/?from=harbor" }],
      }),
    ]);
    const team = await op.waitReady<CR>("harborproject", "team");
    const ci = await op.waitReady<CR>("harborrobot", "ci");
    const hook = await op.waitReady<CR>("harborwebhookpolicy", "hook");

    expect((await op.harbor.projects.get("team")).metadata).toMatchObject({
      public: "false",
      auto_scan: "true",
      severity: "high",
      prevent_vul: "true",
    });
    const inHarbor = await op.harbor.robots.get(harborIdOf(ci));
    expect(inHarbor).toMatchObject({ name: "robot$team+ci", level: "project" });
    // Who created a robot is recorded from 2.12 on.
    expect(inHarbor.creator_type).toBe(harborVersion === "2.12.4" ? "local" : undefined);
    const c = await deliveredCredentials(op.kubectl, "ci");
    expect(await pullAccess(op.emulator.url, c.username, c.password, "team/app")).toEqual(["pull"]);
    expect((await op.harbor.webhooks.getPolicy("team", harborIdOf(hook))).targets?.[0]?.address).toBe(
      "http://127.0.0.1:9/hooks/?from=harbor",
    );

    // Two drift sweeps of each kind later: no write, no drift correction.
    const before = op.emulator.counters.writes();
    await Promise.all(["HarborProject", "HarborRobot", "HarborWebhookPolicy"].map((kind) => op.sweeps(kind)));
    expect(op.emulator.counters.writes()).toBe(before);
    for (const [kind, name] of [
      ["harborproject", "team"],
      ["harborrobot", "ci"],
      ["harborwebhookpolicy", "hook"],
    ] as const) {
      const cr = await op.kubectl.get<CR>(kind, name);
      expect(cr.status?.lastDriftCorrection, `${kind}/${name}`).toBeUndefined();
    }
    expect(team.status?.harborId).toBe((await op.harbor.projects.get("team")).project_id);
  });

  test("auto SBOM generation (2.11+) converges on 2.12, and is refused by name on 2.10, not drifting forever", async () => {
    await op.kubectl.apply(project("sbom", { autoSbomGeneration: true }));
    if (harborVersion === "2.12.4") {
      await op.waitReady("harborproject", "sbom");
      expect((await op.harbor.projects.get("sbom")).metadata?.auto_sbom_generation).toBe("true");
    } else {
      const cr = await op.waitFor<CR>(
        "harborproject",
        "sbom",
        (o) => ready(o)?.reason === "UnsupportedByHarbor",
      );
      expect(ready(cr)?.message).toBe(
        "spec.autoSbomGeneration needs Harbor 2.11 or later; this Harbor is v2.10.3-emulator",
      );
      // Nothing was sent that Harbor would have dropped.
      expect(await op.harbor.projects.exists("sbom")).toBe(false);
    }
    await op.kubectl.delete("harborproject", "sbom", { wait: true });
  });

  test("deleting them removes them from Harbor", async () => {
    await op.kubectl.delete("harborwebhookpolicy", "hook", { wait: true });
    await op.kubectl.delete("harborrobot", "ci", { wait: true });
    await op.kubectl.delete("harborproject", "team", { wait: true });
    expect(await op.harbor.projects.exists("team")).toBe(false);
  });
});
