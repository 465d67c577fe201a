// Kubernetes Events about our resources (what `kubectl describe` shows). Recording is best effort:
// a failure is logged and never fails a reconcile. Repeats of the same event within ten minutes
// bump the count of one Event instead of creating new ones, as client-go's recorder does. Messages
// are cleaned and capped like condition messages (text.ts).
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { logScope } from "../log.ts";
import type { KubeClient } from "./client.ts";
import { safeText } from "./text.ts";
import { Events, type KubeObject } from "./types.ts";

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  record(obj: KubeObject, type: EventType, reason: string, message: string): void;
  /**
   * A routine change nobody needs to notice (a create, a plain delete): the log line an Event
   * would be, without the Event. Kubernetes' own controllers keep Events for what a person must
   * see; one Event per object created would double the writes a fleet costs the apiserver.
   */
  routine(obj: KubeObject, reason: string, message: string): void;
}

const AGGREGATE_WINDOW_MS = 10 * 60_000;

interface Seen {
  name: string;
  namespace: string;
  count: number;
  at: number;
}

export class KubeEventRecorder implements EventRecorder {
  readonly #kube: KubeClient;
  readonly #logger: Logger;
  readonly #component: string;
  readonly #instance: string;
  readonly #seen = new Map<string, Seen>();
  #pending: Promise<void> = Promise.resolve();

  constructor(kube: KubeClient, logger: Logger, component = "harbor-config-operator", instance = "") {
    this.#kube = kube;
    this.#logger = logger;
    this.#component = component;
    this.#instance = instance;
  }

  record(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const text = this.#log(obj, type, reason, message);
    // Events are written one after another so that repeats aggregate reliably.
    this.#pending = this.#pending
      .then(() => this.#write(obj, type, reason, text))
      .catch((e: unknown) => {
        this.#logger.warn(
          { err: e instanceof Error ? e.message : String(e), reason },
          "could not record event",
        );
      });
  }

  routine(obj: KubeObject, reason: string, message: string): void {
    this.#log(obj, "Normal", reason, message);
  }

  /** Every Event is a log line too (a change made, a trouble seen), with the reconcile it came from. */
  #log(obj: KubeObject, type: EventType, reason: string, message: string): string {
    const text = safeText(message);
    this.#logger[type === "Warning" ? "warn" : "info"](
      {
        ...logScope.getStore(),
        event: reason,
        object: `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ""}${obj.metadata.name}`,
      },
      text,
    );
    return text;
  }

  /** Resolves when every recorded event has been written (tests, shutdown). */
  flush(): Promise<void> {
    return this.#pending;
  }

  async #write(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = obj.metadata.namespace ?? "default";
    const key = `${obj.metadata.uid}|${type}|${reason}|${message}`;
    const now = Date.now();
    const time = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
    const seen = this.#seen.get(key);
    if (seen && now - seen.at < AGGREGATE_WINDOW_MS) {
      seen.count++;
      seen.at = now;
      try {
        await this.#kube.mergePatch(Events, seen.namespace, seen.name, {
          count: seen.count,
          lastTimestamp: time,
        });
        return;
      } catch {
        // The Event expired or was deleted: write a new one below.
      }
    }
    const name = `${obj.metadata.name}.${randomBytes(8).toString("hex")}`;
    await this.#kube.create(Events, {
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata.name,
        namespace: obj.metadata.namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
    } as KubeObject);
    this.#seen.set(key, { name, namespace, count: 1, at: now });
    if (this.#seen.size > 10_000) this.#prune(now);
  }

  #prune(now: number): void {
    for (const [k, v] of this.#seen) if (now - v.at >= AGGREGATE_WINDOW_MS) this.#seen.delete(k);
  }
}
