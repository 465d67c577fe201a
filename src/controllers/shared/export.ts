// What a kind supplies so that a live Harbor can be exported as resources and a folder of resources
// compared with a live Harbor (the CLI's `export` and `diff`, src/cli/). The contract, for every
// kind that declares an `exporter` in its KindModule:
//
// - `read` lists every object of the kind in one Harbor, in as few calls as the API allows (one
//   list, or one per project through `ctx.projects()` and `ctx.each`), and wraps each one as a
//   HarborObjectView. It never writes.
// - `identity` names the object: its Harbor id, a `key` unique within the kind in that Harbor, its
//   Harbor name (which becomes spec.name), a suggested metadata.name, and the projects it belongs to.
// - `spec` is the inverse of the kind's request mapping, written in its mapping.ts: the spec fields
//   that reproduce the object, with references named by the metadata.name of the referenced
//   resource (never by Harbor id) and Secret stubs (a name and keys, never a secret value) where the
//   spec reads a Secret. The defining property, tested per kind: `diff` of that spec against the
//   same object is empty, so that adopting it changes nothing in Harbor. An object the spec cannot
//   express is skipped with the reason.
// - `keyOf` gives the key of the object a spec (from a folder) names, resolving its references
//   through the folder; `diff` is the kind's own diff function, called exactly as its
//   ExternalClient.diff calls it, with the references resolved through the folder instead of the
//   informers. A folder holds no secret values: fields whose value comes from a Secret are
//   compared by presence only (and named by `secretField`).
//
// The CLI loops over MANAGED_KINDS (controllers/kind-list.ts): a kind without an exporter is listed
// as "not exported yet". Output is deterministic (no times, sorted lists), so that an export run
// twice against an unchanged Harbor gives identical files.
import { createHash } from "node:crypto";
import type { z } from "zod";
import type { HarborClient } from "../../harbor/client.ts";
import type { PersistedProject } from "../../harbor/projects.ts";
import type { HarborId, ManagedSpec } from "../../runtime/external-client.ts";
import type { HarborRelease } from "./harbor-release.ts";

/** What an exporter reads Harbor with. */
export interface ExportReadContext {
  harbor: HarborClient;
  signal: AbortSignal;
  /** Every project of the Harbor (with metadata and CVE allowlist), read once and shared by the kinds. */
  projects(): Promise<PersistedProject[]>;
  /**
   * The Harbor's release (the system info, read once and shared by the kinds): a folder's spec is
   * compared as the operator would apply it to this release.
   */
  release(): Promise<HarborRelease>;
  /** Runs `fn` over the items a few at a time (the client's concurrency cap applies as well). */
  each<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]>;
  /** Reports progress of a long read, e.g. ("robots", 340, 1000) per project listed. */
  progress(what: string, done: number, total?: number): void;
  /** Whether objects of this project are wanted (--projects): reads per project may skip the others. */
  includes(project: string): boolean;
  /**
   * Whether specs should have the operator issue and deliver the secrets Harbor never shows (robot
   * secrets), which replaces the current ones; by default they are left as they are.
   */
  deliverSecrets: boolean;
}

/** How an object of Harbor is named, and where it belongs. */
export interface ExportIdentity {
  /**
   * Harbor's id of the object (references between exported objects resolve through it): a number,
   * a UUID (scanner registrations), 0 for a per-Harbor setting.
   */
  id: HarborId;
  /**
   * Unique within the kind in one Harbor, and computable from a spec as well (see keyOf): e.g. the
   * name, or "<project>/<name>" for objects that live in a project.
   */
  key: string;
  /** The object's name in Harbor, written to spec.name. */
  harborName: string;
  /** The base of its metadata.name before it is made Kubernetes-safe, e.g. "team-a.ci". */
  suggestedName: string;
  /**
   * The Harbor projects the object belongs to or reaches (for --projects): the project of a
   * project-scoped object, those a system robot's or a replication policy's permissions reach,
   * "all" when it reaches every project, [] when it belongs to none (a registry).
   */
  projects: readonly string[] | "all";
}

/** A Secret an exported resource reads: its name and keys, never a secret value. */
export interface SecretStub {
  name: string;
  /** Key → value: "" for every secret value; only what Harbor shows in clear and is no secret (an access key). */
  values: Record<string, string>;
  /** The uses the Secret must allow (annotation harborconfig.io/usable-as). */
  usableAs: string;
  /** What to fill in, for the stub's comment. */
  comment: string;
}

/**
 * The spec fields an exporter writes, as a user would (defaults may be left out): everything but
 * connectionRef, creationPolicy and deletionPolicy, which the export adds. The CLI parses the
 * whole spec with the kind's schema before it writes it. Kinds whose objects have a name write it
 * to spec.name; per-Harbor settings and members have none.
 */
export type ExportedSpec = { name?: string } & Record<string, unknown>;

/** A kind's exported spec, typed from its schema as a user writes it (defaults may be left out). */
export type SpecFields<T extends z.ZodType> = Omit<z.input<T>, keyof ManagedSpec> & { name: string };

