import { beforeAll, describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { harborError, harborErrorOf, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

// Harbor pings an adapter before it registers it: only URLs where a test put one can be registered.
beforeAll(() => {
  for (const host of [
    "first.example.com:8080",
    "second.example.com:8080",
    "located.example.com",
    "newest.example.com",
    "off.example.com",
    "upd.example.com",
    "keyed.example.com",
    "other.example.com",
    "alive.example.com",
    "doomed.example.com",
    "own.example.com",
  ]) {
    h.emulator.control.scanners.addAdapter(`http://${host}`);
  }
});

// Tests run in order: the first ones see a Harbor without any scanner (installed without Trivy).
describe("scanners", () => {
  test("with no scanner at all, a project's scanner is a 200 with an empty body", async () => {
    const res = await h.raw("GET", "/projects/library/scanner", undefined, {
      headers: { "x-is-resource-name": "true" },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect(await h.admin.scanners.getOfProject("library")).toBeUndefined();
  });

  test("the first registration becomes the default; later ones do not", async () => {
    const first = await h.admin.scanners.create({ name: "first", url: "http://first.example.com:8080/" });
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    const second = await h.admin.scanners.create({ name: "second", url: "http://second.example.com:8080" });
    expect((await h.admin.scanners.get(first)).is_default).toBe(true);
    expect((await h.admin.scanners.get(second)).is_default).toBe(false);
    // URL normalised: trailing "/" trimmed.
    expect((await h.admin.scanners.get(first)).url).toBe("http://first.example.com:8080");
  });

  test("201 with a path-only Location ending in the UUID", async () => {
    const res = await h.raw("POST", "/scanners", { name: "located", url: "located.example.com" });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/api\/v2\.0\/scanners\/[0-9a-f-]{36}$/);
    const uuid = location.split("/").pop() ?? "";
    // No scheme given: http:// is added.
    expect((await h.admin.scanners.get(uuid)).url).toBe("http://located.example.com");
  });

  test("list: default first, then newest first, whatever sort asks for; raw filters", async () => {
    h.emulator.control.clock.advance(1000);
    const newest = await h.admin.scanners.create({ name: "newest", url: "http://newest.example.com" });
    const all = await h.admin.scanners.list({ sort: "name" });
    expect(all[0]?.name).toBe("first");
    expect(all[1]?.uuid).toBe(newest);
    const times = all.slice(1).map((s) => s.create_time ?? "");
    expect(times).toEqual([...times].sort().reverse());

    expect((await h.admin.scanners.list({ name: "SEC" })).map((s) => s.name)).toEqual(["second"]);
    expect((await h.admin.scanners.list({ exName: "newes" })).map((s) => s.name)).toEqual([]);
    expect((await h.admin.scanners.list({ exName: "newest" })).map((s) => s.name)).toEqual(["newest"]);
    expect((await h.admin.scanners.list({ url: "second.example" })).map((s) => s.name)).toEqual(["second"]);
    expect((await h.admin.scanners.list({ q: q().fuzzy("name", "irs") })).map((s) => s.name)).toEqual([
      "first",
    ]);

    const res = await h.raw("GET", "/scanners?page=1&page_size=1");
    expect(res.headers.get("x-total-count")).toBe(String(all.length));
    expect(res.headers.get("link")).toBe('</api/v2.0/scanners?page=2&page_size=1>; rel="next"');
  });

  test("always-emitted fields stay in the JSON even when false or empty; capabilities are filled", async () => {
    const [def] = await h.admin.scanners.list();
    const res = await h.raw("GET", `/scanners/${def?.uuid}`);
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({
      description: "",
      disabled: false,
      is_default: true,
      auth: "",
      access_credential: "",
      skip_certVerify: false,
      use_internal_addr: false,
      capabilities: { support_vulnerability: true, support_sbom: true },
    });
    // Health and adapter details are only filled on the project-scanner path.
    expect(body.health).toBeUndefined();
    expect(body.adapter).toBeUndefined();
  });

  test("PATCH is_default switches the default; false is a no-op; disabled or unknown is 404", async () => {
    const [first, second] = await Promise.all(
      ["first", "second"].map(async (n) => (await h.admin.scanners.list({ exName: n }))[0]),
    );
    await h.admin.scanners.setDefault(second?.uuid ?? "");
    expect((await h.admin.scanners.get(second?.uuid ?? "")).is_default).toBe(true);
    expect((await h.admin.scanners.get(first?.uuid ?? "")).is_default).toBe(false);
    expect((await h.admin.scanners.list())[0]?.uuid).toBe(second?.uuid);

    const noop = await h.raw("PATCH", `/scanners/${first?.uuid}`, { is_default: false });
    expect(noop.status).toBe(200);
    expect(noop.text).toBe("");
    expect((await h.admin.scanners.get(second?.uuid ?? "")).is_default).toBe(true);

    const disabled = await h.admin.scanners.create({
      name: "off",
      url: "http://off.example.com",
      disabled: true,
    });
    expect(await harborErrorOf(h.admin.scanners.setDefault(disabled))).toMatchObject({
      kind: "notFound",
      status: 404,
      harborMessage: `registration ${disabled} not found`,
    });
    expect(await harborErrorOf(h.admin.scanners.setDefault("no-such-uuid"))).toMatchObject({ status: 404 });
    await h.admin.scanners.setDefault(first?.uuid ?? "");
  });

  test("update replaces the settings; updating the default to disabled is a masked 500", async () => {
    const uuid = await h.admin.scanners.create({ name: "upd", url: "http://upd.example.com" });
    await h.admin.scanners.update(uuid, {
      name: "upd-2",
      url: "https://upd.example.com/",
      description: "renamed",
      auth: "Bearer",
      access_credential: "Bearer: token",
      skip_certVerify: true,
    });
    expect(await h.admin.scanners.get(uuid)).toMatchObject({
      name: "upd-2",
      url: "https://upd.example.com",
      description: "renamed",
      auth: "Bearer",
      skip_certVerify: true,
    });
    const [def] = await h.admin.scanners.list();
    const res = await h.raw("PUT", `/scanners/${def?.uuid}`, {
      name: def?.name,
      url: def?.url,
      disabled: true,
    });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text).errors[0]).toEqual({ code: "UNKNOWN", message: "internal server error" });
  });

  test("validation: reserved name Trivy, auth values, credential required, URL scheme", async () => {
    expect(
      await harborErrorOf(h.admin.scanners.create({ name: "Trivy", url: "http://t.example.com" })),
    ).toMatchObject(harborError(400, 'name "Trivy" is reserved, please try a different name'));
    for (const auth of ["Basic", "Bearer", "APIKey"] as const) {
      expect(
        await harborErrorOf(
          h.admin.scanners.create({ name: `a-${auth}`, url: `http://${auth}.example.com`, auth }),
        ),
      ).toMatchObject({
        status: 400,
        harborMessage: `access_credential is required for auth type ${auth}`,
      });
    }
    const key = await h.admin.scanners.create({
      name: "keyed",
      url: "http://keyed.example.com",
      auth: "APIKey",
      access_credential: "k-1",
    });
    expect((await h.admin.scanners.get(key)).auth).toBe("APIKey");
    // The swagger's text names another value; the code accepts only the three above.
    const res = await h.raw("POST", "/scanners", {
      name: "hdr",
      url: "http://hdr.example.com",
      auth: "X-ScannerAdapter-API-Key",
      access_credential: "k",
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors[0].message).toBe(
      "auth type X-ScannerAdapter-API-Key is not supported",
    );
    expect(
      await harborErrorOf(h.admin.scanners.create({ name: "ftp", url: "ftp://ftp.example.com" })),
    ).toMatchObject({
      status: 400,
      harborMessage: "scanner registration validate: invalid HTTP scheme: ftp",
    });
    expect((await h.raw("POST", "/scanners", { name: "no-url" })).status).toBe(422);
  });

  test("name and URL are each unique: 409", async () => {
    const byName = await harborErrorOf(
      h.admin.scanners.create({ name: "second", url: "http://other.example.com" }),
    );
    expect(byName).toMatchObject(harborError(409, "registration name or url already exists"));
    // The same URL once normalised.
    const byUrl = await harborErrorOf(
      h.admin.scanners.create({ name: "again", url: "second.example.com:8080/" }),
    );
    expect(byUrl).toMatchObject({ status: 409, harborMessage: "registration name or url already exists" });
  });

  test("create pings the adapter: an unreachable one is a masked 500; ping reports it too", async () => {
    const url = "http://dead-scanner.example.com";
    h.emulator.control.scanners.setAdapterReachable(url, false);
    const res = await h.raw("POST", "/scanners", { name: "dead", url });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text).errors[0]).toEqual({ code: "UNKNOWN", message: "internal server error" });
    const noRetry = h.client({ maxRetries: 0 });
    expect(await harborErrorOf(noRetry.scanners.ping({ name: "dead", url }))).toMatchObject({
      kind: "server",
      status: 500,
    });
    // Where no adapter was ever put, nothing answers either: not every URL is a healthy Trivy.
    const nowhere = "http://no-adapter-here.example.com";
    const created = await h.raw("POST", "/scanners", { name: "nowhere", url: nowhere });
    expect(created.status).toBe(500);
    expect(JSON.parse(created.text).errors[0]).toEqual({ code: "UNKNOWN", message: "internal server error" });
    expect((await h.raw("POST", "/scanners/ping", { name: "nowhere", url: nowhere })).status).toBe(500);
    expect((await h.admin.scanners.list({ exName: "nowhere" })).length).toBe(0);
    await h.admin.scanners.ping({ name: "alive", url: "http://alive.example.com" });
    expect(
      await harborErrorOf(h.admin.scanners.ping({ name: "x", url: "http://x.example.com", auth: "Basic" })),
    ).toMatchObject({
      status: 400,
      harborMessage: "access_credential is required for auth type Basic",
    });
  });

  test("capabilities always carry both flags; a capability without a type is a vulnerability scanner", async () => {
    const scanner = { name: "Old", vendor: "Old Inc.", version: "0.1" };
    const mime = { consumes_mime_types: ["a"], produces_mime_types: ["b"] };
    h.emulator.control.scanners.addAdapter("http://vuln-only.example.com", {
      scanner,
      capabilities: [{ type: "vulnerability", ...mime }],
      properties: {},
    });
    h.emulator.control.scanners.addAdapter("http://untyped.example.com", {
      scanner,
      capabilities: [{ type: "", ...mime }],
      properties: {},
    });
    const vulnOnly = await h.admin.scanners.create({
      name: "vuln-only",
      url: "http://vuln-only.example.com",
    });
    const untyped = await h.admin.scanners.create({ name: "untyped", url: "http://untyped.example.com" });
    const raw = async (uuid: string) => JSON.parse((await h.raw("GET", `/scanners/${uuid}`)).text);
    expect((await raw(vulnOnly)).capabilities).toEqual({ support_vulnerability: true, support_sbom: false });
    expect((await raw(untyped)).capabilities).toEqual({ support_vulnerability: true, support_sbom: false });
    const [def] = await h.admin.scanners.list();
    expect((await raw(def?.uuid ?? "")).capabilities).toEqual({
      support_vulnerability: true,
      support_sbom: true,
    });
    await h.admin.scanners.delete(vulnOnly);
    await h.admin.scanners.delete(untyped);
  });

  test("metadata comes from the adapter; a failed ping leaves GET working, capabilities null", async () => {
    const url = "http://custom-scanner.example.com";
    h.emulator.control.scanners.setAdapter(url, {
      metadata: {
        scanner: { name: "Acme", vendor: "Acme Inc.", version: "1.2.3" },
        capabilities: [{ type: "vulnerability", consumes_mime_types: ["a"], produces_mime_types: ["b"] }],
        properties: { "acme/mode": "fast" },
      },
    });
    const uuid = await h.admin.scanners.create({ name: "acme", url });
    expect(await h.admin.scanners.getMetadata(uuid)).toEqual({
      scanner: { name: "Acme", vendor: "Acme Inc.", version: "1.2.3" },
      capabilities: [{ type: "vulnerability", consumes_mime_types: ["a"], produces_mime_types: ["b"] }],
      properties: { "acme/mode": "fast" },
    });
    expect((await h.admin.scanners.get(uuid)).capabilities).toEqual({
      support_vulnerability: true,
      support_sbom: false,
    });

    h.emulator.control.scanners.setAdapterReachable(url, false);
    // go-swagger sends the unset map as null; the client reads it as absent.
    expect(JSON.parse((await h.raw("GET", `/scanners/${uuid}`)).text).capabilities).toBeNull();
    const got = await h.admin.scanners.get(uuid);
    expect(got.name).toBe("acme");
    expect(got.capabilities).toBeUndefined();
    const noRetry = h.client({ maxRetries: 0 });
    expect(await harborErrorOf(noRetry.scanners.getMetadata(uuid))).toMatchObject({ status: 500 });
    expect(await harborErrorOf(h.admin.scanners.getMetadata("nope"))).toMatchObject({
      status: 404,
      harborMessage: "registration nope not found",
    });
    h.emulator.control.scanners.setAdapterReachable(url, true);
  });

  test("DELETE answers with the deleted registration (capabilities null); a missing one is 404", async () => {
    const uuid = await h.admin.scanners.create({
      name: "doomed",
      url: "http://doomed.example.com",
      description: "bye",
    });
    const raw = await h.raw("DELETE", `/scanners/${uuid}`);
    expect(raw.status).toBe(200);
    const body = JSON.parse(raw.text);
    expect(body).toHaveProperty("capabilities", null);
    expect(body).toMatchObject({ uuid, name: "doomed" });
    // The client reads that null as absent.
    const again = await h.admin.scanners.create({
      name: "doomed",
      url: "http://doomed.example.com",
      description: "bye",
    });
    const deleted = await h.admin.scanners.delete(again);
    expect(deleted.capabilities).toBeUndefined();
    const uuidGone = again;
    expect(deleted).toMatchObject({
      uuid: uuidGone,
      name: "doomed",
      description: "bye",
      url: "http://doomed.example.com",
    });
    expect(await harborErrorOf(h.admin.scanners.get(uuidGone))).toMatchObject(
      harborError(404, `scanner ${uuidGone} not found`),
    );
    expect(await harborErrorOf(h.admin.scanners.delete(uuidGone))).toMatchObject({ status: 404 });
  });

  test("project scanner: own scanner, else the default, with health and adapter details", async () => {
    const [def] = await h.admin.scanners.list();
    const fallback = await h.admin.scanners.getOfProject("library");
    expect(fallback).toMatchObject({
      uuid: def?.uuid,
      is_default: true,
      health: "healthy",
      adapter: "Trivy",
      vendor: "Aqua Security",
      // Like GET /scanners/{id}, the project path carries the capabilities.
      capabilities: { support_vulnerability: true, support_sbom: true },
    });
    expect(fallback?.version).toBeTruthy();

    const own = await h.admin.scanners.create({ name: "own", url: "http://own.example.com" });
    await h.admin.scanners.setOfProject("library", own);
    expect((await h.admin.scanners.getOfProject(1))?.uuid).toBe(own);

    h.emulator.control.scanners.setAdapterReachable("http://own.example.com", false);
    const unhealthy = await h.admin.scanners.getOfProject("library");
    expect(unhealthy).toMatchObject({ uuid: own, health: "unhealthy" });
    expect(unhealthy?.adapter).toBeUndefined();
    h.emulator.control.scanners.setAdapterReachable("http://own.example.com", true);

    // A deleted project scanner falls back to the default again.
    await h.admin.scanners.delete(own);
    expect((await h.admin.scanners.getOfProject("library"))?.uuid).toBe(def?.uuid);

    const candidates = await h.admin.scanners.listCandidatesOfProject("library");
    expect(candidates.map((s) => s.uuid)).toEqual((await h.admin.scanners.list()).map((s) => s.uuid));
    expect(await harborErrorOf(h.admin.scanners.getOfProject("no-such-project"))).toMatchObject({
      status: 404,
      harborMessage: "project no-such-project not found",
    });
    expect(
      (
        await h.raw(
          "PUT",
          "/projects/library/scanner",
          { uuid: "" },
          { headers: { "x-is-resource-name": "true" } },
        )
      ).status,
    ).toBe(422);
  });

  test("project scanner permissions follow the project roles", async () => {
    h.addUser("dev");
    h.addUser("boss");
    h.addUser("stranger", "Str12345");
    const p = h.emulator.world.projects.insert({
      name: "team",
      ownerId: 1,
      metadata: { public: "false" },
      storageLimit: -1,
    });
    h.emulator.control.users.setMember("team", "dev", "developer");
    h.emulator.control.users.setMember("team", "boss", "projectAdmin");
    const [def] = await h.admin.scanners.list();
    const dev = h.client({ username: "dev", password: "Dev12345" });
    const boss = h.client({ username: "boss", password: "Boss12345" });
    const stranger = h.client({ username: "stranger", password: "Str12345" });

    expect((await dev.scanners.getOfProject("team"))?.uuid).toBe(def?.uuid);
    expect(await harborErrorOf(dev.scanners.setOfProject("team", def?.uuid ?? ""))).toMatchObject({
      kind: "forbidden",
      status: 403,
      harborMessage: "forbidden",
    });
    expect(await harborErrorOf(dev.scanners.listCandidatesOfProject("team"))).toMatchObject({ status: 403 });
    await boss.scanners.setOfProject(p.project_id, def?.uuid ?? "");
    expect((await boss.scanners.listCandidatesOfProject("team")).length).toBeGreaterThan(0);
    expect(await harborErrorOf(stranger.scanners.getOfProject("team"))).toMatchObject({ status: 403 });
    // An unknown project is 403 for non-admins.
    expect(await harborErrorOf(stranger.scanners.getOfProject("ghost"))).toMatchObject({ status: 403 });
    // Registrations themselves are system scope: the username is the message.
    expect(await harborErrorOf(boss.scanners.list())).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      harborMessage: "boss",
    });
    expect(
      await harborErrorOf(boss.scanners.create({ name: "b", url: "http://b.example.com" })),
    ).toMatchObject({
      status: 403,
    });
  });

  test("the built-in Trivy registration is immutable and becomes the default", async () => {
    const trivy = h.emulator.control.scanners.installTrivy();
    const got = await h.admin.scanners.get(trivy);
    expect(got).toMatchObject({
      name: "Trivy",
      is_default: true,
      use_internal_addr: true,
      url: "http://trivy-adapter:8080",
    });
    expect((await h.admin.scanners.list())[0]?.uuid).toBe(trivy);
    expect(
      await harborErrorOf(
        h.admin.scanners.update(trivy, { name: "Trivy", url: "http://trivy-adapter:8080" }),
      ),
    ).toMatchObject(
      harborError(403, "registration Trivy is not allowed to update as it is immutable: scanner API: update"),
    );
    expect(await harborErrorOf(h.admin.scanners.delete(trivy))).toMatchObject({
      status: 403,
      harborMessage: "registration Trivy is not allowed to delete as it is immutable: scanner API: delete",
    });
    // Renaming another registration to the reserved name is refused as well.
    const [, other] = await h.admin.scanners.list();
    expect(
      await harborErrorOf(
        h.admin.scanners.update(other?.uuid ?? "", { name: "Trivy", url: other?.url ?? "" }),
      ),
    ).toMatchObject({
      status: 400,
      harborMessage: 'name "Trivy" is reserved, please try a different name',
    });
  });

  test("writes leave audit entries", () => {
    const ops = h.emulator.control.audit
      .list()
      .filter((e) => e.resource_type === "scanner")
      .map((e) => e.operation);
    expect(ops).toEqual(expect.arrayContaining(["create", "update", "delete"]));
  });
});
