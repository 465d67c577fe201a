// `kubectl explain` is only as useful as the CRD's descriptions: every field of every kind, at every
// depth (nested objects, array items, map values, status, conditions), has one, and it says more
// than the field's name.
import { expect, test } from "vitest";
import { crdFor } from "../../../src/api/crd.ts";
import { ALL_DEFINITIONS as KINDS } from "../../../src/controllers/kind-list.ts";

type Schema = {
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

/** Every property below `node` as [path, schema], depth first. */
function fields(node: Schema, path: string): Array<[string, Schema]> {
  const out: Array<[string, Schema]> = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    out.push([`${path}.${name}`, child], ...fields(child, `${path}.${name}`));
  }
  if (node.items) out.push(...fields(node.items, `${path}[]`));
  if (typeof node.additionalProperties === "object") {
    out.push(...fields(node.additionalProperties, `${path}{}`));
  }
  return out;
}

function schemaOf(kind: (typeof KINDS)[number]): Schema {
  const crd = crdFor(kind) as { spec: { versions: Array<{ schema: { openAPIV3Schema: Schema } }> } };
  return crd.spec.versions[0]?.schema.openAPIV3Schema as Schema;
}

/** "accessKeyKey" → "access key key": what a description that only restates the name says. */
const words = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .trim();

test.each(KINDS.map((k) => [k.kind, k] as const))("every field of %s has a description", (_kind, def) => {
  const all = fields(schemaOf(def), def.kind);
  // The walk reaches deep fields (condition fields, array items), so that it cannot pass vacuously.
  expect(all.map(([p]) => p)).toContain(`${def.kind}.status.conditions[].reason`);
  // metadata may hold nothing but its type (the apiserver refuses more); kubectl explain shows
  // ObjectMeta's own descriptions for it.
  const ours = all.filter(([p]) => p !== `${def.kind}.metadata`);
  const missing = ours.filter(([, s]) => !s.description?.trim()).map(([p]) => p);
  expect(missing, "fields without a description").toEqual([]);
  const restated = ours
    .filter(([p, s]) => {
      const name =
        p
          .split(".")
          .at(-1)
          ?.replace(/\[\]|\{\}/g, "") ?? "";
      const text = (s.description ?? "").toLowerCase().replace(/[^a-z ]/g, "");
      return text.length < 12 || text === words(name) || text === `the ${words(name)}`;
    })
    .map(([p, s]) => `${p}: ${s.description}`);
  expect(restated, "descriptions that only restate the field's name").toEqual([]);
});
