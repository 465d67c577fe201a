import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { RobotPermissionInput } from "../../../src/harbor/robots.ts";
import { budget } from "../../env/budget.ts";
import { basicAuth, projectRobot, rejectionOf, useEmulator } from "../../env/harbor.ts";
import { pullAccess, RegistryAuthError, tokenAccess } from "../../env/registry-auth.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });

const robot = (name: string, project: string, access: RobotPermissionInput["access"]) =>
  h.admin.robots.create(projectRobot(name, project, access));

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

const rejected = (p: Promise<unknown>) => rejectionOf(p, RegistryAuthError);

/** The documented pull-secret check (docs/kinds/harbor-robot.md): its curl line that asks /service/token without a scope. */
function readmeCheck(): string {
  const readme = readFileSync(
    join(import.meta.dirname, "..", "..", "..", "docs", "kinds", "harbor-robot.md"),
    "utf8",
  );
  const line = readme
    .split("\n")
    .find((l) => l.startsWith("curl ") && l.includes("/service/token") && !l.includes("scope="));
  if (!line) throw new Error("docs/kinds/harbor-robot.md has no curl check of /service/token");
  return line;
}

/**
 * Runs a check line as a shell would, with $harbor, $user and $pass set; resolves with what it
 * printed (the HTTP status). Not spawnSync: the emulator answering it runs in this process.
 */
function statusOf(line: string, harbor: string, user: string, pass: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      "sh",
      ["-c", line],
      { env: { ...process.env, harbor, user, pass }, timeout: budget.requestMs },
      (_e, out) => resolve(String(out).trim()),
    );
  });
}

beforeAll(async () => {
  await h.admin.projects.create({ project_name: "private" });
  await h.admin.projects.create({ project_name: "open", metadata: { public: "true" } });
});

