// `kubectl harbor diff`: a folder of resources against the live Harbor, field by field, with the
// operator's own judgement: each kind's diff function decides what differs (exactly as the drift
// sweep does), the kind's exporter finds the Harbor object a resource names, and Harbor's side of
// a field is shown as the exporter would write it. Fields whose value lives in a Secret are
// compared by presence (a folder holds no secret values) and their values never shown.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { API_VERSION } from "../api/common.ts";
import { MANAGED_KINDS } from "../controllers/kind-list.ts";
import { type FolderRefs, isSkipped } from "../controllers/shared/export.ts";
import { unsupportedFields, unsupportedMessage } from "../controllers/shared/release-fields.ts";
import type { HarborClient } from "../harbor/client.ts";
import { CliError } from "./errors.ts";
import { type AnyKind, type AnyView, readHarbor, releaseReader, withReferenced } from "./harbor-state.ts";
import type { Progress } from "./output.ts";

/** A resource of the folder. */
export interface FolderResource {
  kind: AnyKind;
  name: string;
  file: string;
  /** The spec as written (for showing values). */
  raw: Record<string, unknown>;
}

export interface Folder {
  resources: FolderResource[];
  /** Secrets of the folder by name: their values (stubs hold empty ones). */
  secrets: Map<string, Record<string, string>>;
  /** Resources of the API group whose kind this CLI cannot compare. */
  uncompared: Array<{ kind: string; name: string; file: string }>;
}

/** Reads every .yaml/.yml file under `dir` (a file also works): resources of the API group and Secrets. */
export function readFolder(dir: string): Folder {
  const out: Folder = { resources: [], secrets: new Map(), uncompared: [] };
  const files: string[] = [];
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const f of readdirSync(path).sort()) if (!f.startsWith(".")) walk(join(path, f));
    } else if (/\.ya?ml$/.test(path)) files.push(path);
  };
  try {
    walk(dir);
  } catch (e) {
    throw new CliError(
      `cannot read ${dir}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : (e as Error).message}`,
    );
  }
  for (const path of files) {
    const file = relative(dir, path) || path;
    for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
      if (doc.errors.length)
        throw new CliError(`${file}: not YAML: ${doc.errors[0]?.message.split("\n")[0]}`);
      const obj = doc.toJS() as Record<string, unknown> | null;
      if (!obj || typeof obj !== "object") continue;
      const meta = (obj.metadata ?? {}) as { name?: unknown };
      const name = typeof meta.name === "string" ? meta.name : "";
      if (obj.apiVersion === "v1" && obj.kind === "Secret" && name) {
        out.secrets.set(name, secretValues(obj));
        continue;
      }
      if (obj.apiVersion !== API_VERSION) continue;
      const kind = MANAGED_KINDS.find((k) => k.def.kind === obj.kind);
      if (!kind?.exporter) {
        if (typeof obj.kind === "string" && !/Connection$/.test(obj.kind))
          out.uncompared.push({ kind: obj.kind, name, file });
        continue;
      }
      if (!name) throw new CliError(`${file}: a ${kind.def.kind} without metadata.name`);
      out.resources.push({ kind, name, file, raw: (obj.spec ?? {}) as Record<string, unknown> });
    }
  }
  return out;
}

function secretValues(obj: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((obj.data ?? {}) as Record<string, unknown>))
    if (typeof v === "string") out[k] = Buffer.from(v, "base64").toString("utf8");
  for (const [k, v] of Object.entries((obj.stringData ?? {}) as Record<string, unknown>))
    if (typeof v === "string") out[k] = v;
  return out;
}

/** One field that differs; values are absent for secrets. */
export interface FieldDiff {
  field: string;
  folder?: unknown;
  harbor?: unknown;
  secret?: boolean;
}

export interface ResourceDiff {
  kind: string;
  name: string;
  harborName: string;
  file: string;
  /** in-sync, drift (fields differ), missing (no such object in Harbor), invalid (the spec does not parse). */
  state: "in-sync" | "drift" | "missing" | "invalid";
  fields: FieldDiff[];
  /** Why, for missing and invalid. */
  message?: string;
}

export interface DiffResult {
  resources: ResourceDiff[];
  /** Harbor objects of the folder's kinds that no resource of the folder names. */
  unmanaged: Array<{ kind: string; harborName: string }>;
  uncompared: Folder["uncompared"];
}

