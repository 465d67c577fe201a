// Routes and go-swagger-style binding. What go-swagger rejects before a Harbor handler runs is
// rejected here the same way, with 422 UNPROCESSABLE_ENTITY and a "validation failure list":
// path ids that are not int64, page_size above 100, missing required parameters or body fields,
// enum violations, malformed JSON (Go's decoder text), values of the wrong JSON type (Go's
// unmarshal text) and non-JSON bodies. Handlers then see typed values only.
//
// Harbor's ids are int4 in PostgreSQL while the API takes int64: a path id outside int4 passes
// binding and fails in the database, a masked 500 (401 first for anonymous callers).
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { Caller } from "./auth.ts";
import { ApiError, failureList, internal, unauthorized, unprocessable } from "./errors.ts";
import { goDecode, goUnmarshalError, objectAncestors } from "./gojson.ts";
import type { Change, HarborVersion } from "./version.ts";
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
  /**
   * The body parameter: its swagger name and a zod schema of the swagger-level constraints only
   * (object schemas carry their Go model's name as `.meta({ goType })`, for Go's type errors), or
   * a function that gives the model of a release, for models that differ by release (go-swagger
   * drops the fields a release's model does not have).
   */
  body?: { name: string; schema: z.ZodType | ((version: HarborVersion) => z.ZodType); optional?: boolean };
  /** The operation exists from the release that has this change (version.ts) on. */
  since?: Change;
  /** The operation exists only in releases before the one that has this change. */
  until?: Change;
  handle(ctx: Ctx): Reply | Promise<Reply>;
}

/**
 * A body model per release, built once per release: `build` gets the release and says which
 * fields its model has.
 */
export function perRelease(
  build: (version: HarborVersion) => z.ZodType,
): (version: HarborVersion) => z.ZodType {
  const built = new Map<string, z.ZodType>();
  return (version) => {
    let model = built.get(version.name);
    if (!model) {
      model = build(version);
      built.set(version.name, model);
    }
    return model;
  };
}

/** Whether the release serves the operation: one it does not have is a route not found (404). */
export function servedBy(route: RouteSpec, version: HarborVersion): boolean {
  return (!route.since || version.has(route.since)) && (!route.until || !version.has(route.until));
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

/** PostgreSQL's integer, the type of every Harbor id column. */
export const INT4_MAX = 2 ** 31 - 1;
export const inInt4 = (n: number) => n >= -(2 ** 31) && n <= INT4_MAX;
/** What the database says when an id does not fit (masked as 500 like every plain error). */
export const int4Overflow = (n: number) => internal(`value "${n}" is out of range for type integer`);

/**
 * Binds path, query, header and body values as go-swagger does; throws 422 on any failure, then
 * the database's 500 for a path id outside int4.
 */
export function bind(
  route: RouteSpec,
  raw: {
    params: Record<string, string>;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
    body: Buffer;
    anonymous?: boolean;
    /** The release modelled, for body models that differ by release. */
    version: HarborVersion;
  },
): Pick<Ctx, "params" | "query" | "body"> {
  const failures: string[] = [];
  const params: Record<string, string | number> = {};
  let overflow: number | undefined;
  for (const [name, value] of Object.entries(raw.params)) {
    if (route.params?.[name] === "int") {
      const n = parseInt64(value);
      if (n === undefined) failures.push(`${name} in path must be of type int64: "${value}"`);
      else {
        params[name] = n;
        if (!inInt4(n)) overflow ??= n;
      }
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
    const { schema } = route.body;
    const model = typeof schema === "function" ? schema(raw.version) : schema;
    body = bindBody({ ...route.body, schema: model }, raw.headers, raw.body, failures);
  }
  if (failures.length) throw unprocessable(failures);
  if (overflow !== undefined) throw raw.anonymous ? unauthorized() : int4Overflow(overflow);
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
  spec: { name: string; schema: z.ZodType; optional?: boolean },
  headers: IncomingHttpHeaders,
  raw: Buffer,
  failures: string[],
): unknown {
  const text = raw.toString("utf8");
  // The decoder's io.EOF (nothing but whitespace) is go-swagger's "required".
  if (text.trim() === "") {
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
  const parseFailure = (reason: string) =>
    failures.push(`parsing ${spec.name} body from "" failed, because ${reason}`);
  const decoded = goDecode(text);
  if ("error" in decoded) {
    parseFailure(decoded.error);
    return undefined;
  }
  // Only the first value: Go's decoder never reads what follows it.
  const json: unknown = JSON.parse(text.slice(0, decoded.end));
  const parsed = spec.schema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    // Decoding into the model fails on the first value of a wrong JSON type; validation of the
    // decoded model (required fields, enums, lengths) only runs when decoding succeeded.
    const typeIssue = parsed.error.issues.find(isTypeMismatch);
    if (typeIssue) {
      parseFailure(goUnmarshalError(spec.schema, typeIssue.path, (typeIssue as { input?: unknown }).input));
    } else failures.push(modelFailureList(spec.schema, parsed.error.issues));
    return undefined;
  }
  return parsed.data;
}

/** A JSON value of another type than the model's; null is not one (Go leaves the field unset). */
function isTypeMismatch(issue: z.core.$ZodIssue): boolean {
  const input = (issue as { input?: unknown }).input;
  return issue.code === "invalid_type" && input !== undefined && input !== null;
}

/**
 * The body model's validation errors as go-swagger nests them: the model's list, and inside it one
 * list per nested model (an object field, an element of an array of objects) that failed.
 */
function modelFailureList(schema: z.ZodType, issues: readonly z.core.$ZodIssue[]): string {
  interface Node {
    lines: string[];
    children: Map<string, Node>;
  }
  const root: Node = { lines: [], children: new Map() };
  for (const issue of issues) {
    let node = root;
    for (const ancestor of objectAncestors(schema, issue.path)) {
      let child = node.children.get(ancestor);
      if (!child) {
        child = { lines: [], children: new Map() };
        node.children.set(ancestor, child);
      }
      node = child;
    }
    node.lines.push(describeIssue(issue));
  }
  const render = (n: Node): string => failureList([...n.lines, ...[...n.children.values()].map(render)]);
  return render(root);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.join(".") : "body";
  if (issue.code === "invalid_type") return `${where} in body is required`;
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