describe("registry auth (token service)", () => {
  test("GET /v2/ challenges anonymous callers with the token realm", async () => {
    const res = await fetch(`${h.emulator.url}/v2/`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="${h.emulator.url}/service/token",service="harbor-registry"`,
    );
    expect(await res.json()).toEqual({
      errors: [{ code: "UNAUTHORIZED", message: "authentication required", detail: null }],
    });
    const authed = await fetch(`${h.emulator.url}/v2/`, {
      headers: basicAuth("admin", h.emulator.adminPassword),
    });
    expect(authed.status).toBe(200);
  });

  test("a pull robot's secret grants pull on its project, nothing elsewhere", async () => {
    const r = await robot("puller", "private", [{ resource: "repository", action: "pull" }]);
    expect(await pullAccess(h.emulator.url, r.name, r.secret, "private/app")).toEqual(["pull"]);
    await h.admin.projects.create({ project_name: "other" });
    expect(await pullAccess(h.emulator.url, r.name, r.secret, "other/app")).toEqual([]);
    expect(await pullAccess(h.emulator.url, r.name, r.secret, "open/app")).toEqual(["pull"]);
    expect(await pullAccess(h.emulator.url, r.name, r.secret, "missing/app")).toEqual([]);
  });

  test("the token lists every action the caller may perform, whatever was asked", async () => {
    const r = await robot("pusher", "private", [
      { resource: "repository", action: "pull" },
      { resource: "repository", action: "push" },
    ]);
    const access = await tokenAccess(h.emulator.url, r.name, r.secret, [
      "repository:private/app:pull",
      "repository:private/app/nested:push",
      "registry:catalog:*",
    ]);
    expect(access).toEqual([
      { type: "repository", name: "private/app", actions: ["pull", "push"] },
      { type: "repository", name: "private/app/nested", actions: ["pull", "push"] },
      { type: "registry", name: "catalog", actions: [] },
    ]);
    const admin = await tokenAccess(h.emulator.url, "admin", h.emulator.adminPassword, [
      "repository:private/app:pull",
    ]);
    expect(admin[0]?.actions).toEqual(["pull", "push", "delete", "scanner-pull", "*"]);
  });

  test("users get their role's repository actions", async () => {
    h.addUser("dev");
    h.addUser("guest");
    h.addUser("outsider");
    h.emulator.control.users.setMember("private", "dev", "developer");
    h.emulator.control.users.setMember("private", "guest", "guest");
    expect(await pullAccess(h.emulator.url, "dev", "Dev12345", "private/app")).toEqual(["pull", "push"]);
    expect(await pullAccess(h.emulator.url, "guest", "Guest12345", "private/app")).toEqual(["pull"]);
    expect(await pullAccess(h.emulator.url, "outsider", "Outsider12345", "private/app")).toEqual([]);
  });

  test("rejected credentials: 401 for a login without scope, anonymous access with one", async () => {
    const r = await robot("rotated", "private", [{ resource: "repository", action: "pull" }]);
    const wrong = await rejected(pullAccess(h.emulator.url, r.name, `${r.secret}x`, "private/app"));
    expect(wrong.status).toBe(401);
    expect(wrong.message).not.toContain(r.secret);

    // Like Harbor, a scoped request with wrong credentials is served as anonymous.
    const anon = await tokenAccess(h.emulator.url, r.name, "wrong", [
      "repository:private/app:pull",
      "repository:open/app:pull",
    ]);
    expect(anon.map((a) => a.actions)).toEqual([[], ["pull"]]);

    // A refreshed secret works at once; the old one stops working.
    const { secret } = await h.admin.robots.refreshSecret(r.id);
    expect(await pullAccess(h.emulator.url, r.name, secret ?? "", "private/app")).toEqual(["pull"]);
    expect((await rejected(pullAccess(h.emulator.url, r.name, r.secret, "private/app"))).status).toBe(401);

    h.emulator.control.robots.disable(r.id);
    expect((await rejected(pullAccess(h.emulator.url, r.name, secret ?? "", "private/app"))).status).toBe(
      401,
    );
  });

  test("the documented pull-secret check passes for the secret and fails for a wrong one", async () => {
    const r = await robot("readme", "private", [{ resource: "repository", action: "pull" }]);
    const check = readmeCheck();
    const url = h.emulator.url;
    expect(await statusOf(check, url, r.name, r.secret)).toBe("200");
    expect(await statusOf(check, url, r.name, `${r.secret}x`)).toBe("401");
    expect(await statusOf(check, url, r.name, "")).toBe("401");
    // The tests' helper logs in the same way first.
    expect((await rejected(pullAccess(url, r.name, `${r.secret}x`, "private/app"))).status).toBe(401);

    // Why the check has no scope: with one, Harbor hands any secret an anonymous token.
    const scoped = check.replace(
      "service=harbor-registry",
      "service=harbor-registry&scope=repository:private/app:pull",
    );
    expect(await statusOf(scoped, url, r.name, `${r.secret}x`)).toBe("200");
  });

  test("a deny effect wins over an allow", async () => {
    const r = await robot("denied", "private", [
      { resource: "repository", action: "pull" },
      { resource: "repository", action: "push" },
      { resource: "repository", action: "pull", effect: "deny" },
    ]);
    expect(await pullAccess(h.emulator.url, r.name, r.secret, "private/app")).toEqual(["push"]);
  });

  test("the token is an RS256 JWT for harbor-registry, usable as a bearer on /v2/", async () => {
    const r = await robot("jwt", "private", [{ resource: "repository", action: "pull" }]);
    const res = await fetch(
      `${h.emulator.url}/service/token?service=harbor-registry&scope=${encodeURIComponent("repository:private/app:pull")}`,
      { headers: basicAuth(r.name, r.secret) },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; expires_in: number; issued_at: string };
    expect(Object.keys(body).sort()).toEqual(["expires_in", "issued_at", "token"]);
    expect(body.expires_in).toBe(1800);
    expect(body.issued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const header = JSON.parse(
      Buffer.from(body.token.split(".")[0] ?? "", "base64url").toString("utf8"),
    ) as Record<string, string>;
    expect(header).toMatchObject({ typ: "JWT", alg: "RS256" });
    expect(header.kid).toMatch(/^([A-Z2-7]{4}:){11}[A-Z2-7]{4}$/);
    const c = claims(body.token);
    expect(c).toMatchObject({
      iss: "harbor-token-issuer",
      sub: r.name,
      aud: "harbor-registry",
      access: [{ type: "repository", name: "private/app", actions: ["pull"] }],
    });
    expect((c.exp as number) - (c.iat as number)).toBe(1800);

    const ping = await fetch(`${h.emulator.url}/v2/`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(ping.status).toBe(200);
    const forged = `${body.token.slice(0, -4)}AAAA`;
    expect(
      (await fetch(`${h.emulator.url}/v2/`, { headers: { authorization: `Bearer ${forged}` } })).status,
    ).toBe(401);
  });

  test("anonymous: 401 without a scope, public pull with one; unknown services 400", async () => {
    const login = await fetch(`${h.emulator.url}/service/token?service=harbor-registry`);
    expect(login.status).toBe(401);
    expect(await login.text()).toBe("");
    const anon = await fetch(
      `${h.emulator.url}/service/token?service=harbor-registry&scope=${encodeURIComponent("repository:open/app:pull,push")}`,
    );
    const token = ((await anon.json()) as { token: string }).token;
    expect(claims(token)).toMatchObject({
      sub: "",
      access: [{ type: "repository", name: "open/app", actions: ["pull"] }],
    });
    const other = await fetch(`${h.emulator.url}/service/token?service=harbor-notary`, {
      headers: basicAuth("admin", h.emulator.adminPassword),
    });
    expect(other.status).toBe(400);
    expect(await other.text()).toBe("Unable to handle service: harbor-notary");
  });
});
