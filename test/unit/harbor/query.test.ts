import { describe, expect, test } from "vitest";
import { HarborQueryError, listQuery, q } from "../../../src/harbor/query.ts";

/** What Harbor sees after its extra unescape of q. */
const serverView = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));

describe("q builder", () => {
  test("renders every form of Harbor's q language", () => {
    const query = q()
      .exact("name", "app")
      .fuzzy("description", "team a")
      .range("creation_time", new Date("2024-01-02T03:04:05Z"), undefined)
      .range("id", 3, 9)
      .union("status", ["Running", "Error"])
      .intersection("tags", ["a", "b"])
      .exact("ProjectID", 7)
      .exact("public", true);
    expect(serverView(query.toString())).toBe(
      "name=app,description=~team a,creation_time=[2024-01-02T03:04:05~],id=[3~9],status={Running Error},tags=(a b),ProjectID=7,public=true",
    );
  });

  test("escapes an exact value whose first character is special", () => {
    for (const v of ["~x", "[x", "{x", "(x", "\\x"]) {
      expect(serverView(q().exact("name", v).toString())).toBe(`name=\\${v}`);
    }
  });

  test("percent-encodes values so Harbor's second unescape restores them", () => {
    const hostile = "50% off+more & a=b?c#d é";
    const rendered = q().exact("name", hostile).toString();
    expect(rendered).not.toContain("%2C");
    expect(serverView(rendered)).toBe(`name=${hostile}`);
  });

  test("quotes string list items that Harbor would type as integers or times", () => {
    expect(serverView(q().union("name", ["123", "abc", 5]).toString())).toBe('name={"123" abc 5}');
    expect(serverView(q().union("name", ["2024-01-01T00:00:00"]).toString())).toBe(
      'name={"2024-01-01T00:00:00"}',
    );
  });

  test("refuses what q cannot express instead of matching something else", () => {
    expect(() => q().exact("name", "a,b")).toThrow(HarborQueryError);
    expect(() => q().fuzzy("name", "")).toThrow(HarborQueryError);
    expect(() => q().union("name", ["a b"])).toThrow(HarborQueryError);
    expect(() => q().union("name", [])).toThrow(HarborQueryError);
    expect(() => q().union("name", ['"quoted'])).toThrow(HarborQueryError);
    expect(() => q().range("id")).toThrow(HarborQueryError);
    expect(() => q().range("name", "a~b", "c")).toThrow(HarborQueryError);
    expect(() => q().exact("bad key", "x")).toThrow(HarborQueryError);
    expect(() => q().exact("k=v", "x")).toThrow(HarborQueryError);
    expect(() => q().exact("name", "")).toThrow(HarborQueryError);
  });

  test("listQuery leaves out empty filters", () => {
    expect(listQuery(undefined)).toEqual({});
    expect(listQuery({ q: q() })).toEqual({});
    expect(listQuery({ q: q().exact("a", 1), sort: "-name" })).toEqual({ q: "a=1", sort: "-name" });
  });
});
