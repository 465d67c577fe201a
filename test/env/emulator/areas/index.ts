// Every API area of the emulator, in one list.

import { area as purge } from "./audit-log-purge.ts";
import { area as auditLogs } from "./audit-logs.ts";
import { area as configurations } from "./configurations.ts";
import { area as gc } from "./garbage-collection.ts";
import { area as immutable } from "./immutable-tag-rule.ts";
import { area as jobservice } from "./job-service.ts";
import { area as labels } from "./labels.ts";
import { area as ldap } from "./ldap.ts";
import { area as members } from "./members.ts";
import { area as preheat } from "./preheat.ts";
import { area as projectMetadata } from "./project-metadata.ts";
import { area as projects } from "./projects.ts";
import { area as quotas } from "./quotas.ts";
import { area as registries } from "./registries.ts";
import { area as registryAuth } from "./registry-auth.ts";
import { area as replication } from "./replication.ts";
import { area as retention } from "./retention.ts";
import { area as robots } from "./robots.ts";
import { area as scanAll } from "./scan-all.ts";
import { area as scanners } from "./scanners.ts";
import { area as system } from "./system.ts";
import { area as userGroups } from "./user-group.ts";
import { area as users } from "./users.ts";
import { area as webhooks } from "./webhooks.ts";

export const areas = {
  labels,
  projects,
  auditLogs,
  members,
  quotas,
  robots,
  scanners,
  registries,
  replication,
  jobservice,
  ldap,
  userGroups,
  gc,
  purge,
  webhooks,
  system,
  registryAuth,
  retention,
  immutable,
  projectMetadata,
  configurations,
  users,
  scanAll,
  preheat,
};