/** The same for kinds whose objects have no name (members, per-Harbor settings). */
export type UnnamedSpecFields<T extends z.ZodType> = Omit<z.input<T>, keyof ManagedSpec>;

/** A resolved id where the kind's ids are numbers (projects, user groups). */
export const numericId = (id: HarborId | undefined): number | undefined =>
  typeof id === "number" ? id : undefined;

export interface Exported {
  spec: ExportedSpec;
  secrets?: SecretStub[];
  /** What applying the resource does besides adopting, or what it leaves out; shown to the user. */
  notes?: string[];
  /**
   * Resources the spec references that the kind's `watches.references` cannot name (a member's
   * groupRef): written along with it, like those, when the export selects it.
   */
  references?: Array<[kind: string, name: string]>;
}

/** An object the spec cannot express, and why. */
export interface Skipped {
  skip: string;
}

export function isSkipped(e: Exported | Skipped): e is Skipped {
  return "skip" in e;
}

/** What `spec` needs to know about the other exported objects. */
export interface ExportNames {
  /** metadata.name of the exported resource of `kind` for the Harbor object with this id. */
  nameOf(kind: string, id: HarborId): string | undefined;
  /**
   * Whether this export writes resources of `kind` (--kinds): a reference to one it does not write
   * is better inline where the spec can say it so (a member's group).
   */
  exports(kind: string): boolean;
  /** metadata.name of this object's own resource (Secret stubs are named after it). */
  self: string;
}

/** How a spec read from a folder finds what it references. */
export interface FolderRefs {
  /**
   * The Harbor object that the folder's resource of `kind` named `name` stands for: its Harbor
   * name, and its id and key (ExportIdentity.key) when Harbor has it.
   */
  resolve(kind: string, name: string): { harborName: string; id?: HarborId; key?: string } | undefined;
  /** The values of a Secret of the folder (stubs hold no secret values), if it holds one of that name. */
  secret(name: string): Record<string, string> | undefined;
}

/** One Harbor object as an exporter read it. */
export interface HarborObjectView<S extends ManagedSpec> {
  identity: ExportIdentity;
  /** Harbor → spec: the inverse of the kind's request mapping. */
  spec(names: ExportNames): Exported | Skipped;
  /** The spec fields whose Harbor value differs, by the kind's own diff (see the file header). */
  diff(spec: S, harborName: string, refs: FolderRefs, now: number): string[];
  /**
   * A per-Harbor setting at Harbor's defaults (no GC schedule, no paused queue): the export writes
   * no resource for it, but a folder's resource is still compared with it.
   */
  atDefaults?: boolean;
}

export interface KindExporter<S extends ManagedSpec> {
  read(ctx: ExportReadContext): Promise<HarborObjectView<S>[]>;
  /** The key (as identity gives it) of the object a spec names; undefined when a reference it needs is missing. */
  keyOf(spec: S, harborName: string, refs: FolderRefs): string | undefined;
  /** Whether a field `diff` names holds a value read from a Secret (never shown). */
  secretField?(field: string): boolean;
}

/**
 * The one object of a per-Harbor setting kind (GC schedule, audit-log purge, job service): id 0 and
 * the setting's name as its key, in no project; `exported` is its exporter's inverse of the mapping,
 * undefined at Harbor's defaults (a setting is always there: a folder's resource is compared with it).
 */
export function settingView<S extends ManagedSpec>(
  setting: string,
  exported: Exported | Skipped | undefined,
  diff: (spec: S) => string[],
): HarborObjectView<S> {
  return {
    identity: { id: 0, key: setting, harborName: setting, suggestedName: setting, projects: [] },
    spec: () => exported ?? { skip: "at Harbor's defaults" },
    diff,
    ...(exported ? {} : { atDefaults: true }),
  };
}

// -------------------------------------------------------------------------------------------
// names

/** Longest metadata.name the export writes (a DNS subdomain is 253; room for a suffix). */
const MAX_NAME = 240;

/**
 * A Kubernetes-safe metadata.name (DNS subdomain) for a Harbor name: lower case, every other
 * character a "-", no empty or dashed dot-separated part. A name that had to change gets a short
 * hash of the original, so that "team_a" and "team-a" never meet, whatever else the Harbor holds.
 */
export function kubernetesName(harborName: string): string {
  const cleaned = harborName
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .split(".")
    .map((part) => part.replace(/-+/g, "-").replace(/^-+|-+$/g, ""))
    .filter((part) => part !== "")
    .join(".")
    .slice(0, MAX_NAME)
    .replace(/[-.]+$/, "");
  if (cleaned === harborName) return cleaned;
  return `${cleaned || "x"}-${shortHash(harborName)}`;
}

/** Six hex characters of the text's SHA-256. */
export function shortHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 6);
}

/** Whether `name` matches a pattern with "*" (any characters) and "?" (one character). */
export function globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`).test(name);
}
