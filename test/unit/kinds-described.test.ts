// Every kind of the registry describes itself to users: an example in deploy/examples/ (which the
// demo applies and the deploy test brings to Ready), a page in docs/kinds/ and a row of the README's
// table of kinds. A kind added to src/controllers/kind-list.ts without them fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { ALL_DEFINITIONS } from "../../src/controllers/kind-list.ts";
import { exampleResources, examplesDir } from "../env/examples.ts";
import { emittedReasons, sourcesBelow } from "../env/reasons.ts";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const kindsDir = join(root, "docs", "kinds");
/** The kind pages' titles, e.g. "HarborConnection and ClusterHarborConnection", with their files. */
const pages = readdirSync(kindsDir).map((file) => ({
  file,
  title: /^# (.+)$/m.exec(readFileSync(join(kindsDir, file), "utf8"))?.[1] ?? "",
}));

describe.each(ALL_DEFINITIONS.map((d) => d.kind))("%s", (kind) => {
  test("has an example in deploy/examples/", () => {
    expect(exampleResources().map((o) => o.kind)).toContain(kind);
  });

  test("has a page in docs/kinds/ (its title names it) that the README's table of kinds links", () => {
    const page = pages.find((p) => new RegExp(`\\b${kind}\\b`).test(p.title));
    expect(page, `a docs/kinds page titled ${kind}`).toBeDefined();
    expect(readme).toContain(`| [\`${kind}\`](docs/kinds/${page?.file})`);
  });
});

test("every example file is in deploy/examples/kustomization.yaml", () => {
  const kustomization = parse(readFileSync(join(examplesDir, "kustomization.yaml"), "utf8")) as {
    resources: string[];
  };
  const files = readdirSync(examplesDir).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml");
  expect([...kustomization.resources].sort()).toEqual(files.sort());
});

// Every kind's page has the same shape: its example, then what the reference cannot say, in the
// same sections in the same order (other sections may come between them), and its "Conditions and
// Events" section names every reason the kind's own code emits (the shared lifecycle's reasons are
// on the troubleshooting page, which it links).
const SECTIONS = ["Example", "Fields", "Status", "Harbor's behaviour", "Conditions and Events"];

/** The kinds each folder of src/controllers/ implements, read from kind-list.ts's imports. */
async function kindFolders(): Promise<Array<{ folder: string; kinds: string[] }>> {
  const list = readFileSync(join(root, "src", "controllers", "kind-list.ts"), "utf8");
  const modules = [...list.matchAll(/import \{ (\w+Kind) \} from "\.\/([\w-]+)\/index\.ts"/g)];
  const folders = await Promise.all(
    modules.map(async ([, name = "", folder = ""]) => {
      const module = (await import(`../../src/controllers/${folder}/index.ts`)) as Record<
        string,
        { def: { kind: string } }
      >;
      return { folder, kinds: [module[name]?.def.kind ?? `(no ${name} in ${folder})`] };
    }),
  );
  return [...folders, { folder: "connection", kinds: ["HarborConnection", "ClusterHarborConnection"] }];
}

/** The `## ` headings of a page, outside fenced code. */
function sectionsOf(text: string): string[] {
  let fenced = false;
  const headings: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced && line.startsWith("## ")) headings.push(line.slice(3).trim());
  }
  return headings;
}

/** The text of one `## ` section of a page, up to the next `## ` heading. */
function sectionText(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return "";
  const next = text.indexOf("\n## ", start + 1);
  return text.slice(start, next < 0 ? undefined : next);
}

describe("kind pages", async () => {
  const allSources = sourcesBelow(".", ["api"]);
  const folders = await kindFolders();
  test("every kind of the registry is found in a folder", () => {
    expect(folders.flatMap((f) => f.kinds).sort()).toEqual(ALL_DEFINITIONS.map((d) => d.kind).sort());
  });

  describe.each(folders)("src/controllers/$folder", ({ folder, kinds }) => {
    const page = pages.find((p) => kinds.every((k) => new RegExp(`\\b${k}\\b`).test(p.title)));
    const text = page ? readFileSync(join(kindsDir, page.file), "utf8") : "";

    test("its page has the sections every kind page has, in order", () => {
      expect(page, `a docs/kinds page titled ${kinds.join(" and ")}`).toBeDefined();
      expect(sectionsOf(text).filter((h) => SECTIONS.includes(h))).toEqual(SECTIONS);
    });

    test("its page's Conditions and Events section names every reason its code emits", () => {
      const emitted = emittedReasons(sourcesBelow(join("controllers", folder)), allSources);
      const section = sectionText(text, "Conditions and Events");
      const named = new Set([...section.matchAll(/`([A-Z][A-Za-z]+)`/g)].map((m) => m[1]));
      expect(section).toContain("../troubleshooting.md");
      expect([...emitted].filter((r) => !named.has(r)).sort(), `reasons ${page?.file} does not name`).toEqual(
        [],
      );
    });
  });
});
