// Every generated CRD is accepted by a real kube-apiserver (structural schemas, CEL rules) and
// looks to kubectl users as promised: category "harbor", short names, READY/REASON columns.
import { describe, expect, test } from "vitest";
import { ALL_DEFINITIONS as KINDS } from "../../../src/controllers/kind-list.ts";
import { adminKubectl } from "../../env/cluster.ts";

const admin = adminKubectl();

describe("the CRDs in a real apiserver", () => {
  test.each(KINDS.map((k) => [k.kind, k] as const))(
    "%s is established with its names and columns",
    async (_kind, def) => {
      const crd = await admin.get<{
        spec: {
          names: { shortNames: string[]; categories: string[] };
          versions: Array<{ additionalPrinterColumns: Array<{ name: string }> }>;
        };
        status: { conditions: Array<{ type: string; status: string }> };
      }>("crd", `${def.plural}.harborconfig.io`);
      expect(crd.status.conditions.find((c) => c.type === "Established")?.status).toBe("True");
      expect(crd.spec.names.categories).toEqual(["harbor"]);
      expect(crd.spec.names.shortNames).toEqual(def.shortNames);
      const columns = crd.spec.versions[0]?.additionalPrinterColumns.map((c) => c.name) ?? [];
      expect(columns.slice(0, 2)).toEqual(["Ready", "Reason"]);
      expect(columns.at(-1)).toBe("Age");
      // The short name resolves.
      expect((await admin.tryRun(["get", def.shortNames[0] as string, "-A"])).code).toBe(0);
    },
  );

  test("kubectl explain describes fields at every depth, as the schemas say", async () => {
    const explain = async (path: string) => {
      const r = await admin.tryRun(["explain", path]);
      expect(r.code, r.stderr).toBe(0);
      // kubectl wraps long lines: compare words, not line breaks.
      return r.stdout.replace(/\s+/g, " ");
    };
    for (const def of KINDS) {
      expect(await explain(`${def.plural}.spec`)).toMatch(/DESCRIPTION: \S/);
      expect(await explain(`${def.plural}.status.conditions.reason`)).toContain(
        "docs/troubleshooting.md lists every reason",
      );
    }
    expect(await explain("harborrobots.spec.permissions.access.effect")).toContain(
      "deny withholds it even where another entry allows it",
    );
    expect(await explain("harborwebhookpolicies.status.recentFailures.error")).toContain("job log");
    expect(await explain("harborreplicationpolicies.spec.filters.tag.decoration")).toContain(
      "excludes: replicate everything else",
    );
    expect(await explain("clusterharborconnections.status.jobService.queues.latency")).toContain(
      "in seconds",
    );
  });

  test("kubectl get harbor lists every namespaced managed kind", async () => {
    const r = await admin.tryRun(["get", "harbor", "-A"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("error");
  });
});
