// What a running Harbor v2.12.4 was seen doing across areas (HARBOR-API.md §10), on the wire: ids
// beyond int4, the login freeze after a wrong password, go-openapi's and Go's error texts, the CSRF
// text, systeminfo's always-present OIDC provider name. Area-specific items live in each area's file.
import { describe, expect, test } from "vitest";
import { identify } from "../../env/emulator/auth.ts";
import { basicAuth, firstError, useEmulator } from "../../env/harbor.ts";
import { untilTrue } from "../../env/until.ts";

const h = useEmulator();

const INT4_MAX = 2 ** 31 - 1;

describe("ids are int4", () => {
  test.each([
    ["a label", "/labels/{id}"],
    ["a robot", "/robots/{id}"],
    ["a user group", "/usergroups/{id}"],
    ["a registry", "/registries/{id}"],
    ["a replication policy", "/replication/policies/{id}"],
    ["a replication execution", "/replication/executions/{id}"],
    ["a webhook policy", "/projects/library/webhook/policies/{id}"],
    ["a GC run", "/system/gc/{id}"],
    ["a project", "/projects/{id}"],
  ])("%s id of 2^31 is a masked 500; 2^31-1 the usual 404", async (_what, template) => {
    const big = await h.api(template.replace("{id}", String(INT4_MAX + 1)), {
      headers: { "x-is-resource-name": template.includes("library") ? "true" : "false" },
    });
    expect(big.status).toBe(500);
    expect(await firstError(big)).toEqual({ code: "UNKNOWN", message: "internal server error" });
    const max = await h.api(template.replace("{id}", String(INT4_MAX)), {
      headers: { "x-is-resource-name": template.includes("library") ? "true" : "false" },
    });
    expect(max.status).toBe(404);
  });

  test("every method fails the same way, and a digits-only project name that large is an id", async () => {
    expect((await h.raw("DELETE", `/labels/${INT4_MAX + 1}`)).status).toBe(500);
    expect((await h.raw("PUT", `/usergroups/${INT4_MAX + 1}`, { group_name: "x" })).status).toBe(500);
    expect((await h.raw("GET", `/projects/${2 ** 40}/summary`)).status).toBe(500);
    // Named as a name, it is looked up as one.
    const byName = await h.api(`/projects/${INT4_MAX + 1}`, { headers: { "x-is-resource-name": "true" } });
    expect(byName.status).toBe(404);
  });

  test("an anonymous caller is turned away first (401)", async () => {
    const res = await fetch(`${h.emulator.url}/api/v2.0/registries/${INT4_MAX + 1}`);
    expect(res.status).toBe(401);
  });
});

describe("a failed password login freezes its principal", () => {
  test("the wrong password is answered after 1.5 s; the right one meanwhile gets 401", async () => {
    h.addUser("frozen", "Right-pw1");
    const call = (password: string) =>
      h.api("/users/current", {
        as: { username: "frozen", password },
      });
    expect((await call("Right-pw1")).status).toBe(200);

    const started = performance.now();
    const wrong = call("Wrong-pw1").then((r) => ({ status: r.status, ms: performance.now() - started }));
    await untilTrue("the wrong password to lock the user", () => h.emulator.control.users.locked("frozen"));
    const right = await call("Right-pw1");
    expect(right.status).toBe(401);
    const w = await wrong;
    expect(w.status).toBe(401);
    expect(w.ms).toBeGreaterThanOrEqual(1400);
    // Once the freeze is over, the right password works again, without delay.
    expect(h.emulator.control.users.locked("frozen")).toBe(false);
    expect((await call("Right-pw1")).status).toBe(200);
    expect(identify(h.emulator.world, basicAuth("frozen", "Right-pw1")).delayMs).toBe(0);
  });

  test("another principal is not affected; a robot's wrong secret is slow too", async () => {
    h.addUser("bystander", "Other-pw1");
    const wrong = h.api("/users/current", {
      as: { username: "admin", password: "not-the-password" },
    });
    await untilTrue("the wrong password to lock admin", () => h.emulator.control.users.locked("admin"));
    const other = await h.api("/users/current", {
      as: { username: "bystander", password: "Other-pw1" },
    });
    expect(other.status).toBe(200);
    expect((await wrong).status).toBe(401);

    // A robot name that fails as a robot falls through to the user login, which fails slowly.
    const started = performance.now();
    const robot = await h.api("/projects", {
      as: { username: "robot$nobody", password: "Nope-nope1" },
    });
    expect(robot.status).toBe(200); // anonymous: the public projects
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

describe("messages", () => {
  test("a body that decodes but fails its model's validation: the list within the list", async () => {
    const res = await h.api("/scanners", { method: "POST", body: JSON.stringify({ url: "http://x" }) });
    expect(res.status).toBe(422);
    expect(await firstError(res)).toEqual({
      code: "UNPROCESSABLE_ENTITY",
      message: "validation failure list:\nvalidation failure list:\nname in body is required",
    });
  });

  test("malformed JSON: Go's decoder text", async () => {
    const truncated = await h.api("/projects", { method: "POST", body: '{"project_name":' });
    expect(truncated.status).toBe(422);
    expect((await firstError(truncated)).message).toBe(
      'validation failure list:\nparsing project body from "" failed, because unexpected EOF',
    );
    const garbled = await h.api("/projects", { method: "POST", body: "{project_name: 1}" });
    expect((await firstError(garbled)).message).toBe(
      "validation failure list:\nparsing project body from \"\" failed, because invalid character 'p' looking for beginning of object key string",
    );
  });

  test("a JSON boolean in project metadata: Go's unmarshal text", async () => {
    const res = await h.api("/projects", {
      method: "POST",
      body: JSON.stringify({ project_name: "typed", metadata: { public: true } }),
    });
    expect(res.status).toBe(422);
    expect((await firstError(res)).message).toBe(
      'validation failure list:\nparsing project body from "" failed, because json: cannot unmarshal bool into Go struct field ProjectMetadata.metadata.public of type string',
    );
  });

  test("CSRF: a session cookie on a change without the token", async () => {
    const res = await h.api("/labels", {
      method: "POST",
      headers: { cookie: "sid=0123456789abcdef" },
      body: JSON.stringify({ name: "csrf", scope: "g" }),
    });
    expect(res.status).toBe(403);
    expect(await firstError(res)).toEqual({ code: "FORBIDDEN", message: "CSRF token not found in request" });
  });
});

describe("field presence", () => {
  test("systeminfo always has oidc_provider_name, empty when OIDC is not in use", async () => {
    const anonymous = (await (await fetch(`${h.emulator.url}/api/v2.0/systeminfo`)).json()) as Record<
      string,
      unknown
    >;
    expect(anonymous).toHaveProperty("oidc_provider_name", "");
    const admin = (await (await h.api("/systeminfo")).json()) as Record<string, unknown>;
    expect(admin).toHaveProperty("oidc_provider_name", "");
  });
});
