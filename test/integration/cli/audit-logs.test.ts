// `project audit-logs` on both sides of Harbor 2.13: from 2.13 Harbor records writes only in its
// extended audit log (/projects/{p}/auditlog-exts), before it only in the project log
// (/projects/{p}/logs), which 2.13 keeps but no longer writes. The command reads the extended log
// and falls back to the project log where Harbor has no such route. Each release is pinned: the
// point is the difference between them.
import { describe, expect, test } from "vitest";
import { type CliResult, expectCleanFailure, runAgainst } from "../../env/cli.ts";
import { projectRobot, useEmulator } from "../../env/harbor.ts";

function ok(r: CliResult): CliResult {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

interface Entry {
  username?: string;
  operation?: string;
  resource_type?: string;
  resource?: string;
  operation_result?: boolean;
}

describe.each([
  { release: "2.12.4", read: "getLogs", extended: false },
  { release: "2.15.2", read: "getLogExts", extended: true },
])("on Harbor $release: project audit-logs reads $read", ({ release, read, extended }) => {
  const h = useEmulator({ harborVersion: release, loginFreezeMs: 0 });
  const run = (args: string[]) => runAgainst(h.emulator, args);
  const calls = (op: string, status?: number) =>
    h.emulator.counters.total({ op, ...(status === undefined ? {} : { status }) });

  /** A second between writes: entries of one moment have no defined order. */
  const later = () => h.emulator.control.clock.advance(1_000);

  /** A project with a pushed artifact and a robot made and deleted, by the admin, a second apart. */
  async function seed(project: string): Promise<void> {
    await h.admin.projects.create({ project_name: project });
    later();
    h.emulator.control.projects.pushArtifact(project, "api", { tag: "1.0" });
    later();
    const robot = await h.admin.robots.create(
      projectRobot(`${project}-ci`, project, [{ resource: "repository", action: "pull" }]),
    );
    later();
    await h.admin.robots.delete(robot.id);
    later();
  }

  test("shows what Harbor recorded, newest first, from the log this release writes", async () => {
    await seed("shop");
    // What the emulator counted: by operation, and a path without a route as "unknown".
    const counted = () => ({
      ext: calls("getLogExts"),
      missing: calls("unknown", 404),
      old: calls("getLogs"),
    });
    const before = counted();
    const entries = JSON.parse(
      ok(await run(["project", "audit-logs", "shop", "-o", "json"])).stdout,
    ) as Entry[];
    const seen = entries.map((e) => `${e.operation} ${e.resource_type} ${e.resource}`);
    // A push is the artifact's create in the extended log.
    const push = extended ? "create" : "push";
    expect(seen).toEqual([
      expect.stringMatching(/^delete robot .*shop-ci$/),
      expect.stringMatching(/^create robot .*shop-ci$/),
      `${push} artifact shop/api:1.0`,
      "create project shop",
    ]);
    expect(entries.every((e) => e.username === "admin")).toBe(true);
    // Only the extended log says whether the operation succeeded.
    expect(entries.every((e) => (e.operation_result === true) === extended)).toBe(true);
    // 2.15: the extended log alone. 2.12: its route not found, then the old log.
    const after = counted();
    expect({
      ext: after.ext - before.ext,
      missing: after.missing - before.missing,
      old: after.old - before.old,
    }).toEqual(extended ? { ext: 1, missing: 0, old: 0 } : { ext: 0, missing: 1, old: 1 });

    const table = ok(await run(["project", "audit-logs", "shop", "--resource-type", "project"])).stdout;
    expect(table).toMatch(/^TIME +USER +OPERATION +TYPE +RESOURCE\n\S+ +admin +create +project +shop\n$/);
  });

  test("the filters reach whichever log it reads", async () => {
    await seed("filters");
    h.emulator.control.users.add({ username: "dana", password: "Dana12345" });
    h.emulator.control.projects.pushArtifact("filters", "web", { tag: "2.0", username: "dana" });
    later();
    const json = async (...args: string[]) =>
      JSON.parse(
        ok(await run(["project", "audit-logs", "filters", ...args, "-o", "json"])).stdout,
      ) as Entry[];

    expect((await json("--user", "dana")).map((e) => e.resource)).toEqual(["filters/web:2.0"]);
    expect((await json("--resource-type", "robot", "--operation", "delete")).map((e) => e.operation)).toEqual(
      ["delete"],
    );
    expect(await json("--limit", "2")).toHaveLength(2);
    expect(await json("--until", "2001-01-01")).toEqual([]);
    expect(ok(await run(["project", "audit-logs", "filters", "--until", "2001-01-01"])).stdout).toBe(
      "no audit log entries match\n",
    );
  });

  test("audit-log list: every project's entries from the same log, with the same filters", async () => {
    await seed("other");
    const listed = `${extended ? "listAuditLogExts" : "listAuditLogs"} GET 200`;
    const before =
      h.emulator.counters.list().find((r) => `${r.op} ${r.method} ${r.status}` === listed)?.count ?? 0;
    const json = async (...args: string[]) =>
      JSON.parse(ok(await run(["audit-log", "list", ...args, "-o", "json"])).stdout) as Entry[];
    const projects = await json("--resource-type", "project");
    expect(projects.map((e) => `${e.operation} ${e.resource_type} ${e.resource}`)).toEqual([
      "create project other",
      "create project filters",
      "create project shop",
    ]);
    expect((await json("--resource-type", "artifact", "--limit", "1")).map((e) => e.resource)).toEqual([
      "other/api:1.0",
    ]);
    expect(ok(await run(["audit-log", "list", "--until", "2001-01-01"])).stdout).toBe(
      "no audit log entries match\n",
    );
    const after =
      h.emulator.counters.list().find((r) => `${r.op} ${r.method} ${r.status}` === listed)?.count ?? 0;
    expect(after - before).toBe(3);
  });

  test("audit-log event-types: Harbor's list from 2.13; before, a clear error", async () => {
    const r = await run(["audit-log", "event-types"]);
    if (extended) {
      expect(ok(r).stdout).toMatch(
        /^EVENT TYPE\ncreate_artifact\ndelete_artifact\npull_artifact\ncreate_project\n/,
      );
      expect(r.stdout.trim().split("\n")).toHaveLength(15);
    } else
      expectCleanFailure(
        r,
        1,
        /this Harbor has no audit-log event types \(Harbor 2\.13 added them\); its audit log and purge name operations: create, delete, pull/,
      );
  });

  test("a project that does not exist is Harbor's 404 for the project, not a missing route", async () => {
    const r = await run(["project", "audit-logs", "nope"]);
    expectCleanFailure(r, 1, /HTTP 404 NOT_FOUND: project nope not found/);
    expect(r.stderr).toContain(read);
  });
});
