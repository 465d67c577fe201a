// Harbor (go-swagger) sends an unset optional list or object as `null`, not `[]` and not absent
// (HARBOR-API.md §10: replication filters, filter values, endpoint lists, scanner capabilities, …).
// Every response model of the client must read such a null as absent, at any depth: this walks each
// model and tries `null` at every list, map and object field it declares.
import { describe, expect, test } from "vitest";
import type { z } from "zod";
import { ExecHistory, PersistedExecHistory } from "../../../src/harbor/audit-log-purge.ts";
import { GcHistory } from "../../../src/harbor/garbage-collection.ts";
import { JobQueue, Worker, WorkerPool } from "../../../src/harbor/job-service.ts";
import { Label } from "../../../src/harbor/labels.ts";
import { LdapFailedImportUser, LdapPingResult, LdapUser } from "../../../src/harbor/ldap.ts";
import {
  AuditLog,
  PersistedProject,
  Project,
  ProjectDeletable,
  ProjectSummary,
} from "../../../src/harbor/projects.ts";
import { Registry, RegistryInfo, RegistryProviderInfo } from "../../../src/harbor/registries.ts";
import {
  PersistedReplicationExecution,
  PersistedReplicationPolicy,
  PersistedReplicationTask,
  ReplicationExecution,
  ReplicationPolicy,
  ReplicationTask,
} from "../../../src/harbor/replication.ts";
import { PersistedRobot, Robot, RobotCreated, RobotSec } from "../../../src/harbor/robots.ts";
import { ScannerAdapterMetadata, ScannerRegistration } from "../../../src/harbor/scanners.ts";
import { Configurations, GeneralInfo, UserResp } from "../../../src/harbor/system.ts";
import { UserGroup, UserGroupSearchItem } from "../../../src/harbor/user-group.ts";
import {
  PersistedWebhookJob,
  PersistedWebhookPolicy,
  PersistedWebhookTask,
  SupportedWebhookEventTypes,
  WebhookJob,
  WebhookLastTrigger,
  WebhookPolicy,
  WebhookTask,
} from "../../../src/harbor/webhooks.ts";

const models: Record<string, z.ZodType> = {
  GcHistory,
  ExecHistory,
  PersistedExecHistory,
  JobQueue,
  Worker,
  WorkerPool,
  Label,
  LdapFailedImportUser,
  LdapPingResult,
  LdapUser,
  AuditLog,
  Project,
  PersistedProject,
  ProjectDeletable,
  ProjectSummary,
  Registry,
  RegistryInfo,
  RegistryProviderInfo,
  ReplicationExecution,
  ReplicationPolicy,
  ReplicationTask,
  PersistedReplicationExecution,
  PersistedReplicationPolicy,
  PersistedReplicationTask,
  Robot,
  PersistedRobot,
  RobotCreated,
  RobotSec,
  ScannerAdapterMetadata,
  ScannerRegistration,
  Configurations,
  GeneralInfo,
  UserResp,
  UserGroup,
  UserGroupSearchItem,
  SupportedWebhookEventTypes,
  WebhookJob,
  WebhookLastTrigger,
  WebhookPolicy,
  WebhookTask,
  PersistedWebhookJob,
  PersistedWebhookPolicy,
  PersistedWebhookTask,
};

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    const next = d.innerType ?? (d.type === "pipe" ? d.in : undefined);
    if (!next) return cur;
    cur = next;
  }
}

/** Every list, map or object field below an object schema, as a path (array elements as 0). */
function containerPaths(
  schema: z.ZodType,
  prefix: Array<string | number> = [],
): Array<Array<string | number>> {
  const d = defOf(unwrap(schema));
  if (d.type !== "object") return [];
  const out: Array<Array<string | number>> = [];
  for (const [key, field] of Object.entries(d.shape ?? {})) {
    const inner = unwrap(field);
    const kind = defOf(inner).type;
    if (kind !== "array" && kind !== "object" && kind !== "record") continue;
    const here = [...prefix, key];
    out.push(here);
    if (kind === "object") out.push(...containerPaths(inner, here));
    if (kind === "array") out.push(...containerPaths(defOf(inner).element as z.ZodType, [...here, 0]));
  }
  return out;
}

/** The smallest input with `null` at `path`. */
function withNull(path: Array<string | number>): unknown {
  let value: unknown = null;
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i] as string | number;
    value = typeof key === "number" ? [value] : { [key]: value };
  }
  return value;
}

const cases = Object.entries(models).flatMap(([name, schema]) =>
  containerPaths(schema).map((path) => ({ name, schema, path: path.join(".") })),
);

describe("response models read null as absent", () => {
  test("the walk finds the fields §10 names", () => {
    const names = cases.map((c) => `${c.name}.${c.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "ReplicationPolicy.filters",
        "RegistryInfo.supported_resource_filters.0.values",
        "RegistryProviderInfo.endpoint_pattern.endpoints",
        "ScannerRegistration.capabilities",
      ]),
    );
  });

  test.each(cases)("$name: $path", ({ schema, path }) => {
    const keys = path.split(".").map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    const parsed = schema.safeParse(withNull(keys));
    // Other required fields of a nested model may be missing here; none may complain about the null.
    const atPath = parsed.success ? [] : parsed.error.issues.filter((i) => i.path.join(".") === path);
    expect(atPath).toEqual([]);
    if (parsed.success) {
      let v: unknown = parsed.data;
      for (const k of keys) v = (v as Record<string | number, unknown> | undefined)?.[k];
      expect(v).toBeUndefined();
    }
  });
});
