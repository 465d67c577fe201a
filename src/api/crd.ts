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

// What Kubernetes' own types say of apiVersion and kind, so that `kubectl explain` reads the same
// for these kinds.
const API_VERSION_TEXT =
  "The versioned schema of this representation of an object: harborconfig.io/v1alpha1. Servers convert recognized schemas to the latest internal value.";
const KIND_TEXT =
  "The REST resource this object represents, in CamelCase. Servers may infer it from the endpoint.";

function specText(managed: boolean, run: boolean): string {
  if (run)
    return "What to run in Harbor, once. It is fixed when the resource is created (deletionPolicy and ttlSecondsAfterFinished excepted): for another run, create another resource.";
  return managed
    ? "What Harbor should hold for this resource. Fields left unset are not managed: the operator neither sends nor compares them (those with a default are always managed)."
    : "Where this Harbor is and how the operator logs in to it.";
}

function statusText(managed: boolean, run: boolean): string {
  if (run)
    return "The execution in Harbor and how far it got. Written by the operator only, through the status subresource.";
  return managed
    ? "What the operator last saw in Harbor and did about it. Written by the operator only, through the status subresource."
    : "The result of the operator's last check of this Harbor. Written by the operator only.";
}

function rootRules(def: KindDefinition): Json {
  const rules = [
    ...(def.harborName ? [defaultNameValidation(def.harborName)] : []),
    ...(def.rootValidations ?? []),
  ];
  return rules.length ? { "x-kubernetes-validations": rules } : {};
}

export function crdFor(def: KindDefinition): Json {
  const managed = def.scope === "Namespaced" && def.kind !== "HarborConnection";
  const run = def.lifecycle === "run";
  // A per-Harbor setting has no id in Harbor worth a column; a run has an id but no name.
  const hasId = managed && !def.perHarbor;
  const hasName = hasId && !run;
  const spec: Json = { description: specText(managed, run), ...toOpenApi(def.spec) };
  if (def.specValidations?.length) spec["x-kubernetes-validations"] = def.specValidations;
  const status = toOpenApi(def.status);
  // Most Harbor ids are integers; a scanner registration's is a UUID.
  const idType =
    (status.properties as Record<string, { type?: string }> | undefined)?.harborId?.type === "string"
      ? "string"
      : "integer";
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
            ...(hasId
              ? [
                  {
                    name: "Harbor ID",
                    type: idType,
                    jsonPath: ".status.harborId",
                    description: run
                      ? "The id of the execution in Harbor."
                      : "The id of the object in Harbor.",
                  },
                ]
              : []),
            ...(def.columns ?? []),
            // The name the object has in Harbor: spec.name or, when that is unset, metadata.name.
            ...(hasName
              ? [
                  {
                    name: "Harbor Name",
                    type: "string",
                    jsonPath: ".status.harborName",
                    priority: 1,
                    description: "The object's name in Harbor.",
                  },
                ]
              : []),
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: def.description,
              required: ["spec"],
              properties: {
                apiVersion: { type: "string", description: API_VERSION_TEXT },
                kind: { type: "string", description: KIND_TEXT },
                // The apiserver allows nothing else here; kubectl explain shows ObjectMeta's own text.
                metadata: { type: "object" },
                spec: spec,
                status: { description: statusText(managed, run), ...status },
              },
              // Only the root sees metadata.name (the default of spec.name) and the stored status.
              ...rootRules(def),
            },
          },
        },
      ],
    },
  };
}
