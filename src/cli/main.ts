// The command-line companion: `kubectl harbor …` (a kubectl plugin: the npm bin kubectl-harbor on
// PATH) or `kubectl-harbor …`. `run` is the whole program with its input and output passed in;
// `main` wires it to the process. The bin is a small plain-JavaScript launcher
// (bin/kubectl-harbor.js) that checks the Node.js version before it loads this TypeScript.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliIO,
  type CommandSpec,
  commandHelp,
  type GroupSpec,
  groupHelp,
  parseCommandLine,
} from "./command.ts";
import { auditLogGroup } from "./commands/audit-log.ts";
import { diffCommand, exportCommand } from "./commands/export.ts";
import { gcGroup } from "./commands/garbage-collection.ts";
import { jobServiceGroup } from "./commands/job-service.ts";
import { ldapGroup } from "./commands/ldap.ts";
import { projectGroup } from "./commands/project.ts";
import { registryGroup } from "./commands/registry.ts";
import { replicationGroup } from "./commands/replication.ts";
import { scannerGroup } from "./commands/scanner.ts";
import { webhookGroup } from "./commands/webhook.ts";
import { describeError, EXIT, UsageError } from "./errors.ts";

/** The top level: commands of their own, and groups of commands. */
export const COMMANDS: ReadonlyArray<CommandSpec | GroupSpec> = [
  exportCommand,
  diffCommand,
  projectGroup,
  auditLogGroup,
  replicationGroup,
  gcGroup,
  webhookGroup,
  ldapGroup,
  jobServiceGroup,
  scannerGroup,
  registryGroup,
];

const isGroup = (c: CommandSpec | GroupSpec): c is GroupSpec => "commands" in c;

function version(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

function topHelp(): string {
  const rows = COMMANDS.map((c) => [c.name, c.summary] as const);
  const width = Math.max(...rows.map(([n]) => n.length));
  return [
    "Usage: kubectl harbor COMMAND [flags]   (or: kubectl-harbor COMMAND [flags])",
    "",
    "The command-line companion of harbor-config-operator: export a live Harbor to resources, check a",
    "folder of resources against Harbor (a CI gate), and Harbor's one-off operations.",
    "",
    "Commands:",
    ...rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
    "",
    "Every command talks to one Harbor: --connection [NAMESPACE/]NAME (a HarborConnection of the cluster,",
    "read through the kubeconfig, credentials from its Secret), or --harbor-url with HARBOR_USERNAME and",
    "HARBOR_PASSWORD. Results go to standard output (-o table, json or yaml), progress and notes to",
    "standard error.",
    "",
    "Run 'kubectl harbor COMMAND --help' for a command's flags; 'kubectl harbor --version' for the version.",
    "",
    `Exit codes: ${EXIT.ok} done; ${EXIT.failed} failed; ${EXIT.drift} differences found (diff, export --check); ${EXIT.declined} not confirmed; ${EXIT.usage} bad command line.`,
    "",
  ].join("\n");
}

const wantsHelp = (argv: readonly string[]) => argv.some((a) => a === "--help" || a === "-h");

/** Finds the command argv names: [path, command, the rest], or help text to print. */
function resolveCommand(
  argv: readonly string[],
): { help: string } | { path: string[]; command: CommandSpec; rest: string[] } {
  const [first, second, ...more] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    if (first === "help" && second !== undefined)
      return resolveCommand([second, ...more, "--help"].filter(Boolean));
    return { help: topHelp() };
  }
  const top = COMMANDS.find((c) => c.name === first);
  if (!top) throw new UsageError(`unknown command "${first}" (${COMMANDS.map((c) => c.name).join(", ")})`);
  if (!isGroup(top)) {
    if (wantsHelp(argv.slice(1))) return { help: commandHelp([top.name], top) };
    return { path: [top.name], command: top, rest: argv.slice(1) };
  }
  if (second === undefined || second === "--help" || second === "-h") return { help: groupHelp(top) };
  const command = top.commands.find((c) => c.name === second);
  if (!command)
    throw new UsageError(
      `unknown command "${top.name} ${second}" (${top.commands.map((c) => c.name).join(", ")})`,
      top.name,
    );
  if (wantsHelp(more)) return { help: commandHelp([top.name, command.name], command) };
  return { path: [top.name, command.name], command, rest: more };
}

/** Runs one command line; resolves with the exit code. Never throws. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    if (argv[0] === "--version" || argv[0] === "version") {
      io.stdout.write(`kubectl-harbor ${version()} (harbor-config-operator)\n`);
      return EXIT.ok;
    }
    const found = resolveCommand(argv);
    if ("help" in found) {
      io.stdout.write(found.help);
      return EXIT.ok;
    }
    const inv = parseCommandLine(found.rest, found.command, found.path, io);
    return await found.command.run(inv);
  } catch (e) {
    if (io.signal.aborted) {
      io.stderr.write("interrupted\n");
      return 130;
    }
    const d = describeError(e);
    io.stderr.write(`error: ${d.message}\n${d.hint ? `${d.hint}\n` : ""}`);
    return d.exitCode;
  }
}

/** The process: its arguments, streams and environment; SIGINT aborts what is in flight. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stderrIsTTY: process.stderr.isTTY === true,
    signal: controller.signal,
  });
  process.stdin.pause();
  process.exitCode = code;
}

if (import.meta.main) await main();
