// `kubectl harbor export`: a live Harbor as the resources that reproduce it — one file per
// object under a folder per kind, Secret stubs apart (never secret values), and a kustomization
// that lists the resources. Every resource adopts (creationPolicy Adopt) and orphans (deletionPolicy
// Orphan) unless asked otherwise, names Harbor's object in spec.name under a Kubernetes-safe
// metadata.name, and references other resources by name, never Harbor ids. Each spec is checked
// before it is written: it must parse with the kind's schema, and the kind's own diff against
// the object it came from must be empty (so applying it writes nothing to Harbor); what fails is
// skipped and said. The output is deterministic: against an unchanged Harbor a second export
// gives the same bytes, which `--check` verifies.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { API_VERSION, USABLE_AS_ANNOTATION, WATCH_LABEL } from "../api/common.ts";
import { MANAGED_KINDS } from "../controllers/kind-list.ts";
import {
  type ExportNames,
  type FolderRefs,
  globMatches,
  isSkipped,
  kubernetesName,
  type SecretStub,
  shortHash,
} from "../controllers/shared/export.ts";
import type { HarborClient } from "../harbor/client.ts";
import { type AnyKind, type AnyView, readHarbor, withReferenced } from "./harbor-state.ts";
import { type Progress, printable } from "./output.ts";

export interface ExportOptions {
  /** The kinds to write (the kinds they reference are read, not written). */
  kinds: readonly AnyKind[];
  /** Harbor project name patterns ("*" and "?"); none: every project. */
  projects: readonly string[];
  creationPolicy: "Create" | "Adopt" | "CreateOrAdopt";
  deletionPolicy: "Delete" | "Orphan";
  connectionRef: { kind: "HarborConnection" | "ClusterHarborConnection"; name: string };
  /** Written to the kustomization (and the Secret stubs); none: the namespace kubectl applies to. */
  namespace?: string;
  deliverSecrets: boolean;
  /** Harbor's URL, for the kustomization's comment. */
  harborUrl: string;
}

export interface ExportedResource {
  kind: string;
  name: string;
  harborName: string;
  file: string;
  notes: string[];
}

export interface ExportResult {
  /** Path (relative, "/"-separated) → content, resources and kustomization. */
  files: Map<string, string>;
  /** Secret stubs: path → content (written only where none exists: they may have been filled in). */
  secrets: Map<string, string>;
  resources: ExportedResource[];
  skipped: Array<{ kind: string; harborName: string; reason: string }>;
  /** Kinds asked for that have no exporter yet. */
  notExported: string[];
  /** Per kind asked for: how many were written and skipped. */
  counts: Array<{ kind: string; exported: number; skipped: number }>;
}

/** The folder a kind's files go to. */
const folderOf = (k: AnyKind) => k.def.plural;
const SECRETS_FOLDER = "secrets";
const KUSTOMIZATION = "kustomization.yaml";

interface Entry {
  kind: AnyKind;
  view: AnyView;
  name: string;
}

