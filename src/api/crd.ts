// Generates a CustomResourceDefinition from a kind's zod schemas. The JSON Schema zod produces is
// made structural the way the apiserver requires: no $schema or additionalProperties:false, no
// JavaScript-only integer bounds, and free-form values marked x-kubernetes-preserve-unknown-fields.
import { z } from "zod";
import { defaultNameValidation, GROUP, type KindDefinition, VERSION } from "./common.ts";

type Json = Record<string, unknown>;

export function toOpenApi(schema: z.ZodType): Json {
  return structural(z.toJSONSchema(schema, { target: "openapi-3.0", io: "input" }) as Json);
}

function structural(node: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema") continue;
    if (k === "additionalProperties" && v === false) continue;
    if (
      (k === "maximum" && v === Number.MAX_SAFE_INTEGER) ||
      (k === "minimum" && v === Number.MIN_SAFE_INTEGER)
    )
      continue;
    if (k === "properties" && v && typeof v === "object") {
      out[k] = Object.fromEntries(
        Object.entries(v as Json).map(([name, s]) => [name, structural(s as Json)]),
      );
    } else if ((k === "items" || k === "additionalProperties") && v && typeof v === "object") {
      out[k] = structural(v as Json);
    } else out[k] = v;
  }
  if (!("type" in out) && !("anyOf" in out) && !("allOf" in out))
    out["x-kubernetes-preserve-unknown-fields"] = true;
  return out;
}

const READY = '.status.conditions[?(@.type=="Ready")]';

export function crdFor(def: KindDefinition): Json {
  const spec = toOpenApi(def.spec);
  if (def.specValidations?.length) spec["x-kubernetes-validations"] = def.specValidations;
  const managed = def.scope === "Namespaced" && def.kind !== "HarborConnection";
  const rootRules = [
    ...(def.harborName ? [defaultNameValidation(def.harborName)] : []),
    ...(def.objectValidations ?? []),
  ];
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${def.plural}.${GROUP}`,
      labels: {
        "app.kubernetes.io/name": "harbor-config-operator",
        "app.kubernetes.io/part-of": "harbor-config-operator",
      },
    },
    spec: {
      group: GROUP,
      scope: def.scope,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: ["harbor"],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Ready", type: "string", jsonPath: `${READY}.status` },
            { name: "Reason", type: "string", jsonPath: `${READY}.reason` },
            ...(managed ? [{ name: "Harbor ID", type: "integer", jsonPath: ".status.harborId" }] : []),
            ...(def.columns ?? []),
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: def.description,
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: spec,
                status: toOpenApi(def.status),
              },
              // Only the root sees metadata.name, the default of spec.name, and the status.
              ...(rootRules.length ? { "x-kubernetes-validations": rootRules } : {}),
            },
          },
        },
      ],
    },
  };
}
