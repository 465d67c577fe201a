// The emulator's cross-cutting Harbor behaviours, checked on the wire: the error envelope and
// 5xx masking, go-swagger's 422 binding failures, paging headers, the q grammar, routing errors,
// request ids, anonymous access.
import { describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { onlyError, useEmulator } from "../../env/harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });

describe("error envelope", () => {
  test("every error is one {code, message} in an errors array", async () => {
    const res = await h.api("/labels/4040");
    expect(res.status).toBe(404);
    expect(await onlyError(res)).toEqual({ code: "NOT_FOUND", message: "label 4040 not found" });
  });

  test("5xx bodies are masked, whatever the cause", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", status: 503, times: 1 });
    const res = await h.api("/labels?scope=g");
    expect(res.status).toBe(503);
    expect(await onlyError(res)).toEqual({ code: "UNKNOWN", message: "internal server error" });
  });

  test("unknown paths are 404 and wrong methods 405", async () => {
    const missing = await h.api("/no-such-thing");
    expect(missing.status).toBe(404);
    expect((await onlyError(missing)).code).toBe("NOT_FOUND");
    const wrong = await h.api("/labels", { method: "PATCH" });
    expect(wrong.status).toBe(405);
    expect((await onlyError(wrong)).code).toBe("METHOD_NOT_ALLOWED");
  });
});

describe("swagger-level validation gives 422, not 400", () => {
  test.each([
    ["a non-integer path id", "/labels/abc", {}, 'label_id in path must be of type int64: "abc"'],
    [
      "page_size above 100",
      "/labels?scope=g&page_size=101",
      {},
      "page_size in query should be less than or equal to 100",
    ],
    [
      "a non-integer query value",
      "/labels?scope=p&project_id=x",
      {},
      'project_id in query must be of type int64: "x"',
    ],
    ["a missing body", "/labels", { method: "POST" }, "label in body is required"],
    ["malformed JSON", "/labels", { method: "POST", body: "{" }, "parsing label body from"],
    [
      "a wrong field type",
      "/labels",
      { method: "POST", body: JSON.stringify({ name: 5 }) },
      'parsing label body from "" failed, because json: cannot unmarshal number into Go struct field Label.name of type string',
    ],
    [
      "a non-JSON content type",
      "/labels",
      { method: "POST", body: "x", headers: { "content-type": "text/plain" } },
      'unsupported media type "text/plain", only [application/json] are allowed',
    ],
  ])("%s", async (_what, path, init, message) => {
    const res = await h.api(path, init as RequestInit);
    expect(res.status).toBe(422);
    const e = await onlyError(res);
    expect(e.code).toBe("UNPROCESSABLE_ENTITY");
    expect(e.message.startsWith("validation failure list:\n")).toBe(true);
    expect(e.message).toContain(message);
  });
});

describe("pagination", () => {
  test("defaults to 10 per page with X-Total-Count and Link joined by ' , '", async () => {
    for (let i = 0; i < 25; i++)
      await h.admin.labels.create({ name: `page-${String(i).padStart(2, "0")}`, scope: "g" });
    const first = await h.api("/labels?scope=g&name=page-");
    expect(first.headers.get("x-total-count")).toBe("25");
    expect(((await first.json()) as unknown[]).length).toBe(10);
    expect(first.headers.get("link")).toBe(
      '</api/v2.0/labels?name=page-&page=2&page_size=10&scope=g>; rel="next"',
    );

    const middle = await h.api("/labels?scope=g&name=page-&page=2&page_size=10");
    expect(middle.headers.get("link")).toBe(
      '</api/v2.0/labels?name=page-&page=1&page_size=10&scope=g>; rel="prev" , </api/v2.0/labels?name=page-&page=3&page_size=10&scope=g>; rel="next"',
    );
    const last = await h.api("/labels?scope=g&name=page-&page=3&page_size=10");
    expect(((await last.json()) as unknown[]).length).toBe(5);
    expect(last.headers.get("link")).toBe(
      '</api/v2.0/labels?name=page-&page=2&page_size=10&scope=g>; rel="prev"',
    );
  });

  test("page_size 0 returns everything without Link; an empty result is [] with a total of 0", async () => {
    const all = await h.api("/labels?scope=g&name=page-&page_size=0");
    expect(((await all.json()) as unknown[]).length).toBe(25);
    expect(all.headers.get("link")).toBeNull();
    const none = await h.api("/labels?scope=g&name=zzz-nothing");
    expect(await none.text()).toBe("[]");
    expect(none.headers.get("x-total-count")).toBe("0");
  });
});