/** Reads Harbor and builds the files (nothing is written here). */
export async function buildExport(
  harbor: HarborClient,
  o: ExportOptions,
  read: { signal: AbortSignal; concurrency: number; progress: Progress; now?: number },
): Promise<ExportResult> {
  // The kinds written: those asked for that can be exported (the others are only said).
  const wanted = new Set(o.kinds.filter((k) => k.exporter).map((k) => k.def.kind));
  const includes = (project: string) =>
    o.projects.length === 0 || o.projects.some((p) => globMatches(p, project));
  const byKind = await readHarbor(withReferenced(o.kinds), {
    harbor,
    ...read,
    includes,
    deliverSecrets: o.deliverSecrets,
  });

  // Names for every object read (references need them), per kind; a name two objects would share
  // gets a hash of each one's key.
  const entries: Entry[] = [];
  const nameById = new Map<string, string>();
  for (const kind of MANAGED_KINDS) {
    const views = [...(byKind.get(kind.def.kind) ?? [])].sort((a, b) =>
      compare(a.identity.key, b.identity.key),
    );
    const base = views.map((v) => kubernetesName(v.identity.suggestedName));
    const seen = new Map<string, number>();
    for (const b of base) seen.set(b, (seen.get(b) ?? 0) + 1);
    views.forEach((view, i) => {
      const b = base[i] as string;
      const name = (seen.get(b) ?? 0) > 1 ? `${b}-${shortHash(view.identity.key)}` : b;
      entries.push({ kind, view, name });
      nameById.set(`${kind.def.kind}/${view.identity.id}`, name);
    });
  }
  const byName = new Map(entries.map((e) => [`${e.kind.def.kind}/${e.name}`, e]));

  // What is written: the kinds asked for, in the projects asked for, and what those reference.
  const selected = (e: Entry) => {
    if (!wanted.has(e.kind.def.kind) || e.view.atDefaults) return false;
    const p = e.view.identity.projects;
    if (o.projects.length === 0) return true;
    return p !== "all" && p.length > 0 && p.every(includes);
  };
  const result: ExportResult = {
    files: new Map(),
    secrets: new Map(),
    resources: [],
    skipped: [],
    notExported: o.kinds.filter((k) => !k.exporter).map((k) => k.def.kind),
    counts: [],
  };
  const refs: FolderRefs = {
    resolve: (kind, name) => {
      const e = byName.get(`${kind}/${name}`);
      return e
        ? { harborName: e.view.identity.harborName, id: e.view.identity.id, key: e.view.identity.key }
        : undefined;
    },
    secret: () => undefined,
  };
  const now = read.now ?? Date.now();
  const done = new Set<Entry>();
  const queue = entries.filter(selected);
  const written: Array<{
    entry: Entry;
    doc: Record<string, unknown>;
    notes: string[];
    references: Array<[string, string]>;
    stubs: SecretStub[];
  }> = [];
  while (queue.length) {
    const entry = queue.shift() as Entry;
    if (done.has(entry)) continue;
    done.add(entry);
    const { kind, view, name } = entry;
    const names: ExportNames = {
      nameOf: (k, id) => nameById.get(`${k}/${id}`),
      exports: (k) => wanted.has(k),
      self: name,
    };
    const exported = view.spec(names);
    const skip = (reason: string) =>
      result.skipped.push({ kind: kind.def.kind, harborName: view.identity.harborName, reason });
    if (isSkipped(exported)) {
      skip(exported.skip);
      continue;
    }
    const spec = {
      connectionRef: o.connectionRef,
      creationPolicy: o.creationPolicy,
      deletionPolicy: o.deletionPolicy,
      ...exported.spec,
    };
    const parsed = kind.def.spec.safeParse(spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      skip(`the CRD would refuse it: spec.${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`);
      continue;
    }
    const drift = view.diff(parsed.data, view.identity.harborName, refs, now);
    if (drift.length) {
      skip(
        `its spec would still differ from Harbor in ${drift.join(", ")}, so adopting it would change Harbor`,
      );
      continue;
    }
    const references: Array<[string, string]> = [];
    // By name in the namespace ({ matches } references name none), and those the spec names itself.
    for (const [target, refOf] of Object.entries(kind.watches?.references ?? {})) {
      if (typeof refOf !== "function") continue;
      const ref = (refOf as (s: unknown) => string | undefined)(parsed.data);
      if (ref !== undefined) references.push([target, ref]);
    }
    for (const [target, ref] of exported.references ?? [])
      if (!references.some(([t, r]) => t === target && r === ref)) references.push([target, ref]);
    for (const [target, ref] of references) {
      const dep = byName.get(`${target}/${ref}`);
      if (dep && wanted.has(target)) queue.push(dep);
    }
    written.push({
      entry,
      doc: { apiVersion: API_VERSION, kind: kind.def.kind, metadata: { name }, spec },
      notes: [...(exported.notes ?? [])],
      references,
      stubs: exported.secrets ?? [],
    });
  }
  // A reference to a resource this export does not write (another kind, or one it skipped) waits
  // for that resource: say so.
  const writtenNames = new Set(written.map((w) => `${w.entry.kind.def.kind}/${w.entry.name}`));
  for (const w of written) {
    for (const [target, ref] of w.references) {
      if (writtenNames.has(`${target}/${ref}`)) continue;
      w.notes.push(
        `it references ${target} ${ref}, which this export does not write (${wanted.has(target) ? "skipped" : "--kinds"}): it waits until that resource exists`,
      );
    }
  }

  written.sort(
    (a, b) =>
      MANAGED_KINDS.indexOf(a.entry.kind) - MANAGED_KINDS.indexOf(b.entry.kind) ||
      compare(a.entry.name, b.entry.name),
  );
  for (const { entry, doc, notes, stubs } of written) {
    const file = `${folderOf(entry.kind)}/${entry.name}.yaml`;
    result.files.set(file, withComments(notes, doc));
    result.resources.push({
      kind: entry.kind.def.kind,
      name: entry.name,
      harborName: entry.view.identity.harborName,
      file,
      notes,
    });
    for (const stub of stubs)
      result.secrets.set(`${SECRETS_FOLDER}/${stub.name}.yaml`, secretStub(stub, o.namespace));
  }
  result.files.set(KUSTOMIZATION, kustomization(o, result));
  result.counts = o.kinds
    .filter((k) => k.exporter)
    .map((k) => ({
      kind: k.def.kind,
      exported: result.resources.filter((r) => r.kind === k.def.kind).length,
      skipped: result.skipped.filter((s) => s.kind === k.def.kind).length,
    }));
  return result;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One line of a YAML comment: no line break or control character can end it early. */
function commentLine(text: string): string {
  return `# ${printable(text.replace(/[\r\n]+/g, " "))}`.trimEnd();
}

function withComments(comments: readonly string[], doc: unknown): string {
  const head = comments.map(commentLine).join("\n");
  return `${head ? `${head}\n` : ""}${stringify(doc, { lineWidth: 0 })}`;
}

function secretStub(stub: SecretStub, namespace: string | undefined): string {
  return withComments(
    [
      stub.comment,
      "A stub: fill in the empty values and create it apart from the kustomization (kubectl apply -f, or sealed-secrets or external-secrets); never commit secret values.",
    ],
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: stub.name,
        ...(namespace ? { namespace } : {}),
        labels: { [WATCH_LABEL]: "true" },
        annotations: { [USABLE_AS_ANNOTATION]: stub.usableAs },
      },
      type: "Opaque",
      stringData: stub.values,
    },
  );
}

