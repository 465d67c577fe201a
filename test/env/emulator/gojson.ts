// How Go's encoding/json words what it refuses, for the emulator's 422 texts. Harbor's go-swagger
// binding decodes a body with a json.Decoder into the generated model struct before any model
// validation runs, so:
// - a syntax error is the decoder's: "unexpected EOF" for a body that ends early, "invalid
//   character 'x' looking for beginning of value" and the like otherwise; whatever follows the
//   first complete value is never read;
// - a value of the wrong JSON type is the unmarshaller's: "json: cannot unmarshal bool into Go
//   struct field ProjectMetadata.metadata.public of type string" (the innermost struct's type name,
//   the field path from the body's root, the Go type of the field).
// The Go type names come from zod metadata: `.meta({ goType: "ProjectMetadata" })` on an object
// schema names its struct; `.meta({ goType: "int32" })` on a number overrides the default int64.
import type { z } from "zod";

// ---------------------------------------------------------------------------------------------
// syntax

/** Go's quoteChar: 'x', '\'', '"', '\n', '\x01'. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const code = c.charCodeAt(0);
  const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
  if (named[c]) return `'${named[c]}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, "0")}'`;
  return `'${c}'`;
}

class GoSyntaxError extends Error {}

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";

/**
 * What Go's json.Decoder makes of the first JSON value of `text`: the error it reports, or where
 * that value ends (anything after it is never read). `text` must not be empty or all whitespace
 * (the decoder's io.EOF, which go-swagger reports as a missing body).
 */
export function goDecode(text: string): { error: string } | { end: number } {
  let i = 0;
  const eof = () => {
    throw new GoSyntaxError("unexpected EOF");
  };
  const fail = (c: string, context: string) => {
    throw new GoSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  };
  const skip = () => {
    while (isSpace(text[i])) i++;
  };
  const peek = () => {
    if (i >= text.length) eof();
    return text[i] as string;
  };

  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      const c = peek();
      if (c !== word[k]) fail(c, `in literal ${word} (expecting ${quoteChar(word[k] as string)})`);
    }
    i++;
  };

  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = peek();
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        i++;
        const e = peek();
        if (e === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            const h = peek();
            if (!/[0-9a-fA-F]/.test(h)) fail(h, "in \\u hexadecimal character escape");
          }
        } else if (!'"\\/bfnrt'.includes(e)) fail(e, "in string escape code");
        i++;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail(c, "in string literal");
      i++;
    }
  };

  const digits = () => {
    while (/[0-9]/.test(text[i] ?? "")) i++;
  };
  const number = () => {
    if (text[i] === "-") {
      i++;
      const c = peek();
      if (!/[0-9]/.test(c)) fail(c, "in numeric literal");
    }
    if (text[i] === "0") i++;
    else digits();
    if (text[i] === ".") {
      i++;
      const c = peek();
      if (!/[0-9]/.test(c)) fail(c, "after decimal point in numeric literal");
      digits();
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (peek() === "+" || text[i] === "-") i++;
      const c = peek();
      if (!/[0-9]/.test(c)) fail(c, "in exponent of numeric literal");
      digits();
    }
  };

  const value = (): void => {
    skip();
    const c = peek();
    if (c === "{") {
      i++;
      skip();
      if (peek() === "}") {
        i++;
        return;
      }
      for (;;) {
        skip();
        const k = peek();
        if (k !== '"') fail(k, "looking for beginning of object key string");
        string();
        skip();
        const colon = peek();
        if (colon !== ":") fail(colon, "after object key");
        i++;
        value();
        skip();
        const next = peek();
        if (next === "}") {
          i++;
          return;
        }
        if (next !== ",") fail(next, "after object key:value pair");
        i++;
      }
    }
    if (c === "[") {
      i++;
      skip();
      if (peek() === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        skip();
        const next = peek();
        if (next === "]") {
          i++;
          return;
        }
        if (next !== ",") fail(next, "after array element");
        i++;
      }
    }
    if (c === '"') string();
    else if (c === "-" || /[0-9]/.test(c)) number();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else fail(c, "looking for beginning of value");
  };

  try {
    value();
    return { end: i };
  } catch (e) {
    if (e instanceof GoSyntaxError) return { error: e.message };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// types

/** How Go names a JSON value's kind in an UnmarshalTypeError (a fraction for an int: "number 1.5"). */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "number" : `number ${v}`;
  if (typeof v === "string") return "string";
  return "object";
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const goTypeMeta = (s: z.ZodType) => (s.meta() as { goType?: string } | undefined)?.goType;

/** The schema under optional/nullable/default/pipe wrappers (keeping the outermost goType). */
function unwrap(s: z.ZodType): { schema: z.ZodType; goType: string | undefined } {
  let goType = goTypeMeta(s);
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    const next = d.innerType ?? (d.type === "pipe" ? d.in : undefined);
    if (!next) return { schema: cur, goType };
    cur = next;
    goType ??= goTypeMeta(cur);
  }
}

