// A connection's check learns which Harbor release it talks to, on every supported release: up to
// 2.12 from the anonymous systeminfo, from 2.13 (which tells its version only to a caller that
// logged in) from a second systeminfo with the connection's credentials, robots included. A
// release older than the oldest supported is refused, before the credentials are sent where the
// anonymous answer already tells it; a newer one, or one that names no release, is worked with as
// the newest known, and the Ready message says so.
import { describe, expect, test } from "vitest";
import { readyInput } from "../../../src/controllers/connection/mapping.ts";
import { probe } from "../../../src/controllers/connection/probe.ts";
import { budget } from "../../env/budget.ts";
import { systemRobot, useEmulator } from "../../env/harbor.ts";

const ref = {
  namespace: "team-a",
  name: "harbor-credentials",
  usernameKey: "username",
  passwordKey: "password",
};

function checker(h: ReturnType<typeof useEmulator>) {
  return (username = h.emulator.adminUsername, password = h.emulator.adminPassword) =>
    probe({
      client: h.client({ username, password }),
      url: h.emulator.url,
      credentials: { ...ref, username, password },
      checks: { ldap: false, jobService: false },
      signal: new AbortController().signal,
      deadlineMs: 2 * budget.requestMs,
      callTimeoutMs: budget.requestMs,
    });
}

describe.each(["2.12.4", "2.13.5", "2.14.4", "2.15.2"])("Harbor %s", (version) => {
  const h = useEmulator({ harborVersion: version, loginFreezeMs: 0 });
  const check = checker(h);
  // From 2.13 the anonymous answer has no version: one systeminfo more, with the credentials.
  const systemInfoCalls = version === "2.12.4" ? 1 : 2;

  test("the check reports the release as Harbor does, and is Connected", async () => {
    const before = h.emulator.counters.total({ op: "getSystemInfo" });
    const result = await check();
    expect(result.failure).toBeUndefined();
    expect(result.harborVersion).toBe(h.emulator.world.version.display);
    expect(result.harborVersion).toMatch(new RegExp(`^v${version.replaceAll(".", "\\.")}-[0-9a-f]{8}$`));
    expect(h.emulator.counters.total({ op: "getSystemInfo" }) - before).toBe(systemInfoCalls);
    expect(readyInput(result).message).toBe(
      `Harbor ${result.harborVersion} at ${h.emulator.url} accepts the credentials of "admin"`,
    );
  });

  test("a robot account's check learns it too", async () => {
    const robot = await h.admin.robots.create(
      systemRobot(`probe-${version.replaceAll(".", "")}`, [{ resource: "project", action: "list" }]),
    );
    const result = await check(robot.name, robot.secret);
    expect(result.failure).toBeUndefined();
    expect(result.harborVersion).toBe(h.emulator.world.version.display);
    // Harbor names no user for a robot (412 on /users/current): the status names none either.
    expect(result.authenticatedAs).toBeUndefined();
    expect(readyInput(result).message).toBe(
      `Harbor ${result.harborVersion} at ${h.emulator.url} accepts the credentials (it names no user for them: a robot account)`,
    );
  });
});

describe("releases the operator does not know as such", () => {
  const h = useEmulator({ harborVersion: "2.15.2", loginFreezeMs: 0 });
  const check = checker(h);
  const reporting = async (text: string) => {
    h.emulator.control.system.setVersion(text);
    try {
      return await check();
    } finally {
      h.emulator.control.system.setVersion(h.emulator.world.version.display);
    }
  };

  test("older than 2.12: refused with the reason and the release, after the login that told it", async () => {
    const result = await reporting("v2.11.1-0a1b2c3d");
    expect(result.failure).toEqual({
      reason: "UnsupportedHarborVersion",
      message: `Harbor at ${new URL(h.emulator.url).host} is v2.11.1-0a1b2c3d: this operator supports Harbor 2.12 to 2.15 (and newer releases, as 2.15.3); nothing is done through this connection until Harbor is 2.12 or later`,
    });
    expect(result.harborVersion).toBe("v2.11.1-0a1b2c3d");
    expect(result.authenticatedAs).toBeUndefined();
  });

  test("newer than the newest known: Connected, treated as 2.15.3, and the message says so", async () => {
    const result = await reporting("v2.16.0-0a1b2c3d");
    expect(result.failure).toBeUndefined();
    expect(result.harborVersion).toBe("v2.16.0-0a1b2c3d");
    expect(readyInput(result).message).toMatch(
      /; 2\.16\.0 is newer than the newest release this operator knows \(2\.15\.3\): it is treated as 2\.15\.3$/,
    );
  });

  test("a build that names no release (dev): Connected, treated as the newest known", async () => {
    const result = await reporting("dev");
    expect(result.failure).toBeUndefined();
    expect(readyInput(result).message).toMatch(/; "dev" names no release: it is treated as 2\.15\.3$/);
  });
});

describe("an older release that tells anyone its version (as up to 2.12)", () => {
  const h = useEmulator({ harborVersion: "2.10.3", loginFreezeMs: 0 });
  const check = checker(h);

  test("is refused before the credentials are sent", async () => {
    const logins = h.emulator.counters.total({ op: "getCurrentUserInfo" });
    const result = await check();
    expect(result.failure?.reason).toBe("UnsupportedHarborVersion");
    expect(result.harborVersion).toBe(h.emulator.world.version.display);
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo" })).toBe(logins);
  });
});
