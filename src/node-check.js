// Loaded before every npm script (`node --import ./src/node-check.js …`): the project runs its
// TypeScript sources directly, which needs a Node.js with type stripping (22.18 or later; the
// project brings Node 24 into node_modules/.bin during `npm ci`). On an older Node the first `.ts`
// file would fail with ERR_UNKNOWN_FILE_EXTENSION; this says instead which Node was found, which is
// needed, and the command that fixes it. Plain JavaScript on purpose: it must load on any Node.
import { existsSync } from "node:fs";
import { join } from "node:path";

if (typeof process.features.typescript !== "string") {
  const bundled = join(
    import.meta.dirname ?? new URL(".", import.meta.url).pathname,
    "..",
    "node_modules",
    ".bin",
    "node",
  );
  const found = `Node.js ${process.version} (${process.execPath})`;
  const lines = [
    `harbor-config-operator: this command needs Node.js 24 (any Node.js ≥ 22.18 with type stripping), but it started on ${found}.`,
  ];
  if (!existsSync(bundled)) {
    lines.push(
      "`npm ci` installs Node.js 24 into node_modules/.bin through the `node` package's install script, and that script has not run:",
      "either `npm ci` has not run yet, or it ran with --ignore-scripts, or with an npm that skipped an install script its",
      "allowScripts does not cover (package.json approves exactly that one).",
      "Fix: run `npm ci` (npm 10, 11 or 12, without --ignore-scripts), then this command again through npm (`npm test`, `npm run demo`).",
    );
  } else {
    lines.push(
      "Node.js 24 is installed in node_modules/.bin, but this command was not started with it.",
      "Fix: start it through npm (`npm test`, `npm run demo`, `npm start`), which puts node_modules/.bin first on PATH,",
      `or run it with ${bundled}.`,
    );
  }
  process.stderr.write(`${lines.join("\n")}\n`);
  process.exit(1);
}
