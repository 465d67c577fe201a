// The client's requests whose shape follows the Harbor release, against the emulator of each line
// the operator supports: the audit-log purge's event types (GET /auditlog-exts/events, and
// include_event_types in place of include_operations from 2.13), a preheat policy's scope (`scope`
// up to 2.12, `extra_attrs` from 2.13), and the preheat-instance credential reads leave out from
// 2.14.4. What the emulator answers per release is versions.test.ts's; this file holds the client
// to it.
import { describe, expect, test } from "vitest";
import { harborError, harborFailure, useEmulator } from "../../env/harbor.ts";

const RELEASES = ["2.12.4", "2.13.5", "2.14.4", "2.15.2"] as const;

/** Whether `release` is `first` or newer. */
const since = (release: string, first: string) => {
  const [a = 0, b = 0, c = 0] = release.split(".").map(Number);
  const [x = 0, y = 0, z = 0] = first.split(".").map(Number);
  return a !== x ? a > x : b !== y ? b > y : c >= z;
};

describe.each(RELEASES)("Harbor %s", (release) => {
  const h = useEmulator({ harborVersion: release });
  const eventTypes = since(release, "2.13");

  test("auditLogs.eventTypes: Harbor's list from 2.13, a route not found before", async () => {
    if (eventTypes) {
      const types = await h.admin.auditLogs.eventTypes();
      expect(types).toHaveLength(14);
      expect(types.slice(0, 3)).toEqual(["create_artifact", "delete_artifact", "pull_artifact"]);
    } else {
      expect(await harborFailure(h.admin.auditLogs.eventTypes())).toMatchObject(
        harborError(404, "path /api/v2.0/auditlog-exts/events was not found"),
      );
    }
  });

  test("purge schedule: the release's key is taken and shown as sent", async () => {
    const parameters = eventTypes
      ? { audit_retention_hour: 24, include_event_types: "create_artifact,pull_artifact", dry_run: false }
      : { audit_retention_hour: 24, include_operations: "create,pull", dry_run: false };
    await h.admin.purge.updateSchedule({ schedule: { type: "Daily", cron: "0 0 0 * * *" }, parameters });
    const stored = await h.admin.purge.getSchedule();
    expect(JSON.parse(stored?.job_parameters ?? "{}")).toEqual(parameters);
    await h.admin.purge.updateSchedule({ schedule: { type: "None" }, parameters });
    expect(await h.admin.purge.getSchedule()).toBeUndefined();
  });

  test("preheat policy: the scope as `scope` up to 2.12, in extra_attrs from 2.13; credentials unread from 2.14.4", async () => {
    const endpoint = "http://127.0.0.1:65021";
    h.emulator.control.preheat.addProvider(endpoint);
    const login = { username: "harbor", password: "p2p-password" };
    await h.admin.preheat.createInstance({
      name: "p2p",
      vendor: "dragonfly",
      endpoint,
      auth_mode: "BASIC",
      auth_info: login,
      enabled: true,
      default: false,
      insecure: false,
    });
    const instance = await h.admin.preheat.getInstance("p2p");
    if (since(release, "2.14.4")) expect(instance.auth_info).toBeUndefined();
    else expect(instance.auth_info).toEqual(login);

    await h.admin.projects.create({ project_name: "warm", metadata: {} });
    await h.admin.preheat.createPolicy("warm", {
      name: "p1",
      provider_id: instance.id ?? 0,
      filters: JSON.stringify([{ type: "repository", value: "**" }]),
      trigger: JSON.stringify({ type: "manual" }),
      enabled: true,
      ...(eventTypes ? { extra_attrs: JSON.stringify({ scope: "all_seed_peers" }) } : { scope: "all_peers" }),
    });
    const policy = await h.admin.preheat.getPolicy("warm", "p1");
    if (eventTypes) {
      expect(policy.extra_attrs).toBe('{"scope":"all_seed_peers"}');
      expect(policy.scope).toBeUndefined();
    } else {
      expect(policy.scope).toBe("all_peers");
      expect(policy.extra_attrs).toBeUndefined();
    }
  });
});
