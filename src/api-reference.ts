// The API reference (docs/reference/api.md), generated from the CRDs that the kinds' zod schemas
// make: every field of every kind with its type, default, validation and description, and the
// columns `kubectl get` shows. A fact about a field is written once, in its schema's description,
// and reaches `kubectl explain`, the CRD and this page from there.

import type { KindDefinition } from "./api/common.ts";
import { crdFor } from "./api/crd.ts";

interface Schema {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-validations"?: Array<{ rule: string; message?: string; messageExpression?: string }>;
}

interface PrinterColumn {
  name: string;
  jsonPath: string;
  priority?: number;
  description?: string;
}

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, " ").replaceAll("|", "\\|");
const code = (text: string) => `\`${text.replaceAll("`", "'")}\``;

function typeOf(s: Schema): string {
  if (s["x-kubernetes-int-or-string"]) return "integer or string";
  if (s.type === "array") return `array of ${s.items ? typeOf(s.items) : "any"}`;
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object")
    return `map of ${typeOf(s.additionalProperties)}`;
  return s.type ?? (s.anyOf || s.oneOf ? "one of several" : "any");
}

function rulesOf(s: Schema): string[] {
  const out: string[] = [];
  if (s.enum) out.push(`one of ${s.enum.map((v) => code(String(v))).join(", ")}`);
  if (s.pattern) out.push(`matches ${code(s.pattern)}`);
  if (s.format) out.push(`format ${s.format}`);
  if (s.minimum !== undefined) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`≤ ${s.maximum}`);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  if (s.minLength !== undefined) out.push(`at least ${count(s.minLength, "character")}`);
  if (s.maxLength !== undefined) out.push(`at most ${count(s.maxLength, "character")}`);
  if (s.minItems !== undefined) out.push(`at least ${count(s.minItems, "item")}`);
  if (s.maxItems !== undefined) out.push(`at most ${count(s.maxItems, "item")}`);
  for (const v of s["x-kubernetes-validations"] ?? []) out.push(v.message ?? `${code(v.rule)}`);
  return out;
}

/** Rows for a schema's fields, depth first, with their dotted paths. */
function rows(s: Schema, path: string, out: string[]): void {
  const required = new Set(s.required ?? []);
  for (const [name, field] of Object.entries(s.properties ?? {})) {
    const p = `${path}.${name}`;
    const dflt = field.default === undefined ? "" : code(JSON.stringify(field.default));
    const rules = [...(required.has(name) ? ["required"] : []), ...rulesOf(field)].join("; ");
    out.push(
      `| ${code(p)} | ${cell(typeOf(field))} | ${cell(dflt)} | ${cell(rules)} | ${cell(field.description ?? "")} |`,
    );
    const inner = field.type === "array" ? field.items : field;
    if (inner?.properties) rows(inner, field.type === "array" ? `${p}[]` : p, out);
  }
}

function kindSection(def: KindDefinition): string {
  const crd = crdFor(def) as unknown as {
    spec: {
      scope: string;
      names: { shortNames?: string[] };
      versions: Array<{
        name: string;
        additionalPrinterColumns?: PrinterColumn[];
        schema: { openAPIV3Schema: Schema };
      }>;
    };
  };
  const version = crd.spec.versions[0];
  const schema = version?.schema.openAPIV3Schema ?? {};
  const out = [
    `## ${def.kind}`,
    "",
    cell(schema.description ?? ""),
    "",
    `${crd.spec.scope}; \`kubectl get ${def.plural}\`${crd.spec.names.shortNames?.length ? ` (short name ${crd.spec.names.shortNames.map((n) => `\`${n}\``).join(", ")})` : ""}.`,
    "",
  ];
  for (const part of ["spec", "status"] as const) {
    const s = schema.properties?.[part];
    if (!s?.properties) continue;
    out.push(
      `### ${def.kind} ${part}`,
      "",
      "| Field | Type | Default | Validation | Description |",
      "| --- | --- | --- | --- | --- |",
    );
    rows(s, part, out);
    for (const v of s["x-kubernetes-validations"] ?? [])
      out.push(`| (${part}) | | | ${cell(v.message ?? code(v.rule))} | a rule between fields |`);
    out.push("");
  }
  const columns = version?.additionalPrinterColumns ?? [];
  if (columns.length) {
    out.push(
      `### ${def.kind} columns`,
      "",
      "| Column | From | Shown | Description |",
      "| --- | --- | --- | --- |",
    );
    for (const c of columns)
      out.push(
        `| ${c.name} | ${code(c.jsonPath)} | ${c.priority ? "with `-o wide`" : "always"} | ${cell(c.description ?? "")} |`,
      );
    out.push("");
  }
  return out.join("\n");
}

/** The whole page. */
export function renderApiReference(defs: readonly KindDefinition[]): string {
  const anchor = (kind: string) => kind.toLowerCase();
  return [
    "<!-- Generated by `npm run generate` from the kinds' schemas; do not edit. -->",
    "# API reference",
    "",
    "Every field of every kind (group `harborconfig.io`, version `v1alpha1`), as the CRDs define it:",
    "its type, default, what `kubectl apply` checks, and what it means. The same descriptions are what",
    "`kubectl explain` prints. What a kind does with its fields, and Harbor's quirks, are on its page",
    "in [the kinds](../README.md#the-kinds).",
    "",
    "**Contents**",
    "",
    ...defs.map((d) => `- [${d.kind}](#${anchor(d.kind)})`),
    "",
    ...defs.map(kindSection),
  ].join("\n");
}
