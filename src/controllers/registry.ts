// Every managed kind, one line each. The central wiring (index.ts), the RBAC rules and the CRDs
// (`npm run generate`) are derived from this list.
import { projectKind } from "./project/index.ts";
import { registryKind } from "./registry/index.ts";
import { replicationKind } from "./replication/index.ts";
import { robotKind } from "./robot/index.ts";
import type { KindModule } from "./shared/kinds.ts";
import { webhookKind } from "./webhook/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: kinds differ in their type parameters
export const MANAGED_KINDS: readonly KindModule<any, any, any>[] = [
  projectKind,
  robotKind,
  registryKind,
  replicationKind,
  webhookKind,
];
