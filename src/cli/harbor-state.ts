// Reading a Harbor through the kinds' exporters (controllers/shared/export.ts), for `export` and
// `diff`: which kinds a name on the command line means, which kinds must be read for the
// references of others, and the objects of each kind as their exporter wraps them.
import type { KindDefinition } from "../api/common.ts";
import { MANAGED_KINDS } from "../controllers/kind-list.ts";
import type { ExportReadContext, HarborObjectView } from "../controllers/shared/export.ts";
import { type HarborRelease, harborRelease } from "../controllers/shared/harbor-release.ts";
import type { KindModule } from "../controllers/shared/kinds.ts";
import type { HarborClient } from "../harbor/client.ts";
import type { PersistedProject } from "../harbor/projects.ts";
import { UsageError } from "./errors.ts";
import type { Progress } from "./output.ts";

// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
export type AnyKind = KindModule<any, any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their spec types
export type AnyView = HarborObjectView<any>;

/** The names a kind answers to on the command line: kind, plural, singular, short names, and those without "harbor". */
function namesOf(def: KindDefinition): string[] {
  const plain = [def.kind, def.plural, def.singular, ...def.shortNames].map((n) => n.toLowerCase());
  return [...plain, ...plain.filter((n) => n.startsWith("harbor")).map((n) => n.slice("harbor".length))];
}

/** The kinds these names mean (every managed kind when none is given). */
export function kindsNamed(names: readonly string[], command: string): AnyKind[] {
  if (names.length === 0) return [...MANAGED_KINDS];
  const out: AnyKind[] = [];
  for (const name of names) {
    const kind = MANAGED_KINDS.find((k) => namesOf(k.def).includes(name.toLowerCase()));
    if (!kind) {
      const known = MANAGED_KINDS.map((k) => k.def.plural.replace(/^harbor/, "")).join(", ");
      throw new UsageError(`--kinds: "${name}" is not a kind of this operator (${known})`, command);
    }
    if (!out.includes(kind)) out.push(kind);
  }
  return MANAGED_KINDS.filter((k) => out.includes(k));
}

/** These kinds and every kind they reference, transitively (their objects' names are needed). */
export function withReferenced(kinds: readonly AnyKind[]): AnyKind[] {
  const wanted = new Set(kinds.map((k) => k.def.kind));
  let grew = true;
  while (grew) {
    grew = false;
    for (const k of MANAGED_KINDS) {
      if (!wanted.has(k.def.kind)) continue;
      for (const target of Object.keys(k.watches?.references ?? {})) {
        if (!wanted.has(target)) {
          wanted.add(target);
          grew = true;
        }
      }
    }
  }
  return MANAGED_KINDS.filter((k) => wanted.has(k.def.kind));
}

export interface ReadOptions {
  harbor: HarborClient;
  signal: AbortSignal;
  concurrency: number;
  progress: Progress;
  includes?: (project: string) => boolean;
  deliverSecrets?: boolean;
  /** The Harbor's release, when the caller reads it too (see releaseReader). */
  release?: () => Promise<HarborRelease>;
}

/** The Harbor's release from its system info, read at the first call only. */
export function releaseReader(harbor: HarborClient, signal: AbortSignal): () => Promise<HarborRelease> {
  let release: Promise<HarborRelease> | undefined;
  return () => {
    release ??= harbor.system
      .getSystemInfo({ signal })
      .then((info) => harborRelease({ harborVersion: info.harbor_version ?? undefined }));
    return release;
  };
}

/** Runs fn over the items, `limit` at a time, keeping their order. */
export async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Every object of these kinds (those with an exporter), by kind; the kinds are read side by side. */
export async function readHarbor(kinds: readonly AnyKind[], o: ReadOptions): Promise<Map<string, AnyView[]>> {
  let projects: Promise<PersistedProject[]> | undefined;
  const ctx: ExportReadContext = {
    harbor: o.harbor,
    signal: o.signal,
    projects: () => {
      projects ??= o.harbor.projects.list({}, { signal: o.signal }).then((list) => {
        o.progress.update("projects", list.length);
        return list;
      });
      return projects;
    },
    release: o.release ?? releaseReader(o.harbor, o.signal),
    each: (items, fn) => eachLimited(items, o.concurrency, fn),
    progress: (what, done, total) => o.progress.update(what, done, total),
    includes: o.includes ?? (() => true),
    deliverSecrets: o.deliverSecrets ?? false,
  };
  const read = await Promise.all(
    kinds.map(async (k) => [k.def.kind, k.exporter ? await k.exporter.read(ctx) : []] as const),
  );
  o.progress.clear();
  return new Map(read);
}
