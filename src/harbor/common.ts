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
