// HarborReplicationPolicy's exporter (see shared/export.ts): every policy in one list, its remote
// side named by the exported HarborRegistry.
import type { HarborReplicationPolicySpec } from "../../api/replication.ts";
import type { PersistedReplicationPolicy } from "../../harbor/replication.ts";
import { type HarborObjectView, type KindExporter, numericId } from "../shared/export.ts";
import { diff, directionOf, replicatedProjects, specFromPolicy } from "./mapping.ts";

export const replicationExporter: KindExporter<HarborReplicationPolicySpec> = {
  async read(ctx) {
    return (await ctx.harbor.replication.listPolicies({}, { signal: ctx.signal })).map(view);
  },
  keyOf: (_spec, harborName) => harborName,
};

function view(policy: PersistedReplicationPolicy): HarborObjectView<HarborReplicationPolicySpec> {
  const name = policy.name ?? "";
  const { direction, remote } = directionOf(policy);
  const nameFilter = policy.filters?.find((f) => f.type === "name")?.value;
  return {
    identity: {
      id: policy.id,
      key: name,
      harborName: name,
      suggestedName: name,
      projects: replicatedProjects({
        direction,
        destinationNamespace: policy.dest_namespace || undefined,
        filters: { name: typeof nameFilter === "string" ? nameFilter : undefined },
      }),
    },
    spec: (names) => specFromPolicy(policy, names.nameOf("HarborRegistry", remote)),
    // A registry the folder does not hold (or Harbor not) differs from any: -1 is no registry's id.
    diff: (spec, harborName, refs) =>
      diff(
        spec,
        harborName,
        numericId(refs.resolve("HarborRegistry", spec.registryRef.name)?.id) ?? -1,
        policy,
      ),
  };
}
