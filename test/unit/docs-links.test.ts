// The README and docs/ hold together: every relative link names a file or folder that exists, every
// #anchor a heading of the page it points into (as GitHub makes anchors), and every page longer
// than two screens starts with a table of contents of its sections.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, test } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const docs = join(root, "docs");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return entry.endsWith(".md") ? [path] : [];
  });
}
const pages = [join(root, "README.md"), ...markdownFiles(docs)];

/** The page's lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(path, "utf8"))) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m?.[1]) continue;
    const base = m[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, "")
      .replaceAll(" ", "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative links of a page: [text](target), outside code blocks and inline code. */
function linksOf(path: string): string[] {
  const out: string[] = [];
  for (const line of prose(readFileSync(path, "utf8"))) {
    const text = line.replace(/`[^`]*`/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? "";
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push(target);
    }
  }
  return out;
}

describe.each(pages.map((p) => relative(root, p)))("%s", (page) => {
  const path = join(root, page);

  test("every relative link and anchor resolves", () => {
    const broken: string[] = [];
    for (const target of linksOf(path)) {
      const [file = "", anchor] = target.split("#");
      const resolved = file === "" ? path : join(dirname(path), decodeURIComponent(file));
      if (!existsSync(resolved)) broken.push(`${target}: no such file`);
      else if (anchor !== undefined && !anchorsOf(resolved).has(anchor))
        broken.push(`${target}: no heading with that anchor in ${relative(root, resolved)}`);
    }
    expect(broken).toEqual([]);
  });

  test("a page longer than two screens starts with its table of contents", () => {
    const lines = readFileSync(path, "utf8").split("\n");
    if (page === "README.md" || lines.length <= 120) return;
    const head = lines.slice(0, 12).join("\n");
    expect(head).toContain("**Contents**");
    const sections = prose(lines.join("\n")).filter((l) => /^## /.test(l));
    for (const s of sections) expect(lines.slice(0, 60).join("\n"), s).toContain(`](#`);
  });
});

test("the README stays short: 250 lines at most", () => {
  expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
});