/** The Go type a field of this schema has in the go-swagger model. */
function goTypeOf(s: z.ZodType): string {
  const { schema, goType } = unwrap(s);
  const d = defOf(schema);
  switch (d.type) {
    case "string":
    case "enum":
      return goType ?? "string";
    case "boolean":
      return "bool";
    case "number":
      return goType ?? "int64";
    case "object":
      return `models.${goType ?? "Object"}`;
    case "array": {
      const el = d.element as z.ZodType;
      const inner = goTypeOf(el);
      return `[]${defOf(unwrap(el).schema).type === "object" ? "*" : ""}${inner}`;
    }
    case "record":
      return `map[string]${d.valueType ? goTypeOf(d.valueType) : "string"}`;
    default:
      return goType ?? "interface {}";
  }
}

/**
 * Go's UnmarshalTypeError for a value of the wrong JSON type at `path` of a body of schema `root`:
 * "json: cannot unmarshal <kind> into Go struct field <Struct>.<path> of type <type>", or "… into
 * Go value of type models.<Root>" for the body itself.
 */
export function goUnmarshalError(root: z.ZodType, path: ReadonlyArray<PropertyKey>, input: unknown): string {
  const kind = jsonKind(input);
  if (path.length === 0) return `json: cannot unmarshal ${kind} into Go value of type ${goTypeOf(root)}`;
  let struct = unwrap(root).goType ?? "Object";
  let cur: z.ZodType = root;
  const fields: string[] = [];
  for (const key of path) {
    const { schema, goType } = unwrap(cur);
    if (goType && defOf(schema).type === "object") struct = goType;
    const d = defOf(schema);
    if (d.type === "object" && typeof key === "string" && d.shape?.[key]) {
      fields.push(key);
      cur = d.shape[key];
    } else if (d.type === "array" && d.element) cur = d.element;
    else if (d.type === "record" && d.valueType) cur = d.valueType;
    else break;
  }
  return `json: cannot unmarshal ${kind} into Go struct field ${struct}.${fields.join(".")} of type ${goTypeOf(cur)}`;
}

/**
 * The nested models on the way to `path` (objects below the body, as "a", "a.b", "list.0"): each
 * validates itself and wraps its failures in a list of its own.
 */
export function objectAncestors(root: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const out: string[] = [];
  let cur: z.ZodType | undefined = root;
  for (let i = 0; i < path.length - 1 && cur; i++) {
    const key = path[i] as PropertyKey;
    const d = defOf(unwrap(cur).schema);
    if (d.type === "object" && typeof key === "string") cur = d.shape?.[key];
    else if (d.type === "array") cur = d.element;
    else if (d.type === "record") cur = d.valueType;
    else cur = undefined;
    if (cur && defOf(unwrap(cur).schema).type === "object") out.push(path.slice(0, i + 1).join("."));
  }
  return out;
}
