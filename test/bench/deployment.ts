// What the shipped Deployment gives the operator's node process (its NODE_OPTIONS), so that the
// benchmark runs the operator as it is deployed unless told otherwise.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

const deployment = join(import.meta.dirname, "..", "..", "deploy", "deployment.yaml");

interface Container {
  env?: Array<{ name: string; value?: string }>;
}

/** The NODE_OPTIONS of deploy/deployment.yaml's containers, split into flags; none if absent. */
export function deployedNodeOptions(): string[] {
  let text: string;
  try {
    text = readFileSync(deployment, "utf8");
  } catch {
    return [];
  }
  for (const doc of parseAllDocuments(text)) {
    const o = doc.toJSON() as {
      kind?: string;
      spec?: { template?: { spec?: { containers?: Container[] } } };
    };
    if (o?.kind !== "Deployment") continue;
    for (const c of o.spec?.template?.spec?.containers ?? []) {
      const value = c.env?.find((e) => e.name === "NODE_OPTIONS")?.value;
      if (value) return value.split(/\s+/).filter(Boolean);
    }
  }
  return [];
}
