// The operator's Kubernetes requests, from the apiserver's audit log. The log grows by hundreds of
// megabytes in a large run, so it is read incrementally from where the last read stopped, and only
// lines of the operator's user are parsed. Each phase of the benchmark takes what arrived during it.
import { open } from "node:fs/promises";
import { type AuditEvent, isWrite } from "../env/controlplane/audit.ts";
import { bump, ratio, sortedByCount } from "./stats.ts";
import type { KubeCost } from "./types.ts";

const GROUP = "harborconfig.io";
const CHUNK = 4 * 1024 * 1024;

export class AuditReader {
  readonly #path: string;
  readonly #needle: string;
  #offset = 0;
  #partial = "";

  /** @param username the operator's user, e.g. system:serviceaccount:bench:harbor-config-operator */
  constructor(path: string, username: string) {
    this.#path = path;
    this.#needle = `"username":${JSON.stringify(username)}`;
  }

  /** Skips everything logged so far. */
  async skip(): Promise<void> {
    await this.read();
  }

  /** The operator's completed requests logged since the last read. */
  async read(): Promise<AuditEvent[]> {
    const out: AuditEvent[] = [];
    const file = await open(this.#path, "r");
    try {
      const { size } = await file.stat();
      const buffer = Buffer.alloc(CHUNK);
      while (this.#offset < size) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK, size - this.#offset), this.#offset);
        if (bytesRead === 0) break;
        this.#offset += bytesRead;
        const text = this.#partial + buffer.toString("utf8", 0, bytesRead);
        const end = text.lastIndexOf("\n");
        this.#partial = text.slice(end + 1);
        for (const line of text.slice(0, end + 1).split("\n")) {
          // Cheap test first: most lines belong to other users (the driver, the controllers).
          if (!line.includes(this.#needle)) continue;
          const event = JSON.parse(line) as AuditEvent;
          if (event.stage === "ResponseComplete") out.push(event);
        }
      }
    } finally {
      await file.close();
    }
    return out;
  }
}

/** Which kind an object of the workload is, by name (Secrets and Events are named after it). */
export type KindOfName = (name: string) => string | undefined;

export function kubeCost(events: readonly AuditEvent[], objects: number, kindOf: KindOfName): KubeCost {
  const writesByClass: Record<string, number> = {};
  const writesByKind: Record<string, number> = {};
  const requests: Record<string, number> = {};
  let writes = 0;
  let conflicts = 0;
  for (const e of events) {
    const ref = e.objectRef ?? {};
    const resource = `${ref.resource ?? "?"}${ref.subresource ? `/${ref.subresource}` : ""}`;
    bump(requests, `${e.verb} ${resource}`);
    if (!isWrite(e)) continue;
    writes++;
    if (e.responseStatus?.code === 409) conflicts++;
    bump(writesByClass, classOf(ref));
    // An Event's name is the object's name plus a random suffix after a dot.
    const name = ref.resource === "events" ? (ref.name ?? "").replace(/\.[0-9a-f]+$/, "") : (ref.name ?? "");
    bump(writesByKind, kindOf(name) ?? "other");
  }
  return {
    writes,
    writesPerObject: ratio(writes, objects),
    writesByClass: sortedByCount(writesByClass),
    writesByKind: sortedByCount(writesByKind),
    requests: sortedByCount(requests),
    conflicts,
  };
}

function classOf(ref: NonNullable<AuditEvent["objectRef"]>): string {
  if (ref.apiGroup === GROUP) return ref.subresource === "status" ? "status" : "cr";
  if (ref.resource === "secrets") return "secret";
  if (ref.resource === "events") return "event";
  return "other";
}
