#!/usr/bin/env node
// The npm bin `kubectl-harbor` (on PATH it is also `kubectl harbor`, a kubectl plugin). Plain
// JavaScript, so that it loads on any Node.js: it checks for a Node.js that runs the project's
// TypeScript sources (src/node-check.js, with the command that fixes it), and only then loads the
// CLI. Installed with `npm link` (or run from a checkout), the sources stay outside node_modules,
// where Node.js would not strip their types.
import "../src/node-check.js";

const { main } = await import("../src/cli/main.ts");
await main();
