import { describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { REGISTRY_TYPES } from "../../env/emulator/areas/registries.ts";
import { harborError, harborErrorOf, useEmulator } from "../../env/harbor.ts";

// Every adapter whitelisted, so that 2.14+ lists them all as older releases do (what the whitelist
// leaves out is in versions.test.ts).
const h = useEmulator({ replicationAdapterWhitelist: REGISTRY_TYPES });

describe("registries", () => {
  test("provider types are Harbor's adapters, sorted; infos only for adapters with a pattern", async () => {
    expect(await h.admin.registries.listProviderTypes()).toEqual([
      "ali-acr",
      "aws-ecr",
      "azure-acr",
      "docker-hub",
      "docker-registry",
      "dtr",
      "github-ghcr",
      "gitlab",
      "google-gcr",
      "harbor",
      "huawei-SWR",
      "jfrog-artifactory",
      "quay",
      "tencent-tcr",
      "volcengine-cr",
    ]);
    const infos = await h.admin.registries.listProviderInfos();
    expect(Object.keys(infos).sort()).toEqual([
      "ali-acr",
      "aws-ecr",
      "docker-hub",
      "github-ghcr",
      "google-gcr",
      "quay",
      "tencent-tcr",
      "volcengine-cr",
    ]);
    expect(infos["docker-hub"]?.endpoint_pattern).toEqual({
      endpoint_type: "EndpointPatternTypeFix",
      endpoints: [{ key: "hub.docker.com", value: "https://hub.docker.com" }],
    });
    expect(infos["google-gcr"]?.credential_pattern?.access_key_data).toBe("_json_key");
    expect(infos["ali-acr"]?.endpoint_pattern?.endpoints).toHaveLength(115);
    expect(infos["ali-acr"]?.endpoint_pattern?.endpoints?.slice(0, 5).map((e) => e.key)).toEqual([
      "cn-qingdao",
      "cn-qingdao-vpc",
      "cn-qingdao-internal",
      "cn-qingdao-ee-vpc",
      "cn-qingdao-ee",
    ]);
    expect(infos["aws-ecr"]?.endpoint_pattern?.endpoints).toHaveLength(23);
    expect(infos["aws-ecr"]?.endpoint_pattern?.endpoints?.[0]).toEqual({
      key: "us-east-2",
      value: "https://api.ecr.us-east-2.amazonaws.com",
    });
    expect(infos["tencent-tcr"]).toEqual({});
    expect(infos.harbor).toBeUndefined();
    // quay has the default pattern: no endpoint list, sent as null (read as absent by the client).
    expect(infos.quay).toEqual({
      endpoint_pattern: { endpoint_type: "EndpointPatternTypeStandard" },
      credential_pattern: {
        access_key_type: "AccessKeyTypeFix",
        access_key_data: "json_file",
        access_secret_type: "AccessSecretTypeFile",
      },
    });
    const raw = JSON.parse((await h.raw("GET", "/replication/adapterinfos")).text);
    expect(raw.quay.endpoint_pattern).toEqual({
      endpoint_type: "EndpointPatternTypeStandard",
      endpoints: null,
    });
  });

  test("registry info: name and tag filters without values (null); resources by type; a Harbor's labels", async () => {
    const registry = await h.admin.registries.create({
      name: "plain-registry",
      type: "docker-registry",
      url: "https://plain.example.com",
    });
    const harbor = await h.admin.registries.create({
      name: "other-harbor",
      type: "harbor",
      url: "https://other-harbor.example.com",
    });
    await h.admin.labels.create({ name: "release", scope: "g" });
    await h.admin.labels.create({ name: "nightly", scope: "g" });
    const info = async (id: number) => JSON.parse((await h.raw("GET", `/registries/${id}/info`)).text);

    // A docker registry: image resources only, and no copy by chunk.
    expect(await info(registry)).toEqual({
      type: "docker-registry",
      supported_resource_filters: [
        { type: "name", style: "input", values: null },
        { type: "tag", style: "input", values: null },
        { type: "resource", style: "radio", values: ["image"] },
      ],
      supported_triggers: ["manual", "scheduled"],
    });
    // A Harbor: a label filter, and artifacts too.
    const remote = await info(harbor);
    expect(remote.supported_resource_filters.map((f: { type: string }) => f.type)).toEqual([
      "name",
      "tag",
      "label",
      "resource",
    ]);
    expect(remote.supported_resource_filters[3].values).toEqual(["image", "artifact"]);
    // The Local registry offers this Harbor's global labels.
    const local = await info(0);
    expect(local.supported_resource_filters[2]).toEqual({
      type: "label",
      style: "list",
      values: ["release", "nightly"],
    });
    expect(local.supported_resource_filters[3].values).toEqual(["image", "artifact"]);
    // The client reads the nulls as absent values.
    const viaClient = await h.admin.registries.getInfo(registry);
    expect(viaClient.supported_resource_filters?.[0]).toEqual({ type: "name", style: "input" });
    expect(viaClient.supported_copy_by_chunk).toBeUndefined();
    await h.admin.registries.delete(registry);
    await h.admin.registries.delete(harbor);
  });

  test("lifecycle through the client: create, get, list, partial update, info, ping, delete", async () => {
    const id = await h.admin.registries.create({
      name: "hub-mirror",
      type: "docker-registry",
      url: "https://mirror.example.com/",
      description: "a mirror",
      credential: { type: "basic", access_key: "puller", access_secret: "S3cret-value" },
    });
    expect(id).toBeGreaterThan(0);

    const got = await h.admin.registries.get(id);
    expect(got).toMatchObject({
      id,
      name: "hub-mirror",
      type: "docker-registry",
      url: "https://mirror.example.com",
      description: "a mirror",
      status: "healthy",
      credential: { type: "basic", access_key: "puller", access_secret: "*****" },
    });
    expect(got.insecure).toBeUndefined(); // false is omitted

    const listed = await h.admin.registries.list({ name: "MIRROR" });
    expect(listed.map((r) => r.id)).toEqual([id]);
    expect(
      (await h.admin.registries.list({ q: q().exact("type", "docker-registry") })).map((r) => r.id),
    ).toContain(id);

    // Partial: only the description changes; name, url and credential stay.
    await h.admin.registries.update(id, { description: "still a mirror" });
    expect(await h.admin.registries.get(id)).toMatchObject({
      name: "hub-mirror",
      url: "https://mirror.example.com",
      description: "still a mirror",
      credential: { access_key: "puller", access_secret: "*****" },
    });
    await h.admin.registries.update(id, { name: "hub-mirror-2", insecure: true });
    expect(await h.admin.registries.get(id)).toMatchObject({ name: "hub-mirror-2", insecure: true });

    const info = await h.admin.registries.getInfo(id);
    expect(info.type).toBe("docker-registry");
    expect(info.supported_triggers).toEqual(["manual", "scheduled"]);
    expect(info.supported_resource_filters?.map((f) => f.type)).toEqual(["name", "tag", "resource"]);

    await h.admin.registries.ping({ id });
    await h.admin.registries.ping({ type: "harbor", url: "harbor.other.example.com" });

    await h.admin.registries.delete(id);
    const err = await harborErrorOf(h.admin.registries.get(id));
    expect(err).toMatchObject(harborError(404, `registry ${id} not found`));
    expect(await harborErrorOf(h.admin.registries.delete(id))).toMatchObject({ status: 404 });
  });

  test("201 carries a path-only Location and an empty body", async () => {
    const res = await h.raw("POST", "/registries", {
      name: "loc",
      type: "harbor",
      url: "http://loc.example.com",
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    expect(res.headers.get("location")).toMatch(/^\/api\/v2\.0\/registries\/\d+$/);
  });

  test("URLs are normalised: spaces and trailing / trimmed, http:// added, query dropped", async () => {
    const a = await h.admin.registries.create({
      name: "n1",
      type: "harbor",
      url: "  n1.example.com:5000/  ",
    });
    expect((await h.admin.registries.get(a)).url).toBe("http://n1.example.com:5000");
    const b = await h.admin.registries.create({
      name: "n2",
      type: "quay",
      url: "https://n2.example.com/v2?x=1",
    });
    expect((await h.admin.registries.get(b)).url).toBe("https://n2.example.com/v2");
    const err = await harborErrorOf(
      h.admin.registries.create({ name: "n3", type: "harbor", url: "ftp://n3.example.com" }),
    );
    expect(err).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      harborMessage: "invalid HTTP scheme: ftp",
    });
  });

  test("the secret never leaves the server: masked as ***** in get and list", async () => {
    const id = await h.admin.registries.create({
      name: "secretive",
      type: "harbor",
      url: "https://secretive.example.com",
      credential: { access_key: "robot", access_secret: "Very-Secret-42" },
    });
    const one = await h.raw("GET", `/registries/${id}`);
    const all = await h.raw("GET", "/registries?page_size=100");
    for (const body of [one.text, all.text]) {
      expect(body).not.toContain("Very-Secret-42");
      expect(body).toContain('"access_secret":"*****"');
    }
    // Without a type, an access key means basic credentials.
    expect(JSON.parse(one.text).credential).toEqual({
      type: "basic",
      access_key: "robot",
      access_secret: "*****",
    });
  });

  test("validation: name required and at most 64 characters", async () => {
    expect(
      await harborErrorOf(
        h.admin.registries.create({ name: "", type: "harbor", url: "http://x1.example.com" }),
      ),
    ).toMatchObject({
      status: 400,
      harborMessage: "name cannot be empty",
    });
    expect(
      await harborErrorOf(
        h.admin.registries.create({ name: "x".repeat(65), type: "harbor", url: "http://x2.example.com" }),
      ),
    ).toMatchObject({ status: 400, harborMessage: "the max length of name is 64" });
    await h.admin.registries.create({ name: "y".repeat(64), type: "harbor", url: "http://x3.example.com" });
  });

  test("health: an unhealthy remote is refused on create, update and ping, before any conflict check", async () => {
    const url = "https://flaky.example.com";
    const id = await h.admin.registries.create({ name: "flaky", type: "harbor", url });
    h.emulator.control.registries.setHealth(url, false);

    // Same name, dead URL: the health check answers first (400, not 409).
    const dup = await harborErrorOf(h.admin.registries.create({ name: "flaky", type: "harbor", url }));
    expect(dup).toMatchObject(harborError(400, "the registry is unhealthy"));
    expect(await harborErrorOf(h.admin.registries.update(id, { description: "x" }))).toMatchObject({
      status: 400,
      harborMessage: "the registry is unhealthy",
    });
    expect(await harborErrorOf(h.admin.registries.ping({ id }))).toMatchObject({
      status: 400,
      harborMessage: "the registry is unhealthy",
    });

    h.emulator.control.registries.setHealth(url, true);
    await h.admin.registries.ping({ id });
    const conflict = await harborErrorOf(h.admin.registries.create({ name: "flaky", type: "harbor", url }));
    expect(conflict).toMatchObject(harborError(409, "registry flaky already exists"));

    // Renaming onto another registry's name conflicts too.
    const other = await h.admin.registries.create({
      name: "flaky-2",
      type: "harbor",
      url: "https://flaky2.example.com",
    });
    expect(await harborErrorOf(h.admin.registries.update(other, { name: "flaky" }))).toMatchObject({
      status: 409,
    });
  });

  test("Harbor's regular health check refreshes the stored status every five minutes", async () => {
    const url = "https://fading.example.com";
    const id = await h.admin.registries.create({ name: "fading", type: "harbor", url });
    h.emulator.control.registries.setHealth(url, false);
    expect((await h.admin.registries.get(id)).status).toBe("healthy");
    h.emulator.control.clock.advance(5 * 60_000);
    expect((await h.admin.registries.get(id)).status).toBe("unhealthy");
    h.emulator.control.registries.setHealth(url, true);
  });

  test("ping: type and url are needed, from the body or the stored registry", async () => {
    expect(await harborErrorOf(h.admin.registries.ping({ url: "https://p.example.com" }))).toMatchObject({
      status: 400,
      harborMessage: "type or url cannot be empty",
    });
    expect(await harborErrorOf(h.admin.registries.ping({ id: 9999 }))).toMatchObject({
      status: 404,
      harborMessage: "registry 9999 not found",
    });
    // Health is kept per normalised URL: "down.example.com/" is http://down.example.com.
    h.emulator.control.registries.setHealth("down.example.com/", false);
    await h.admin.registries.ping({ type: "harbor", url: "https://down.example.com" });
    expect(
      await harborErrorOf(h.admin.registries.ping({ type: "harbor", url: "http://down.example.com" })),
    ).toMatchObject({
      status: 400,
      harborMessage: "the registry is unhealthy",
    });
  });

  test("an unknown registry type is a masked 500", async () => {
    const res = await h.raw("POST", "/registries", {
      name: "weird",
      type: "no-such-type",
      url: "https://weird.example.com",
    });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toEqual({ errors: [{ code: "UNKNOWN", message: "internal server error" }] });
    const err = await harborErrorOf(
      h.admin.registries.create({ name: "weird", type: "no-such-type", url: "https://weird.example.com" }),
    );
    expect(err).toMatchObject({ kind: "server", status: 500, code: "UNKNOWN" });
  });

  test("id 0 is the built-in Local registry; only it supports the event_based trigger", async () => {
    const res = await h.raw("GET", "/registries/0");
    expect(JSON.parse(res.text)).toMatchObject({ id: 0, name: "Local", type: "harbor", status: "healthy" });
    const local = await h.admin.registries.get(0);
    expect(local.credential?.type).toBe("secret");
    expect(local.credential?.access_secret).toBe("*****");
    expect(local.creation_time).toBe("0001-01-01T00:00:00.000Z");
    expect((await h.admin.registries.getInfo(0)).supported_triggers).toEqual([
      "manual",
      "scheduled",
      "event_based",
    ]);
    expect((await h.admin.registries.list()).some((r) => r.id === 0)).toBe(false);
    await h.admin.registries.ping({ id: 0 });
  });

  test("delete is refused while a replication policy (either side) or a proxy-cache project uses it", async () => {
    const pushTarget = await h.admin.registries.create({
      name: "push-target",
      type: "harbor",
      url: "https://push.example.com",
    });
    const pullSource = await h.admin.registries.create({
      name: "pull-source",
      type: "harbor",
      url: "https://pull.example.com",
    });
    const push = await h.admin.replication.createPolicy({
      name: "to-remote",
      src_registry: { id: 0 },
      dest_registry: { id: pushTarget },
    });
    const pull = await h.admin.replication.createPolicy({
      name: "from-remote",
      src_registry: { id: pullSource },
      dest_registry: { id: 0 },
    });
    for (const id of [pushTarget, pullSource]) {
      expect(await harborErrorOf(h.admin.registries.delete(id))).toMatchObject(
        harborError(412, `the registry ${id} is referenced by replication policies, cannot delete it`),
      );
    }
    await h.admin.replication.deletePolicy(push);
    await h.admin.replication.deletePolicy(pull);
    await h.admin.registries.delete(pushTarget);

    const upstream = await h.admin.registries.create({
      name: "upstream",
      type: "docker-hub",
      url: "https://hub.docker.com",
    });
    const cache = h.emulator.world.projects.insert({
      name: "dockerhub-cache",
      ownerId: 1,
      metadata: { public: "false" },
      storageLimit: -1,
      registryId: upstream,
    });
    expect(await harborErrorOf(h.admin.registries.delete(upstream))).toMatchObject({
      status: 412,
      harborMessage: `the registry ${upstream} is referenced by proxy cache project, cannot delete it`,
    });
    h.emulator.world.projects.remove(cache);
    await h.admin.registries.delete(upstream);
  });

  test("lists page with X-Total-Count and Link, registries in creation order", async () => {
    const res = await h.raw("GET", "/registries?page=1&page_size=2");
    const total = Number(res.headers.get("x-total-count"));
    expect(total).toBe((await h.admin.registries.list()).length);
    expect(total).toBeGreaterThan(2);
    expect(res.headers.get("link")).toBe('</api/v2.0/registries?page=2&page_size=2>; rel="next"');
    const ids = (await h.admin.registries.list()).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("swagger-level failures are 422", async () => {
    const bad = await h.raw("POST", "/registries", {
      name: "t",
      type: "harbor",
      url: "http://t.example.com",
      insecure: "yes",
    });
    expect(bad.status).toBe(422);
    expect(JSON.parse(bad.text).errors[0].code).toBe("UNPROCESSABLE_ENTITY");
    expect((await h.raw("GET", "/registries/abc")).status).toBe(422);
    expect((await h.raw("PUT", "/registries/1")).status).toBe(422);
  });

  test("permissions: system scope; non-admins get 403 with their name, anonymous callers 401", async () => {
    const rita = h.client(h.addUser("rita"));
    expect(await harborErrorOf(rita.registries.list())).toMatchObject({
      kind: "forbidden",
      status: 403,
      harborMessage: "rita",
    });
    expect(
      await harborErrorOf(
        rita.registries.create({ name: "nope", type: "harbor", url: "http://nope.example.com" }),
      ),
    ).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect(await harborErrorOf(rita.registries.listProviderTypes())).toMatchObject({ status: 403 });
    const anonymous = await h.raw("GET", "/registries", undefined, {
      as: { username: "nobody", password: "wrong" },
    });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).errors[0]).toEqual({ code: "UNAUTHORIZED", message: "unauthorized" });
  });

  test("writes leave audit entries", () => {
    const entries = h.emulator.control.audit.list().filter((e) => e.resource_type === "registry");
    expect(entries.map((e) => e.operation)).toEqual(expect.arrayContaining(["create", "update", "delete"]));
    expect(entries.every((e) => e.username === "admin")).toBe(true);
  });
});
