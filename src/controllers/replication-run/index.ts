// HarborReplicationRun: one execution of a HarborReplicationPolicy, started once and followed to its
// end by the run lifecycle (src/runtime/run.ts). A change of the policy (Ready, its Harbor id, its
// spec, e.g. enabled again) queues the runs that wait for it.
import { harborReplicationRun } from "../../api/replication-run.ts";
import { defineRunKind } from "../shared/kinds.ts";
import { replicationRunExternal } from "./external.ts";

export const replicationRunKind = defineRunKind({
  def: harborReplicationRun,
  watches: { references: { HarborReplicationPolicy: (spec) => spec.policyRef.name } },
  external: ({ informer }) => replicationRunExternal({ policies: informer("HarborReplicationPolicy") }),
});
