// A connection's check against Harbor's login freeze: a wrong password sent for the same user by
// someone else (a stale Secret, another connection) makes Harbor refuse the right one for 1.5 s.
// The check must not call good credentials bad for that, and must still call bad ones bad.
import { describe, expect, test } from "vitest";
import { readyInput } from "../../../src/controllers/connection/mapping.ts";
import { probe } from "../../../src/controllers/connection/probe.ts";
import { budget } from "../../env/budget.ts";
import { useEmulator } from "../../env/harbor.ts";
import { listenOnLoopback } from "../../env/http.ts";
import { untilTrue } from "../../env/until.ts";

const h = useEmulator();

const ref = {
  namespace: "team-a",
  name: "harbor-credentials",
  usernameKey: "username",
  passwordKey: "password",
};

function check(username: string, password: string) {
  return probe({
    client: h.client({ username, password }),
    url: h.emulator.url,
    credentials: { ...ref, username, password },
    checks: { ldap: false, jobService: false },
    signal: new AbortController().signal,
    deadlineMs: 2 * budget.requestMs,
    callTimeoutMs: budget.requestMs,
  });
}

describe("connection check during Harbor's login freeze", () => {
  test("good credentials that meet a freeze caused by a stale password are still Connected", async () => {
    h.addUser("ops", "Current-pw1");
    const stale = fetch(`${h.emulator.url}/api/v2.0/users/current`, {
      headers: { authorization: `Basic ${Buffer.from("ops:Previous-pw1").toString("base64")}` },
    });
    await untilTrue("the stale password to lock the user", () => h.emulator.control.users.locked("ops"));
    const before = h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 });
    const result = await check("ops", "Current-pw1");
    expect(result.failure).toBeUndefined();
    expect(result.authenticatedAs).toBe("ops");
    // The check did meet the freeze: one refused attempt besides the stale request's own.
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 }) - before).toBe(2);
    expect((await stale).status).toBe(401);
  });

  test("a wrong password is BadCredentials after the one retry; systeminfo never carries it", async () => {
    const before = h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 });
    const result = await check("ops", "Previous-pw1");
    expect(result.failure).toMatchObject({ reason: "BadCredentials" });
    expect(result.failure?.message).toBe(
      `Harbor at ${new URL(h.emulator.url).host} does not accept the username and password from Secret team-a/harbor-credentials`,
    );
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 }) - before).toBe(2);
  });
});

// A connection sends its Secret's values to the URL its author chose: whatever that server answers,
// the result (status, Ready message) holds nothing of the Secret but its name.
describe("a server of the connection author's choosing learns nothing back", () => {
  const USERNAME = "value-of-the-username-key";
  const PASSWORD = "value-of-the-password-key";
  test.each([
    ["refuses the credentials", 401, undefined],
    ["answers as for a robot account", 412, undefined],
    ["accepts them and names no user", 200, {}],
  ])("one that %s", async (_what, status, body) => {
    const server = await listenOnLoopback((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url?.startsWith("/api/v2.0/systeminfo"))
        return res.end(JSON.stringify({ harbor_version: "v2.15.2-0a1b2c3d", auth_mode: "db_auth" }));
      if (status === 200) return res.end(JSON.stringify(body));
      res.statusCode = status;
      res.end(
        JSON.stringify({
          errors: [{ code: status === 401 ? "UNAUTHORIZED" : "PRECONDITION", message: "no" }],
        }),
      );
    });
    try {
      const result = await probe({
        client: h.client({ url: server.url, username: USERNAME, password: PASSWORD, maxRetries: 0 }),
        url: server.url,
        credentials: { ...ref, username: USERNAME, password: PASSWORD },
        checks: { ldap: false, jobService: false },
        signal: new AbortController().signal,
        deadlineMs: 2 * budget.requestMs,
        callTimeoutMs: budget.requestMs,
      });
      expect(result.authenticatedAs).toBeUndefined();
      const shown = JSON.stringify({ result, ready: readyInput(result) });
      expect(shown).not.toContain(USERNAME);
      expect(shown).not.toContain(PASSWORD);
      expect(readyInput(result).reason).toBe(status === 401 ? "BadCredentials" : "Connected");
    } finally {
      await server.close();
    }
  });
});