/** Compares the folder's resources with Harbor. */
export async function diffFolder(
  harbor: HarborClient,
  folder: Folder,
  read: { signal: AbortSignal; concurrency: number; progress: Progress; now?: number },
): Promise<DiffResult> {
  const kinds = MANAGED_KINDS.filter((k) => folder.resources.some((r) => r.kind === k));
  const release = releaseReader(harbor, read.signal);
  const byKind = await readHarbor(withReferenced(kinds), { harbor, ...read, release });
  const version = (await release()).version;
  const now = read.now ?? Date.now();
  const keyed = new Map<string, Map<string, AnyView>>();
  for (const [kind, views] of byKind) keyed.set(kind, new Map(views.map((v) => [v.identity.key, v])));

  // The folder's resources with their parsed specs and Harbor names, by kind and name.
  const parsed = folder.resources.map((r) => {
    const spec = r.kind.def.spec.safeParse(r.raw);
    const harborName = spec.success
      ? ((spec.data as { name?: string }).name ?? r.name)
      : typeof r.raw.name === "string"
        ? r.raw.name
        : r.name;
    return { r, spec, harborName };
  });
  const byName = new Map(parsed.map((p) => [`${p.r.kind.def.kind}/${p.r.name}`, p]));
  const keyOf = (p: (typeof parsed)[number]): string | undefined =>
    p.spec.success ? p.r.kind.exporter?.keyOf(p.spec.data, p.harborName, refs) : undefined;
  const refs: FolderRefs = {
    resolve(kind, name) {
      const p = byName.get(`${kind}/${name}`);
      if (!p) return undefined;
      const key = keyOf(p);
      const view = key === undefined ? undefined : keyed.get(kind)?.get(key);
      return { harborName: p.harborName, ...(view ? { id: view.identity.id, key: view.identity.key } : {}) };
    },
    secret: (name) => folder.secrets.get(name),
  };
  // Harbor's side of a field, as the export would write it: references by the folder's names.
  const folderNameOf = new Map<string, string>();
  for (const p of parsed) {
    const key = keyOf(p);
    const view = key === undefined ? undefined : keyed.get(p.r.kind.def.kind)?.get(key);
    if (view) folderNameOf.set(`${p.r.kind.def.kind}/${view.identity.id}`, p.r.name);
  }

  const resources: ResourceDiff[] = [];
  const named = new Set<AnyView>();
  for (const p of parsed) {
    const base = { kind: p.r.kind.def.kind, name: p.r.name, harborName: p.harborName, file: p.r.file };
    if (!p.spec.success) {
      const issue = p.spec.error.issues[0];
      resources.push({
        ...base,
        state: "invalid",
        fields: [],
        message: `spec.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
      });
      continue;
    }
    // What the operator would refuse on this release (Stalled, UnsupportedByHarbor) is no drift.
    const unsupported = unsupportedFields(p.r.kind.releaseFields, p.spec.data, version);
    if (unsupported.length) {
      resources.push({
        ...base,
        state: "invalid",
        fields: [],
        message: unsupportedMessage(unsupported, version),
      });
      continue;
    }
    const key = keyOf(p);
    const view = key === undefined ? undefined : keyed.get(base.kind)?.get(key);
    if (!view) {
      resources.push({
        ...base,
        state: "missing",
        fields: [],
        message:
          key === undefined
            ? "a resource it references is not in the folder"
            : `Harbor has no ${base.kind.replace(/^Harbor/, "").toLowerCase()} "${key}"`,
      });
      continue;
    }
    named.add(view);
    const drift = view.diff(p.spec.data, p.harborName, refs, now);
    const exported = view.spec({
      nameOf: (k, id) => folderNameOf.get(`${k}/${id}`),
      exports: (k) => folder.resources.some((r) => r.kind.def.kind === k),
      self: p.r.name,
    });
    // With the schema's defaults, as the folder's spec has them.
    const harborParsed = isSkipped(exported)
      ? undefined
      : p.r.kind.def.spec.safeParse({ ...pick(p.spec.data, MANAGED_FIELDS), ...exported.spec });
    const harborSpec = harborParsed?.success ? (harborParsed.data as Record<string, unknown>) : undefined;
    const secretField = p.r.kind.exporter?.secretField;
    resources.push({
      ...base,
      state: drift.length ? "drift" : "in-sync",
      fields: drift.map((field) =>
        secretField?.(field)
          ? { field, secret: true }
          : {
              field,
              folder: valueAt(p.spec.success ? (p.spec.data as Record<string, unknown>) : p.r.raw, field),
              harbor: harborSpec ? valueAt(harborSpec, field) : undefined,
            },
      ),
    });
  }
  const unmanaged: DiffResult["unmanaged"] = [];
  for (const k of kinds)
    for (const v of byKind.get(k.def.kind) ?? [])
      if (!named.has(v) && !v.atDefaults) unmanaged.push({ kind: k.def.kind, harborName: v.identity.key });
  return { resources, unmanaged, uncompared: folder.uncompared };
}

const MANAGED_FIELDS = ["connectionRef", "creationPolicy", "deletionPolicy"];

function pick(obj: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = obj as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

/** The value at a field path such as "targets[0].address" or "cveAllowlist". */
export function valueAt(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (!m || cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[m[1] as string];
    for (const idx of (m[2] ?? "").match(/\d+/g) ?? []) {
      cur = Array.isArray(cur) ? cur[Number(idx)] : undefined;
    }
  }
  return cur;
}
