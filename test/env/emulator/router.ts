// Routes and go-swagger-style binding. What go-swagger rejects before a Harbor handler runs is
// rejected here the same way, with 422 UNPROCESSABLE_ENTITY and a "validation failure list":
// path ids that are not int64, page_size above 100, missing required parameters or body fields,
// enum violations, malformed JSON and non-JSON bodies. Handlers then see typed values only.
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { Caller } from "./auth.ts";
import { ApiError, unprocessable } from "./errors.ts";
import type { World } from "./world.ts";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ParamSpec {
  type: "int" | "bool" | "string" | "string[]";
  required?: boolean;
  enum?: readonly string[];
  max?: number;
  default?: number | boolean | string;
}

export interface RouteSpec {
  /** Harbor's operationId; also the key of the emulator's request counters and fault rules. */
  op: string;
  method: Method;
  /** Below /api/v2.0, with {param} placeholders. */
  path: string;
  /** Path parameter types; undeclared ones are strings. */
  params?: Record<string, "int" | "string">;
  query?: Record<string, ParamSpec>;
  /** Adds Harbor's page (default 1) and page_size (default 10, max 100) query parameters. */
  paged?: boolean;
  headers?: Record<string, ParamSpec>;
  /** The body parameter: its swagger name and a zod schema of the swagger-level constraints only. */
  body?: { name: string; schema: z.ZodType; optional?: boolean };
  handle(ctx: Ctx): Reply | Promise<Reply>;
}

export interface Ctx {
  world: World;
  caller: Caller;
  op: string;
  method: Method;
  url: URL;
  requestId: string;
  params: Record<string, string | number>;
  query: Record<string, string | number | boolean | string[] | undefined>;
  rawQuery: URLSearchParams;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: validated by the route's body schema
  body: any;
}

export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export const ok = (json?: unknown): Reply => (json === undefined ? { status: 200 } : { status: 200, json });
export const textReply = (text: string): Reply => ({
  status: 200,
  text,
  headers: { "content-type": "text/plain; charset=utf-8" },
});
/** 201 with the path-only Location Harbor sends: the request path plus the new id. */
export const createdAt = (ctx: Ctx, id: string | number): Reply => ({
  status: 201,
  headers: { location: `${ctx.url.pathname.replace(/\/+$/, "")}/${id}` },
});

interface CompiledRoute {
  spec: RouteSpec;
  regex: RegExp;
  names: string[];
  literals: number;
  segments: number;
}

export type Match =
  | { kind: "found"; route: RouteSpec; params: Record<string, string> }
  | { kind: "method"; allowed: Method[] }
  | { kind: "none" };

export class Router {
  readonly #routes: CompiledRoute[] = [];

