// The objects of deploy/examples/, one working example of every kind, as the demo applies them and
// the tests check them: every document of every YAML file there but the Kustomization.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { API_VERSION } from "../../src/api/common.ts";
import type { KubeObject } from "./kubectl.ts";

export const examplesDir = join(import.meta.dirname, "..", "..", "deploy", "examples");

/** Every example object, files in name order; a fresh copy on each call. */
export function exampleObjects(): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const file of readdirSync(examplesDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(examplesDir, file), "utf8"))) {
      const o = doc.toJSON() as KubeObject | null;
      if (o && typeof o === "object" && o.kind && o.kind !== "Kustomization") objects.push(o);
    }
  }
  return objects;
}

/** The examples of the operator's own kinds (the API group's objects). */
export const exampleResources = (): KubeObject[] =>
  exampleObjects().filter((o) => o.apiVersion === API_VERSION);
