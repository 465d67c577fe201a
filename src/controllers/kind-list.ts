// Every kind of the operator: the two connection kinds, then the managed kinds and the run kinds, one
// line each. The central wiring (index.ts), the RBAC rules and the CRDs (`npm run generate`) are
// derived from here.
import type { KindDefinition } from "../api/common.ts";
import { clusterHarborConnection, harborConnection } from "../api/connection.ts";
import { auditLogPurgeKind } from "./audit-log-purge/index.ts";
import { configurationKind } from "./configuration/index.ts";
import { garbageCollectionKind } from "./garbage-collection/index.ts";
import { gcRunKind } from "./gc-run/index.ts";
import { immutableTagRuleKind } from "./immutable-tag-rule/index.ts";
import { jobServiceKind } from "./job-service/index.ts";
import { labelKind } from "./label/index.ts";
import { memberKind } from "./member/index.ts";
import { preheatInstanceKind } from "./preheat-instance/index.ts";
import { preheatPolicyKind } from "./preheat-policy/index.ts";
import { projectKind } from "./project/index.ts";
import { registryKind } from "./registry/index.ts";
import { replicationKind } from "./replication/index.ts";
import { replicationRunKind } from "./replication-run/index.ts";
import { retentionKind } from "./retention/index.ts";
import { robotKind } from "./robot/index.ts";
import { scanAllKind } from "./scan-all/index.ts";
import { scannerKind } from "./scanner/index.ts";
import type { KindModule, RunKindModule } from "./shared/kinds.ts";
import { userKind } from "./user/index.ts";
import { userGroupKind } from "./user-group/index.ts";
import { webhookKind } from "./webhook/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
export const MANAGED_KINDS: readonly KindModule<any, any, any, any, any>[] = [
  projectKind,
  robotKind,
  registryKind,
  replicationKind,
  webhookKind,
  scannerKind,
  labelKind,
  userGroupKind,
  memberKind,
  garbageCollectionKind,
  auditLogPurgeKind,
  jobServiceKind,
  retentionKind,
  immutableTagRuleKind,
  configurationKind,
  userKind,
  scanAllKind,
  preheatInstanceKind,
  preheatPolicyKind,
];

/** Kinds whose resource is one Harbor execution, started once and followed to its end. */
// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
export const RUN_KINDS: readonly RunKindModule<any, any, any, any>[] = [gcRunKind, replicationRunKind];

/** The connection kinds: not managed objects of Harbor, but how the managed kinds reach one. */
export const CONNECTION_DEFINITIONS: readonly KindDefinition[] = [harborConnection, clusterHarborConnection];

/** Every CRD of the API group. */
export const ALL_DEFINITIONS: readonly KindDefinition[] = [
  ...CONNECTION_DEFINITIONS,
  ...MANAGED_KINDS.map((k) => k.def),
  ...RUN_KINDS.map((k) => k.def),
];
