import { describe, expect, test } from "vitest";
import { MAX_MESSAGE, safeText } from "../../../src/kube/text.ts";

const codePoints = (s: string) => Array.from(s).length;

describe("safeText", () => {
  test("ordinary messages pass unchanged", () => {
    for (const s of [
      "",
      "Harbor rejected the request (createProject): project name is invalid",
      "größe ✓ 日本語 🚀 — «quoted» a  b",
    ]) {
      expect(safeText(s)).toBe(s);
    }
  });

  test("line breaks and tabs become one space", () => {
    expect(safeText("first line\nsecond\r\nthird\tfourth \u2028 fifth\u0085sixth")).toBe(
      "first line second third fourth fifth sixth",
    );
    expect(safeText("\n\n  padded  \n")).toBe("padded");
  });

  test("control characters are removed: C0, DEL, C1 and terminal escape sequences lose their ESC", () => {
    expect(safeText("a\u0000b\u0007c\u001bd\u007fe\u0080f\u009bg")).toBe("abcdefg");
    // Without its ESC an ANSI sequence is inert text.
    expect(safeText("\u001b[31mred\u001b[0m \u001b]0;title\u0007")).toBe("[31mred[0m ]0;title");
  });

  test("invisible and direction-changing characters are removed", () => {
    const hidden = [
      "\u200b", // zero-width space
      "\u200d", // zero-width joiner
      "\u200e", // left-to-right mark
      "\u202e", // right-to-left override
      "\u2066", // left-to-right isolate
      "\u2069", // pop directional isolate
      "\u2060", // word joiner
      "\ufeff", // byte order mark
      "\u00ad", // soft hyphen
      "\u{e0041}", // tag letter A
    ];
    expect(safeText(`ad${hidden.join("")}min`)).toBe("admin");
    expect(safeText("txt.\u202eexe.sh")).toBe("txt.exe.sh");
  });

  test("a lone surrogate is removed, a pair is kept", () => {
    expect(safeText("a\ud800b\udc00c 🚀")).toBe("abc 🚀");
  });

  test("long text is cut to the limit with an ellipsis, on a character boundary", () => {
    const long = "x".repeat(5000);
    const out = safeText(long);
    expect(codePoints(out)).toBe(MAX_MESSAGE);
    expect(out.endsWith("…")).toBe(true);
    expect(MAX_MESSAGE).toBe(1024);

    // Astral characters (two UTF-16 units each) are counted and cut whole.
    const rockets = "🚀".repeat(2000);
    const cut = safeText(rockets, 10);
    expect(cut).toBe(`${"🚀".repeat(9)}…`);
    expect(cut.isWellFormed()).toBe(true);
    for (let max = 2; max < 40; max++) {
      const s = safeText(`ab${"🚀".repeat(30)}`, max);
      expect(s.isWellFormed()).toBe(true);
      expect(codePoints(s)).toBeLessThanOrEqual(max);
    }
  });

  test("text exactly at the limit is kept whole; one more character cuts", () => {
    expect(safeText("a".repeat(10), 10)).toBe("a".repeat(10));
    expect(safeText("🚀".repeat(10), 10)).toBe("🚀".repeat(10));
    expect(safeText("a".repeat(11), 10)).toBe(`${"a".repeat(9)}…`);
    expect(safeText(`${"a".repeat(9)}🚀`, 10)).toBe(`${"a".repeat(9)}🚀`);
    expect(safeText(`${"a".repeat(9)}🚀a`, 10)).toBe(`${"a".repeat(9)}…`);
  });

  test("the cut counts what is left after cleaning", () => {
    const noisy = `${"\u0000".repeat(4000)}${"y".repeat(100)}`;
    expect(safeText(noisy)).toBe("y".repeat(100));
  });

  test("cleaning twice changes nothing (status is compared before it is written)", () => {
    const inputs = [
      "x".repeat(3000),
      `line\n${"🚀".repeat(700)}`,
      "a \u200b \n b",
      `${"word ".repeat(400)}\u001b[0m`,
    ];
    for (const s of inputs) expect(safeText(safeText(s))).toBe(safeText(s));
  });
});