  add(...specs: RouteSpec[]): void {
    for (const spec of specs) {
      const names: string[] = [];
      const parts = spec.path.split("/").filter(Boolean);
      const pattern = parts
        .map((p) => {
          const m = /^\{(\w+)\}$/.exec(p);
          if (m) {
            names.push(m[1] as string);
            return "/([^/]+)";
          }
          return `/${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
        })
        .join("");
      this.#routes.push({
        spec,
        regex: new RegExp(`^${pattern}/?$`),
        names,
        literals: parts.length - names.length,
        segments: parts.length,
      });
    }
    // Literal segments win over placeholders: /usergroups/search before /usergroups/{group_id}.
    this.#routes.sort((a, b) => b.literals - a.literals || a.segments - b.segments);
  }

  get routes(): RouteSpec[] {
    return this.#routes.map((r) => r.spec);
  }

  match(method: string, path: string): Match {
    const allowed: Method[] = [];
    for (const r of this.#routes) {
      const m = r.regex.exec(path);
      if (!m) continue;
      if (r.spec.method !== method) {
        allowed.push(r.spec.method);
        continue;
      }
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        params[n] = decodeURIComponent(m[i + 1] as string);
      });
      return { kind: "found", route: r.spec, params };
    }
    return allowed.length ? { kind: "method", allowed } : { kind: "none" };
  }
}

const PAGING: Record<string, ParamSpec> = {
  page: { type: "int", default: 1 },
  page_size: { type: "int", default: 10, max: 100 },
};

/** Binds path, query, header and body values as go-swagger does; throws 422 on any failure. */
export function bind(
  route: RouteSpec,
  raw: { params: Record<string, string>; query: URLSearchParams; headers: IncomingHttpHeaders; body: Buffer },
): Pick<Ctx, "params" | "query" | "body"> {
  const failures: string[] = [];
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(raw.params)) {
    if (route.params?.[name] === "int") {
      const n = parseInt64(value);
      if (n === undefined) failures.push(`${name} in path must be of type int64: "${value}"`);
      else params[name] = n;
    } else params[name] = value;
  }

  const query: Ctx["query"] = {};
  const querySpecs = { ...(route.paged ? PAGING : {}), ...route.query };
  for (const [name, spec] of Object.entries(querySpecs)) {
    const v = bindValue(name, "query", spec, raw.query.get(name) ?? undefined, failures);
    if (v !== undefined) query[name] = v;
  }
  for (const [name, spec] of Object.entries(route.headers ?? {})) {
    const header = raw.headers[name.toLowerCase()];
    const v = bindValue(name, "header", spec, Array.isArray(header) ? header[0] : header, failures);
    if (v !== undefined) query[name] = v;
  }

  let body: unknown;
  if (route.body) {
    body = bindBody(route.body, raw.headers, raw.body, failures);
  }
  if (failures.length) throw unprocessable(failures);
  return { params, query, body };
}

function bindValue(
  name: string,
  where: "query" | "header",
  spec: ParamSpec,
  value: string | undefined,
  failures: string[],
): string | number | boolean | string[] | undefined {
  if (value === undefined || value === "") {
    if (spec.required) failures.push(`${name} in ${where} is required`);
    return spec.default;
  }
  switch (spec.type) {
    case "int": {
      const n = parseInt64(value);
      if (n === undefined) {
        failures.push(`${name} in ${where} must be of type int64: "${value}"`);
        return undefined;
      }
      if (spec.max !== undefined && n > spec.max) {
        failures.push(`${name} in ${where} should be less than or equal to ${spec.max}`);
      }
      return n;
    }
    case "bool": {
      const b = parseBool(value);
      if (b === undefined) failures.push(`${name} in ${where} must be of type boolean: "${value}"`);
      return b;
    }
    case "string[]":
      return value.split(",");
    case "string":
      if (spec.enum && !spec.enum.includes(value)) {
        failures.push(`${name} in ${where} should be one of [${spec.enum.join(" ")}]`);
      }
      return value;
  }
}

function bindBody(
  spec: NonNullable<RouteSpec["body"]>,
  headers: IncomingHttpHeaders,
  raw: Buffer,
  failures: string[],
): unknown {
  if (raw.length === 0) {
    if (!spec.optional) failures.push(`${spec.name} in body is required`);
    return undefined;
  }
  const type = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    failures.push(
      `unsupported media type "${type || "application/octet-stream"}", only [application/json] are allowed`,
    );
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch (e) {
    failures.push(`parsing ${spec.name} body from "" failed, because ${(e as Error).message}`);
    return undefined;
  }
  const parsed = spec.schema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) failures.push(describeIssue(issue));
    return undefined;
  }
  return parsed.data;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.join(".") : "body";
  if (issue.code === "invalid_type") {
    const input = (issue as { input?: unknown }).input;
    if (input === undefined) return `${where} in body is required`;
    return `${where} in body must be of type ${issue.expected}: ${JSON.stringify(typeof input)}`;
  }
  if (issue.code === "invalid_value") {
    return `${where} in body should be one of [${issue.values.map(String).join(" ")}]`;
  }
  return `${where} in body ${issue.message}`;
}

export function parseInt64(value: string): number | undefined {
  if (!/^[+-]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** strconv.ParseBool */
export function parseBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

export { ApiError };
