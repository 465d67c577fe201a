// What the CLI prints: tables for people, JSON and YAML for scripts; no secret and no terminal
// control sequence gets through any of them; progress on standard error.
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { list, Progress, printable, record, structured, table } from "../../../src/cli/output.ts";

const rows = [
  { name: "team-a", count: 3, ok: true },
  { name: "a-much-longer-name", count: undefined, ok: false },
];
const columns = [
  { header: "name", value: (r: (typeof rows)[number]) => r.name },
  { header: "count", value: (r: (typeof rows)[number]) => r.count },
  { header: "ok", value: (r: (typeof rows)[number]) => r.ok },
];

describe("tables", () => {
  test("a header in capitals, columns padded to the widest cell, '-' for nothing, no trailing spaces", () => {
    expect(table(rows, columns)).toBe(
      [
        "NAME                 COUNT   OK",
        "team-a               3       true",
        "a-much-longer-name   -       false",
        "",
      ].join("\n"),
    );
  });

  test("an empty list says so; JSON and YAML give the rows themselves", () => {
    expect(list([], columns, "table", "no projects")).toBe("no projects\n");
    expect(JSON.parse(list(rows, columns, "json"))).toEqual([
      { name: "team-a", count: 3, ok: true },
      { name: "a-much-longer-name", ok: false },
    ]);
    expect(parse(list(rows, columns, "yaml"))).toEqual(JSON.parse(list(rows, columns, "json")));
  });

  test("a record: aligned field: value lines", () => {
    expect(
      record(
        [
          ["deletable", false],
          ["why not", "it holds repositories"],
        ],
        {},
        "table",
      ),
    ).toBe("deletable: false\nwhy not:   it holds repositories\n");
  });
});

/** ESC, BEL, CSI, and a right-to-left override. */
const CONTROLS = ["\u001b", "\u0007", "\u009b", "\u202e"];

describe("nothing secret, nothing that drives a terminal", () => {
  const hostile = {
    name: "evil\u001b[2J\u001b]0;pwned\u0007name\u009b31m\u202e",
    auth_header: "Bearer abcdefghijkl",
    access_credential: "Basic dXNlcjpwYXNz",
    note: "sent with Authorization: Bearer abcdefghijkl to https://u:hunter2@example.com/",
  };

  test.each(["json", "yaml"] as const)(
    "%s: secret fields replaced, inline credentials masked, controls removed",
    (format) => {
      const out = structured([hostile], format);
      expect(out).not.toMatch(/abcdefghijkl|dXNlcjpwYXNz|hunter2/);
      for (const control of CONTROLS) expect(out).not.toContain(control);
      const back = (format === "json" ? JSON.parse(out) : parse(out))[0];
      expect(back.name).toBe("evil[2J]0;pwnedname31m");
      expect(back.auth_header).toBe("[Redacted]");
      expect(back.access_credential).toBe("[Redacted]");
    },
  );

  test("table cells too, on one line", () => {
    const out = table(
      [hostile],
      [
        { header: "name", value: (h) => h.name },
        { header: "note", value: (h) => `${h.note}\nsecond line` },
      ],
    );
    expect(out).not.toMatch(/abcdefghijkl|hunter2/);
    for (const control of CONTROLS) expect(out).not.toContain(control);
    expect(out.trimEnd().split("\n")).toHaveLength(2);
  });

  test("printable keeps tabs and line breaks of logs", () => {
    expect(printable("a\tb\nc\u0000\u001b[0m")).toBe("a\tb\nc[0m");
  });
});

describe("progress", () => {
  const capture = (tty: boolean, quiet = false) => {
    const out = new PassThrough();
    let text = "";
    out.setEncoding("utf8").on("data", (c: string) => {
      text += c;
    });
    return { p: new Progress(out, { tty, quiet }), text: () => text };
  };

  test("on a terminal: one line rewritten in place, cleared at the end", () => {
    const c = capture(true);
    c.p.update("robots", 1, 2);
    c.p.update("robots", 2, 2);
    c.p.clear();
    expect(c.text()).toBe("\r\u001b[Krobots: 1/2\r\u001b[Krobots: 2/2\r\u001b[K");
  });

  test("elsewhere: a line when a step completes, not one per item", () => {
    const c = capture(false);
    c.p.update("robots", 1, 3);
    c.p.update("robots", 2, 3);
    c.p.update("robots", 3, 3);
    c.p.note("done");
    expect(c.text()).toBe("robots: 1/3\nrobots: 3/3\ndone\n");
  });

  test("--quiet: nothing", () => {
    const c = capture(false, true);
    c.p.update("robots", 3, 3);
    c.p.note("done");
    expect(c.text()).toBe("");
  });
});