describe("q grammar", () => {
  test("malformed terms are 400 with Harbor's messages", async () => {
    const noValue = await h.api(`/labels?scope=g&q=${encodeURIComponent("name=")}`);
    expect(noValue.status).toBe(400);
    expect((await onlyError(noValue)).message).toBe(
      'the query string must contain "=" and the key/value cannot be empty',
    );
    const badRange = await h.api(`/labels?scope=g&q=${encodeURIComponent("id=[1~2~3]")}`);
    expect(badRange.status).toBe(400);
    expect((await onlyError(badRange)).message).toBe("invalid query string value: [1~2~3]");
    const lonelyTilde = await h.api(`/labels?scope=g&q=${encodeURIComponent("name=~")}`);
    expect(lonelyTilde.status).toBe(400);
  });

  test("unknown keys and sort fields are ignored", async () => {
    const res = await h.api(
      `/labels?scope=g&name=page-&page_size=0&q=${encodeURIComponent("nosuchkey=1")}&sort=nosuchfield`,
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(25);
  });

  test("exact, fuzzy, range and union terms select what they say", async () => {
    const names = async (query: ReturnType<typeof q>) =>
      (await h.admin.labels.list({ scope: "g", q: query })).map((l) => l.name).sort();
    expect(await names(q().exact("name", "page-03"))).toEqual(["page-03"]);
    expect(await names(q().fuzzy("name", "GE-1"))).toHaveLength(10);
    const ids = (await h.admin.labels.list({ scope: "g", q: q().fuzzy("name", "page-") })).map(
      (l) => l.id as number,
    );
    const lo = Math.min(...ids);
    expect(await names(q().range("id", lo, lo + 2))).toEqual(["page-00", "page-01", "page-02"]);
    expect(await names(q().union("name", ["page-05", "page-07", "nope"]))).toEqual(["page-05", "page-07"]);
  });

  test("hostile values survive the round trip and match only themselves", async () => {
    const hostile = ["50%", "a+b", "a b", "a&b=c", "~tilde", "{brace}", "\\back", "it's", 'say "hi"', "ünï"];
    for (const name of hostile) await h.admin.labels.create({ name, scope: "g" });
    for (const name of hostile) {
      const found = await h.admin.labels.list({ scope: "g", q: q().exact("name", name) });
      expect(found.map((l) => l.name)).toEqual([name]);
    }
    // A fuzzy "%" is a literal percent sign, not a wildcard.
    const fuzzy = await h.admin.labels.list({ scope: "g", q: q().fuzzy("name", "%") });
    expect(fuzzy.map((l) => l.name)).toEqual(["50%"]);
  });
});

describe("identity", () => {
  test("X-Request-Id is echoed, or generated when absent", async () => {
    const echoed = await h.api("/labels?scope=g", { headers: { "x-request-id": "my-request-1" } });
    expect(echoed.headers.get("x-request-id")).toBe("my-request-1");
    const generated = await h.api("/labels?scope=g");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("wrong credentials make the caller anonymous: public reads answer, writes are 401", async () => {
    const bad = `Basic ${Buffer.from("admin:nope").toString("base64")}`;
    const read = await h.api("/labels?scope=g", { headers: { authorization: bad } });
    expect(read.status).toBe(200);
    const write = await h.api("/labels", {
      method: "POST",
      headers: { authorization: bad },
      body: JSON.stringify({ name: "anon", scope: "g" }),
    });
    expect(write.status).toBe(401);
    expect(await onlyError(write)).toEqual({ code: "UNAUTHORIZED", message: "unauthorized" });
  });

  test("every write leaves an audit entry with the caller's name", async () => {
    await h.admin.labels.create({ name: "audited", scope: "g" });
    const entry = h.emulator.control.audit.list().find((e) => e.resource === "audited");
    expect(entry).toMatchObject({ username: "admin", resource_type: "label", operation: "create" });
  });
});
