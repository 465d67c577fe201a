// Every kind of the harborconfig.io API.
import type { KindDefinition } from "./common.ts";
import { clusterHarborConnection, harborConnection } from "./connection.ts";
import { harborProject } from "./project.ts";
import { harborRegistry } from "./registry.ts";
import { harborReplicationPolicy } from "./replication.ts";
import { harborRobot } from "./robot.ts";
import { harborWebhookPolicy } from "./webhook.ts";

export * from "./common.ts";

export const KINDS: readonly KindDefinition[] = [
  harborConnection,
  clusterHarborConnection,
  harborProject,
  harborRobot,
  harborRegistry,
  harborReplicationPolicy,
  harborWebhookPolicy,
];
