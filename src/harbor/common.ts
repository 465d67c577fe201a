// Pieces shared by several API areas.
import { z } from "zod";

/**
 * A project as Harbor's `{project_name_or_id}` path parameter takes it: a number is an id, a string
 * a name. Names are always sent with X-Is-Resource-Name: true, so a project literally named "123"
 * is still addressed by name.
 */
export type ProjectRef = string | number;

export function projectHeaders(ref: ProjectRef): Record<string, string> {
  return typeof ref === "string" ? { "x-is-resource-name": "true" } : {};
}

/** Harbor's date-time fields, kept as the RFC 3339 text Harbor sends. */
export const Timestamp = z.string();

/**
 * An optional list or object of a response. go-swagger sends an unset one as `null` (not `[]`,
 * not absent) unless the swagger marks it x-omitempty (HARBOR-API.md §10), so `null` reads as
 * absent: callers see the same `undefined` either way.
 */
export const nullAsAbsent = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((v): z.output<T> | undefined => v ?? undefined)
    .optional();