function kustomization(o: ExportOptions, r: ExportResult): string {
  return withComments(
    [
      `Harbor ${o.harborUrl}, as written by kubectl harbor export. Apply with: kubectl apply -k <this folder>`,
      ...(r.secrets.size
        ? [
            `The Secrets in ${SECRETS_FOLDER}/ are stubs, left out of this list: fill them in and create them apart.`,
          ]
        : []),
    ],
    {
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      ...(o.namespace ? { namespace: o.namespace } : {}),
      resources: r.resources.map((x) => x.file),
    },
  );
}

// -------------------------------------------------------------------------------------------
// the folder

/** The .yaml files of the folders an export writes (kind folders, secrets/) and its kustomization. */
function managedFiles(dir: string): Set<string> {
  const out = new Set<string>();
  if (existsSync(join(dir, KUSTOMIZATION))) out.add(KUSTOMIZATION);
  for (const sub of [...MANAGED_KINDS.map(folderOf), SECRETS_FOLDER]) {
    const folder = join(dir, sub);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
    for (const f of readdirSync(folder)) if (f.endsWith(".yaml")) out.add(`${sub}/${f}`);
  }
  return out;
}

/** Writes the export into `dir`: its files, Secret stubs where none exists, and removes what Harbor no longer has. */
export function writeExport(
  dir: string,
  r: ExportResult,
): { written: number; removed: string[]; stubs: number } {
  const before = managedFiles(dir);
  let stubs = 0;
  for (const [file, content] of r.files) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  for (const [file, content] of r.secrets) {
    if (before.has(file)) continue; // maybe filled in: never overwritten
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), content);
    stubs++;
  }
  const removed = [...before].filter((f) => !r.files.has(f) && !r.secrets.has(f)).sort();
  for (const f of removed) rmSync(join(dir, f));
  return { written: r.files.size, removed, stubs };
}

/** How the folder differs from what the export would write (Secret stubs: only whether they exist). */
export function checkExport(
  dir: string,
  r: ExportResult,
): Array<{ file: string; change: "added" | "changed" | "removed" }> {
  const present = managedFiles(dir);
  const out: Array<{ file: string; change: "added" | "changed" | "removed" }> = [];
  for (const [file, content] of r.files) {
    if (!present.has(file)) out.push({ file, change: "added" });
    else if (readFileSync(join(dir, file), "utf8") !== content) out.push({ file, change: "changed" });
  }
  for (const file of r.secrets.keys()) if (!present.has(file)) out.push({ file, change: "added" });
  for (const file of present)
    if (!r.files.has(file) && !r.secrets.has(file)) out.push({ file, change: "removed" });
  return out.sort((a, b) => compare(a.file, b.file));
}

/** A path relative to the working directory, for messages. */
export function shown(dir: string): string {
  return relative(process.cwd(), dir) || ".";
}
