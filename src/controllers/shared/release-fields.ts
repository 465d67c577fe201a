// Spec fields that only some Harbor releases have. A kind lists them once (KindModule.releaseFields
// or RunKindModule.releaseFields, each naming the change of harbor/release.ts that brought the
// field); the wiring refuses a resource that uses one the connected Harbor lacks, before any Harbor
// call: Stalled, reason UnsupportedByHarbor, naming the field and the first release that has it. An
// older Harbor would drop such a value without a word (and the field would read as drift forever)
// or refuse the whole request. A value that means what a release without the field does anyway
// (false, an empty list, at most 5 GC workers) is taken: nothing is lost when Harbor drops it.
// A resource being deleted is never refused: its Harbor object must still be able to go.
import { firstReleaseText, type HarborChange, has, releaseOf } from "../../harbor/release.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import { Stalled } from "../../runtime/external-client.ts";

/** Ready=False (Stalled) reason: the spec asks for what the connected Harbor release cannot do. */
export const UNSUPPORTED_BY_HARBOR = "UnsupportedByHarbor";

export interface ReleaseField<S> {
  /** The spec path, e.g. "proxyCache.maxUpstreamConnections". */
  field: string;
  /** The change of harbor/release.ts that brought it. */
  change: HarborChange;
  /** Whether the spec asks for what a release without the change cannot do. */
  uses(spec: S): boolean;
  /** What is asked, when more than the field is meant: "spec.workers above 5". Default "spec.<field>". */
  what?: string;
}

/** The fields the spec uses that the reported release lacks, each with the release that has it. */
export function unsupportedFields<S>(
  fields: readonly ReleaseField<S>[] | undefined,
  spec: S,
  harborVersion: string | undefined,
): Array<{ what: string; since: string }> {
  if (!fields?.length) return [];
  const release = releaseOf(harborVersion);
  return fields
    .filter((f) => f.uses(spec) && !has(release, f.change))
    .map((f) => ({ what: f.what ?? `spec.${f.field}`, since: firstReleaseText(f.change) }));
}

/** Throws Stalled UnsupportedByHarbor when the spec uses a field the reported release lacks. */
export function refuseUnsupportedFields<S>(
  fields: readonly ReleaseField<S>[] | undefined,
  spec: S,
  harborVersion: string | undefined,
): void {
  const unsupported = unsupportedFields(fields, spec, harborVersion);
  if (unsupported.length)
    throw new Stalled(UNSUPPORTED_BY_HARBOR, unsupportedMessage(unsupported, harborVersion));
}

/** What the operator says of fields the release lacks: each with the release that has it. */
export function unsupportedMessage(
  unsupported: ReturnType<typeof unsupportedFields>,
  harborVersion: string | undefined,
): string {
  const what = unsupported.map((u) => `${u.what} needs Harbor ${u.since} or later`).join("; ");
  return `${what}; this Harbor is ${harborVersion}`;
}

interface Prepares<I> {
  prepare(input: I): Promise<unknown>;
}

/**
 * The kind's external client, whose prepare first refuses fields the connected Harbor lacks (not
 * while the resource is being deleted, nor once `started` says its Harbor object exists already
 * for a run that only needs following).
 */
export function withReleaseFields<
  S,
  I extends { resource: ManagedObject; spec: S; conn: { harborVersion?: string } },
  E extends Prepares<I>,
>(
  external: E,
  fields: readonly ReleaseField<S>[] | undefined,
  started?: (resource: ManagedObject) => boolean,
): E {
  if (!fields?.length) return external;
  return {
    ...external,
    async prepare(input: I) {
      const r = input.resource;
      if (!r.metadata.deletionTimestamp && !started?.(r))
        refuseUnsupportedFields(fields, input.spec, input.conn.harborVersion);
      return external.prepare(input);
    },
  } as E;
}
