// `export` and `diff`: a Harbor as resources, and a folder of resources against a Harbor.
import { resolve } from "node:path";
import { z } from "zod";
import { HARBOR_OPTIONS } from "../auth.ts";
import {
  type CommandSpec,
  flagList,
  flagSet,
  flagString,
  flagValue,
  type Invocation,
  oneOf,
  wholeNumber,
} from "../command.ts";
import { formatOf, note, OUTPUT_OPTIONS, print, progressOf, withHarbor } from "../context.ts";
import { diffFolder, type ResourceDiff, readFolder } from "../diff.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { buildExport, checkExport, type ExportResult, shown, writeExport } from "../export.ts";
import { kindsNamed } from "../harbor-state.ts";
import { cell, list, structured, table } from "../output.ts";

const CONNECTION_REF = z
  .string()
  .regex(
    /^((HarborConnection|ClusterHarborConnection)\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/,
    "must be NAME, HarborConnection/NAME or ClusterHarborConnection/NAME",
  )
  .transform((v) => {
    const [kind, name] = v.includes("/") ? v.split("/") : ["HarborConnection", v];
    return { kind: kind as "HarborConnection" | "ClusterHarborConnection", name: name as string };
  });

export const exportCommand: CommandSpec = {
  name: "export",
  summary: "Write the resources that reproduce a live Harbor: one file per object and a kustomization",
  description: [
    "Reads every kind this operator can export and writes, under --out, a folder per kind with one file per",
    "object, a kustomization.yaml listing them, and Secret stubs under secrets/ (names and keys only, never",
    "secret values; not in the kustomization, and never overwritten once written). Resources adopt what exists",
    "(creationPolicy Adopt) and leave Harbor alone when deleted (deletionPolicy Orphan) unless asked otherwise;",
    "spec.name holds Harbor's name, metadata.name a Kubernetes-safe one, and references name other resources.",
    "Each spec is checked against the operator's own diff: applying the export changes nothing in Harbor.",
    "Robot secrets cannot be read: robots are written with secret.deliver: false, so adopting them leaves",
    "their secrets with whoever holds them; --robot-secrets issue has the operator issue new ones instead",
    "(the current ones stop working). A registry with credentials is pushed its credentials once on adoption.",
    "Against an unchanged Harbor a second export writes the same bytes: --check compares instead of writing.",
  ].join("\n"),
  options: [
    { name: "out", short: "d", arg: "DIR", help: "the folder to write (or, with --check, to compare)" },
    {
      name: "check",
      help: "write nothing: compare --out with what the export would write; exit 2 when they differ",
    },
    {
      name: "kinds",
      short: "k",
      arg: "KIND",
      multiple: true,
      help: "only these kinds (projects, robots, registries, replicationpolicies, webhookpolicies, or kind names); the kinds they reference are read, not written",
    },
    {
      name: "projects",
      short: "p",
      arg: "PATTERN",
      multiple: true,
      help: 'only objects in these Harbor projects ("*" and "?" patterns), and what they reference',
    },
    { name: "creation-policy", arg: "POLICY", help: "Adopt, CreateOrAdopt or Create", default: "Adopt" },
    { name: "deletion-policy", arg: "POLICY", help: "Orphan or Delete", default: "Orphan" },
    {
      name: "connection-ref",
      arg: "[KIND/]NAME",
      help: 'the connection the resources name (default: the --connection used, else the HarborConnection "harbor")',
    },
    {
      name: "robot-secrets",
      arg: "keep|issue",
      help: "keep: adopted robots keep their secrets (secret.deliver: false); issue: the operator issues and delivers new ones",
      default: "keep",
    },
    ...OUTPUT_OPTIONS,
    ...HARBOR_OPTIONS,
  ],
  examples: [
    "kubectl harbor export --connection harbor-system/harbor --out harbor/",
    "kubectl harbor export --harbor-url https://harbor.example.com -u admin --out harbor/ --projects 'team-*'",
    "kubectl harbor export --connection harbor-system/harbor --out harbor/ --check   # in CI: exit 2 on change",
  ],
  run: (inv) => runExport(inv),
};

async function runExport(inv: Invocation): Promise<number> {
  const where = inv.path.join(" ");
  const out = flagString(inv, "out");
  if (!out)
    throw new UsageError("--out DIR is required: the folder to write (or to compare with --check)", where);
  const dir = resolve(out);
  const kinds = kindsNamed(flagList(inv, "kinds"), where);
  const options = {
    kinds,
    projects: flagList(inv, "projects"),
    creationPolicy: flagValue(
      inv,
      "creation-policy",
      oneOf(["Adopt", "CreateOrAdopt", "Create"] as const),
      "Adopt",
    ),
    deletionPolicy: flagValue(inv, "deletion-policy", oneOf(["Orphan", "Delete"] as const), "Orphan"),
    deliverSecrets: flagValue(inv, "robot-secrets", oneOf(["keep", "issue"] as const), "keep") === "issue",
  };
  const format = formatOf(inv);
  const explicitRef = flagValue(inv, "connection-ref", CONNECTION_REF);
  return withHarbor(inv, async (harbor) => {
    const progress = progressOf(inv);
    progress.note(`Reading Harbor at ${harbor.url}`);
    const started = Date.now();
    const result = await buildExport(
      harbor.client,
      {
        ...options,
        connectionRef: explicitRef ?? harbor.connectionRef ?? { kind: "HarborConnection", name: "harbor" },
        ...(harbor.namespace ? { namespace: harbor.namespace } : {}),
        harborUrl: harbor.url,
      },
      {
        signal: inv.io.signal,
        concurrency: flagValue(inv, "concurrency", wholeNumber(1, 256), "8"),
        progress,
      },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    for (const s of result.skipped) note(inv, `skipped ${s.kind} "${s.harborName}": ${s.reason}`);
    if (flagSet(inv, "check")) {
      const changes = checkExport(dir, result);
      if (format === "table") {
        print(
          inv,
          changes.length
            ? table(changes, [
                { header: "change", value: (c) => c.change },
                { header: "file", value: (c) => c.file },
              ])
            : `${shown(dir)} is what an export of ${harbor.url} writes (${result.resources.length} resources)\n`,
        );
      } else
        print(inv, structured({ directory: shown(dir), upToDate: changes.length === 0, changes }, format));
      return changes.length ? EXIT.drift : EXIT.ok;
    }
    const w = writeExport(dir, result);
    for (const r of result.resources) for (const n of r.notes) note(inv, `${r.kind} ${r.name}: ${n}`);
    if (format === "table") {
      print(inv, summaryTable(result));
      print(
        inv,
        `Wrote ${result.resources.length} resources to ${shown(dir)} in ${seconds} s` +
          (w.stubs ? `, and ${w.stubs} Secret stubs to fill in (${shown(dir)}/secrets/)` : "") +
          (w.removed.length ? `; removed ${w.removed.length} files of objects Harbor no longer has` : "") +
          `. Apply with: kubectl apply -k ${shown(dir)}\n`,
      );
    } else {
      print(
        inv,
        structured(
          {
            harbor: harbor.url,
            directory: shown(dir),
            kinds: result.counts,
            notExported: result.notExported,
            resources: result.resources,
            skipped: result.skipped,
            secretStubs: [...result.secrets.keys()],
            removed: w.removed,
          },
          format,
        ),
      );
    }
    return EXIT.ok;
  });
}

function summaryTable(r: ExportResult): string {
  const rows = [
    ...r.counts.map((c) => ({ kind: c.kind, exported: String(c.exported), skipped: String(c.skipped) })),
    ...r.notExported.map((kind) => ({ kind, exported: "not exported yet", skipped: "" })),
  ];
  return table(rows, [
    { header: "kind", value: (x) => x.kind },
    { header: "exported", value: (x) => x.exported },
    { header: "skipped", value: (x) => x.skipped },
  ]);
}

export const diffCommand: CommandSpec = {
  name: "diff",
  summary: "Compare a folder of resources with the live Harbor, field by field; exit 2 on drift",
  description: [
    "Reads the resources of this operator's API group in DIR (every .yaml file, recursively; Secrets there",
    "are read as stubs) and compares each with the Harbor object it names, using the operator's own diff:",
    '"no difference" here means the same as in the operator\'s drift check. Fields whose value lives in a',
    "Secret are compared by presence and never shown. The resources' connectionRef is not followed: they are",
    "compared with the Harbor the flags choose. Exit 0: every resource matches; 2: some differ or are missing",
    "in Harbor; 1: the folder or Harbor could not be read.",
  ].join("\n"),
  args: [{ name: "DIR", help: "a folder (or a file) of resources, e.g. what export wrote" }],
  options: [
    {
      name: "unmanaged",
      help: "also list the Harbor objects of those kinds that no resource of DIR names (not drift)",
    },
    ...OUTPUT_OPTIONS,
    ...HARBOR_OPTIONS,
  ],
  examples: ["kubectl harbor diff harbor/ --connection harbor-system/harbor"],
  run: (inv) => runDiff(inv),
};

async function runDiff(inv: Invocation): Promise<number> {
  const dir = resolve(inv.args[0] as string);
  const folder = readFolder(dir);
  const format = formatOf(inv);
  if (folder.resources.length === 0)
    throw new CliError(`${shown(dir)} holds no resources this command can compare`);
  return withHarbor(inv, async (harbor) => {
    const r = await diffFolder(harbor.client, folder, {
      signal: inv.io.signal,
      concurrency: flagValue(inv, "concurrency", wholeNumber(1, 256), "8"),
      progress: progressOf(inv),
    });
    for (const u of r.uncompared)
      note(inv, `not compared: ${u.kind} ${u.name} (${u.file}): no exporter for this kind yet`);
    const unmanaged = flagSet(inv, "unmanaged") ? r.unmanaged : [];
    if (format !== "table") {
      print(
        inv,
        structured({ resources: r.resources, ...(flagSet(inv, "unmanaged") ? { unmanaged } : {}) }, format),
      );
    } else {
      print(inv, diffText(r.resources));
      if (unmanaged.length) {
        print(inv, "\nIn Harbor, named by no resource of the folder:\n");
        print(
          inv,
          list(
            unmanaged,
            [
              { header: "kind", value: (u) => u.kind },
              { header: "harbor name", value: (u) => u.harborName },
            ],
            "table",
          ),
        );
      }
    }
    if (r.resources.some((x) => x.state === "invalid")) return EXIT.failed;
    return r.resources.some((x) => x.state !== "in-sync") ? EXIT.drift : EXIT.ok;
  });
}

function diffText(resources: readonly ResourceDiff[]): string {
  const lines: string[] = [];
  for (const r of resources) {
    const what = `${r.kind} ${r.name}${r.harborName !== r.name ? ` ("${r.harborName}")` : ""}`;
    if (r.state === "in-sync") lines.push(`= ${what}: in sync`);
    else if (r.state === "missing") lines.push(`+ ${what}: missing in Harbor (${r.message})`);
    else if (r.state === "invalid") lines.push(`! ${what}: invalid (${r.message}) in ${r.file}`);
    else {
      lines.push(`~ ${what}: ${r.fields.length} field(s) differ`);
      for (const f of r.fields) {
        lines.push(
          f.secret
            ? `    ${f.field}: differs (a value from a Secret: not shown)`
            : `    ${f.field}: folder ${cell(f.folder)}, Harbor ${cell(f.harbor)}`,
        );
      }
    }
  }
  const drift = resources.filter((r) => r.state !== "in-sync").length;
  lines.push(
    drift
      ? `${drift} of ${resources.length} resources differ from Harbor`
      : `all ${resources.length} resources match Harbor`,
  );
  return `${lines.join("\n")}\n`;
}
