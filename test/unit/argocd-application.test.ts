// The shipped Argo CD Application (deploy/argocd/application.yaml) and the sync waves of the
// examples, as the README describes them. A real Argo CD runs both in test/argocd/ (npm run
// test:argocd); these checks keep the files saying what that test proved, in every `npm test`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse, parseAllDocuments } from "yaml";

const deploy = join(import.meta.dirname, "..", "..", "deploy");
const WAVE = "argocd.argoproj.io/sync-wave";

interface Application {
  spec: {
    syncPolicy: {
      automated?: { prune?: boolean; selfHeal?: boolean; allowEmpty?: boolean };
      syncOptions?: string[];
    };
  };
}

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: { credentialsSecretRef?: { name: string } };
}

const examples = (): Manifest[] =>
  readdirSync(join(deploy, "examples"))
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(deploy, "examples", f), "utf8")).map((d) => d.toJSON() as Manifest),
    );

describe("the shipped Argo CD Application", () => {
  const app = parse(readFileSync(join(deploy, "argocd", "application.yaml"), "utf8")) as Application;

  test("prunes, heals, may become empty, applies server-side, and has no PruneLast", () => {
    expect(app.spec.syncPolicy.automated).toEqual({ prune: true, selfHeal: true, allowEmpty: true });
    const options = app.spec.syncPolicy.syncOptions ?? [];
    expect(options).toContain("ServerSideApply=true");
    expect(options.filter((o) => o.startsWith("PruneLast"))).toEqual([]);
  });

  test("connections and their credentials Secrets come first (wave -1), everything else in the last wave", () => {
    const docs = examples();
    const connections = docs.filter((d) => d.kind.endsWith("HarborConnection"));
    expect(connections.length).toBeGreaterThan(0);
    const first = new Set(
      connections.flatMap((c) => [
        `${c.kind}/${c.metadata.name}`,
        `Secret/${c.spec?.credentialsSecretRef?.name ?? ""}`,
      ]),
    );
    for (const d of docs) {
      const key = `${d.kind}/${d.metadata.name}`;
      // Argo CD waits for a wave's health only when a later wave follows: in a wave of its own
      // after the rest, one resource that keeps Progressing (a robot waiting for its project)
      // would hold the sync, and every later one.
      expect(d.metadata.annotations?.[WAVE], key).toBe(first.has(key) ? "-1" : undefined);
    }
  });
});
