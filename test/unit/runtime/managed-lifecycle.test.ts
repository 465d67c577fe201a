// The managed lifecycle as a table: the real ManagedReconciler, with Harbor, Kubernetes, the
// informer, the Event recorder and the connections replaced by small in-memory fakes and one
// injected clock. Each case asserts what a user can see of a reconcile: the calls made to Harbor,
// the writes made to Kubernetes (in order), the conditions, the Events and the Result. No cluster,
// no timers: the end-to-end tests remain the proof against real peers; this is the proof that every
// branch of the lifecycle decides as intended, for every kind at once.
import pino from "pino";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { FINALIZER, FINALIZER_SET_AT_ANNOTATION, PAUSED_ANNOTATION } from "../../../src/api/common.ts";
import type { KubeClient } from "../../../src/kube/client.ts";
import { KubeError } from "../../../src/kube/errors.ts";
import type { EventRecorder } from "../../../src/kube/events.ts";
import type { Condition, ResourceType } from "../../../src/kube/types.ts";
import { type Result, RetryAfter, TerminalError } from "../../../src/runtime/controller.ts";
import {
  type AfterSync,
  type ConnectionResolver,
  DeletionBlocked,
  type ErrorClassifier,
  type ExternalClient,
  type ManagedObject,
  type ManagedStatus,
  NotReady,
} from "../../../src/runtime/external-client.ts";
import { DEPENDENCY_NOT_READY, ManagedReconciler } from "../../../src/runtime/managed.ts";
import { ConnectionRef, FakeApiServer, FakeCache, finalizersWritten, NS, ONE, START, TWO } from "./fakes.ts";

// -------------------------------------------------------------------------------------------------
// The kind under test: a Harbor "thing" with a name and one managed field.

const type: ResourceType = {
  group: "harborconfig.io",
  version: "v1alpha1",
  plural: "harborthings",
  kind: "HarborThing",
  namespaced: true,
};

const ThingSpec = z.object({
  connectionRef: ConnectionRef,
  creationPolicy: z.enum(["Create", "Adopt", "CreateOrAdopt"]).default("Create"),
  deletionPolicy: z.enum(["Delete", "Orphan"]).default("Delete"),
  name: z.string().optional(),
  value: z.string().default("v1"),
  /** Takes the per-Harbor setting "the thing flag" (as a scanner registration takes the default). */
  flag: z.boolean().default(false),
  /** Another resource this one waits for (prepare throws DependencyNotReady until it is Ready). */
  needs: z.string().optional(),
});
type ThingSpec = z.infer<typeof ThingSpec>;
type SpecInput = Partial<Omit<ThingSpec, "connectionRef">> & {
  connectionRef?: { kind?: "HarborConnection" | "ClusterHarborConnection"; name: string };
};

interface Item {
  id: number;
  name: string;
  value: string;
  /** Holds the Harbor's one flag. */
  flagged?: boolean;
}

interface Conn {
  connection: string;
  harbor: string;
  adopt: boolean;
}

/** One Harbor: its objects by id, numbered from 1 like every other Harbor. */
class FakeHarbor {
  readonly items = new Map<number, Item>();
  /** Names whose deletion Harbor refuses, and why (a project holding repositories). */
  readonly blocked = new Map<string, string>();
  /** Names Harbor never deletes, by design (its built-in scanner). */
  readonly builtIn = new Set<string>();
  /** What a delete of that name reports it did besides (a label taken off artifacts). */
  readonly deleteNotes = new Map<string, { note: string; routine?: boolean }>();
  #next = 1;

  readonly label: string;

  constructor(label: string) {
    this.label = label;
  }

  add(name: string, value = "v1"): Item {
    const item = { id: this.#next++, name, value };
    this.items.set(item.id, item);
    return item;
  }

  byName(name: string): Item | undefined {
    return [...this.items.values()].find((i) => i.name === name);
  }

  /** The one flag of this Harbor moves to `item`. */
  flag(item: Item): void {
    for (const i of this.items.values()) i.flagged = i === item ? true : undefined;
  }
}

/** A Harbor failure as the kind's classifier sees one. */
class FakeHarborError extends Error {
  readonly reason: string;
  readonly terminal: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(reason: string, message: string, terminal = false, retryAfterMs?: number) {
    super(message);
    this.reason = reason;
    this.terminal = terminal;
    this.retryAfterMs = retryAfterMs;
  }
}

const errors: ErrorClassifier = {
  classify: (e) =>
    e instanceof FakeHarborError
      ? {
          reason: e.reason,
          message: e.message,
          terminal: e.terminal,
          ...(e.retryAfterMs === undefined ? {} : { retryAfterMs: e.retryAfterMs }),
        }
      : undefined,
};

// -------------------------------------------------------------------------------------------------
// The environment of one case.

interface Options {
  /** Every resource names the same object: a per-Harbor singleton such as the GC schedule. */
  singleton?: boolean;
  /** What the kind's afterSync reports (e.g. a robot's Secret copy that waits). */
  afterSync?: () => AfterSync;
  /** The kind's create refuses a taken name (HarborConflict): a new resource creates first. */
  createFirst?: boolean;
}

interface Outcome {
  result?: Result;
  error?: unknown;
  /** Harbor calls and Kubernetes writes of this reconcile, in order. */
  calls: string[];
  /** "log Created", "Warning Conflict", … */
  events: string[];
  messages: string[];
  /** The status patches written. */
  statusWrites: Record<string, unknown>[];
}

function setup(o: Options = {}) {
  let now = START;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    iso: () => new Date(now).toISOString().replace(/\.\d+Z$/, "Z"),
  };
  const harbors = new Map([
    [ONE, new FakeHarbor("one")],
    [TWO, new FakeHarbor("two")],
  ]);
  const harbor = (url: string) => harbors.get(url) as FakeHarbor;
  const calls: string[] = [];
  const statusWrites: Record<string, unknown>[] = [];
  const events: Array<{ name: string; type: string; reason: string; message: string }> = [];
  const enqueued: string[] = [];
  /** Resources of other kinds that are Ready (what `needs` waits for). */
  const dependencies = new Set<string>();
  /** Harbor calls that fail next, once each. */
  const harborFails = new Map<string, Error>();

  // The connections: two objects that reach Harbor one, one that reaches Harbor two, and a cluster
  // connection to Harbor one whose tenancy refuses adoption.
  const connections = new Map<string, { url: string; state: "ready" | "down" | "unchecked"; adopt: boolean }>(
    [
      ["HarborConnection/harbor", { url: ONE, state: "ready", adopt: true }],
      ["HarborConnection/harbor-alias", { url: ONE, state: "ready", adopt: true }],
      ["HarborConnection/other", { url: TWO, state: "ready", adopt: true }],
      ["ClusterHarborConnection/tenants", { url: ONE, state: "ready", adopt: false }],
    ],
  );
  const connOf = (ref: { kind: string; name: string }) => connections.get(`${ref.kind}/${ref.name}`);
  // One handle per connection and what it reaches, as the real resolver keeps (the sweep groups by it).
  const handles = new Map<string, Conn>();
  const resolver: ConnectionResolver<Conn> = {
    async resolve(namespace, ref) {
      const c = connOf(ref);
      const what = `${ref.kind} "${ref.name}"`;
      if (!c) throw new NotReady("ConnectionNotReady", `${what} in namespace "${namespace}" does not exist`);
      if (c.state === "unchecked")
        throw new NotReady("ConnectionNotReady", `${what} is not checked yet`, { quiet: true });
      if (c.state === "down") throw new NotReady("ConnectionNotReady", `${what} is not Ready: login failed`);
      const id = `${ref.kind}/${ref.name}/${c.url}/${c.adopt}`;
      const handle = handles.get(id) ?? { connection: ref.name, harbor: c.url, adopt: c.adopt };
      handles.set(id, handle);
      return handle;
    },
    harborOf: (conn) => conn.harbor,
    harborKey: (namespace, ref) => connOf(ref)?.url ?? `${namespace}/${ref.kind}/${ref.name}`,
    mayAdopt: (conn) =>
      conn.adopt
        ? { allowed: true }
        : {
            allowed: false,
            why: `ClusterHarborConnection "${conn.connection}" does not let namespace "${NS}" adopt Harbor objects that exist already (spec.tenancy.allowAdoption)`,
          },
  };

  const failing = (op: string) => {
    const e = harborFails.get(op);
    harborFails.delete(op);
    if (e) throw e;
  };
  const external: ExternalClient<ThingSpec, Item, Conn, { prepared: true }> = {
    async prepare(input) {
      const needs = input.spec.needs;
      if (needs !== undefined && !dependencies.has(needs))
        throw new NotReady(DEPENDENCY_NOT_READY, `HarborDependency "${needs}" is not Ready`);
      return { prepared: true };
    },
    async observe(input) {
      const h = harbor(input.conn.harbor);
      failing("observe");
      if (input.knownId !== undefined) {
        calls.push(`${h.label} observe #${input.knownId}`);
        const item = h.items.get(input.knownId);
        return item && { ...item };
      }
      calls.push(`${h.label} observe "${input.harborName}"`);
      const item = h.byName(input.harborName);
      return item && { ...item };
    },
    async create(input) {
      const h = harbor(input.conn.harbor);
      calls.push(`${h.label} create "${input.harborName}"`);
      failing("create");
      if (h.byName(input.harborName)) throw new FakeHarborError("HarborConflict", "already exists");
      const item = h.add(input.harborName, input.spec.value);
      if (input.spec.flag) h.flag(item);
      return { ...item };
    },
    async update(input, current, drift) {
      const h = harbor(input.conn.harbor);
      calls.push(`${h.label} update #${current.id} ${drift.join(",")}`);
      failing("update");
      const item = h.items.get(current.id) as Item;
      item.value = input.spec.value;
      if (input.spec.flag) h.flag(item);
      return { ...item };
    },
    async delete(input, current) {
      const h = harbor(input.conn.harbor);
      calls.push(`${h.label} delete #${current.id}`);
      failing("delete");
      const why = h.blocked.get(current.name);
      if (why !== undefined) throw new DeletionBlocked(why);
      if (h.builtIn.has(current.name))
        return { kept: `Left "${current.name}": Harbor lets nobody delete it` };
      h.items.delete(current.id);
      return h.deleteNotes.get(current.name);
    },
    diff: (input, observed) => [
      ...(observed.value === input.spec.value ? [] : ["value"]),
      ...(input.spec.flag && !observed.flagged ? ["flag"] : []),
    ],
    id: (observed) => observed.id,
    identifies: (input, observed) => observed.name === input.harborName,
    status: (_input, observed) => ({ value: observed.value, ...(observed.flagged ? { flagged: true } : {}) }),
    ...(o.afterSync ? { afterSync: async () => (o.afterSync as () => AfterSync)() } : {}),
    ...(o.createFirst
      ? { refusedAsExisting: (e: unknown) => e instanceof FakeHarborError && e.reason === "HarborConflict" }
      : {}),
    async observeMany(conn, inputs) {
      const h = harbor(conn.harbor);
      calls.push(`${h.label} list`);
      const ids = new Set(inputs.map((i) => i.knownId));
      return new Map([...h.items].filter(([id]) => ids.has(id)).map(([id, item]) => [id, { ...item }]));
    },
    claim: (_spec, harborName) => (o.singleton ? "gc-schedule" : `thing:${harborName}`),
    setting: (spec) => (spec.flag ? { claim: "thing-flag", what: "the thing flag" } : undefined),
    holdsSetting: (status) => status.flagged === true,
  };

  // The API server.
  const server = new FakeApiServer({
    kind: type.kind,
    now: clock.now,
    log: (r) => {
      if (r.op === "delete") return;
      if (r.op === "mergePatch") calls.push(finalizersWritten(r.patch));
      else {
        calls.push("kube status");
        statusWrites.push(r.patch);
      }
    },
  });
  const kube: Pick<KubeClient, "mergePatch" | "patchStatus"> = server.client;
  const recorder: EventRecorder = {
    record: (obj, eventType, reason, message) =>
      events.push({ name: obj.metadata.name, type: eventType, reason, message }),
    // A routine change is a log line, no Event: shown as "log <reason>" among the events.
    routine: (obj, reason, message) => events.push({ name: obj.metadata.name, type: "log", reason, message }),
  };

  const make = (cache: FakeCache) => {
    const r = new ManagedReconciler<ThingSpec, Item, Conn, { prepared: true }>({
      type,
      specSchema: ThingSpec,
      informer: cache,
      external,
      connections: resolver,
      errors,
      nameProblem: (name) => (/^[a-z0-9-]+$/.test(name) ? undefined : "must be lower case"),
      kube,
      events: recorder,
      now: clock.now,
    });
    r.enqueue = (key) => enqueued.push(key);
    return r;
  };
  let cache = new FakeCache();
  let reconciler = make(cache);
  const show = () => cache.show(server.objects);

  const logger = pino({ level: "silent" });
  const signal = new AbortController().signal;

  const env = {
    clock,
    harbors,
    one: harbor(ONE),
    two: harbor(TWO),
    connections,
    dependencies,
    harborFails,
    /** Kubernetes writes that fail until cleared. */
    kubeFails: server.fails,
    enqueued,
    events,
    calls,
    get reconciler() {
      return reconciler;
    },

    /** kubectl apply: creates the resource, or replaces its spec (a new generation if it changed). */
    apply(
      name: string,
      spec: SpecInput = {},
      meta: { finalizers?: string[]; status?: ManagedStatus; annotations?: Record<string, string> } = {},
    ): void {
      server.apply(name, { connectionRef: { name: "harbor" }, ...spec }, meta);
      show();
    },

    annotate(name: string, key: string, value: string | undefined): void {
      server.annotate(name, key, value);
      show();
    },

    /** kubectl patch --subresource=status, as after a restore from a backup. */
    setStatus(name: string, status: Record<string, unknown>): void {
      server.setStatus(name, status);
      show();
    },

    /** kubectl delete: a deletionTimestamp while finalizers remain, else gone. */
    delete(name: string): void {
      server.delete(name);
      show();
    },

    /** The API server's copy. */
    get(name: string): ManagedObject {
      const obj = server.get(name);
      if (!obj) throw new Error(`${name} does not exist`);
      return obj;
    },

    exists(name: string): boolean {
      return server.get(name) !== undefined;
    },

    condition(name: string, t: string): Condition | undefined {
      return env.get(name).status?.conditions?.find((c) => c.type === t);
    },

    /** Runs one reconcile; the informer then shows what it wrote, unless `caughtUp` is false. */
    async reconcile(name: string, o: { caughtUp?: boolean } = {}): Promise<Outcome> {
      const from = { calls: calls.length, events: events.length, status: statusWrites.length };
      const out: Outcome = { calls: [], events: [], messages: [], statusWrites: [] };
      try {
        out.result = await reconciler.reconcile({ key: `${NS}/${name}`, reconcileId: "r", logger, signal });
      } catch (e) {
        out.error = e;
      }
      if (o.caughtUp !== false) show();
      out.calls = calls.slice(from.calls);
      const mine = events.slice(from.events);
      out.events = mine.map((e) => `${e.type} ${e.reason}`);
      out.messages = mine.map((e) => e.message);
      out.statusWrites = statusWrites.slice(from.status);
      return out;
    },

    /** A new operator process: a fresh reconciler and a fresh informer over the same cluster. */
    restart(): void {
      cache = new FakeCache();
      reconciler = make(cache);
      show();
    },

    /** Applies and reconciles until Ready, as a precondition. */
    async ready(name: string, spec: SpecInput = {}): Promise<ManagedObject> {
      env.apply(name, spec);
      const out = await env.reconcile(name);
      expect(out.error).toBeUndefined();
      expect(env.condition(name, "Ready")?.status).toBe("True");
      return env.get(name);
    },
  };
  return env;
}

const harborWrites = (calls: string[]) => calls.filter((c) => /^(one|two) (create|update|delete)/.test(c));

// -------------------------------------------------------------------------------------------------

// Both ways a kind starts: a lookup, then the create; or (a kind whose create refuses a taken name)
// the create, then the lookup only when it is refused. The outcomes are the same.
describe.each([
  { start: "lookup first", createFirst: false },
  { start: "create first", createFirst: true },
])("creationPolicy × what Harbor has, $start", ({ createFirst }) => {
  type Policy = "Create" | "Adopt" | "CreateOrAdopt";
  type State = "absent" | "present" | "ours mid-create";
  type Outcome = "created" | "adopted" | "taken over" | "NotFound" | "AlreadyExists" | "NotAllowed";
  // adoption: whether the connection lets the namespace adopt (a tenant of a shared connection may not).
  const rows: Array<{ policy: Policy; state: State; adoption: "allowed" | "refused"; outcome: Outcome }> = [
    { policy: "Create", state: "absent", adoption: "allowed", outcome: "created" },
    { policy: "CreateOrAdopt", state: "absent", adoption: "allowed", outcome: "created" },
    { policy: "Adopt", state: "absent", adoption: "allowed", outcome: "NotFound" },
    { policy: "Create", state: "present", adoption: "allowed", outcome: "AlreadyExists" },
    { policy: "Adopt", state: "present", adoption: "allowed", outcome: "adopted" },
    { policy: "CreateOrAdopt", state: "present", adoption: "allowed", outcome: "adopted" },
    { policy: "Create", state: "ours mid-create", adoption: "allowed", outcome: "taken over" },
    { policy: "Adopt", state: "ours mid-create", adoption: "allowed", outcome: "taken over" },
    { policy: "CreateOrAdopt", state: "ours mid-create", adoption: "allowed", outcome: "taken over" },
    { policy: "Create", state: "absent", adoption: "refused", outcome: "created" },
    { policy: "CreateOrAdopt", state: "absent", adoption: "refused", outcome: "created" },
    { policy: "Adopt", state: "absent", adoption: "refused", outcome: "NotFound" },
    { policy: "Create", state: "present", adoption: "refused", outcome: "AlreadyExists" },
    { policy: "Adopt", state: "present", adoption: "refused", outcome: "NotAllowed" },
    { policy: "CreateOrAdopt", state: "present", adoption: "refused", outcome: "NotAllowed" },
    { policy: "Create", state: "ours mid-create", adoption: "refused", outcome: "taken over" },
    { policy: "Adopt", state: "ours mid-create", adoption: "refused", outcome: "taken over" },
    { policy: "CreateOrAdopt", state: "ours mid-create", adoption: "refused", outcome: "taken over" },
  ];

  test.each(rows)("$policy, object $state, adoption $adoption → $outcome", async (row) => {
    const env = setup({ createFirst });
    const finalizer = `kube finalizers ${JSON.stringify([FINALIZER])}`;
    // A create-first kind creates unless the policy is Adopt; refused, it takes the finalizer it
    // wrote for the create off again (when it wrote one) and looks the object up.
    const createsFirst = createFirst && row.policy !== "Adopt";
    const refusedCreate =
      row.state === "present"
        ? [finalizer, 'one create "a"', "kube finalizers []", 'one observe "a"']
        : ['one create "a"', 'one observe "a"'];
    const connectionRef =
      row.adoption === "allowed"
        ? { name: "harbor" }
        : { kind: "ClusterHarborConnection" as const, name: "tenants" };
    // Present: someone else's object, differing from the spec. Ours mid-create: made by this
    // resource before a crash (the finalizer is on, no id recorded yet), as the spec says.
    const existing =
      row.state === "present"
        ? env.one.add("a", "theirs")
        : row.state === "ours mid-create"
          ? env.one.add("a", "v1")
          : undefined;
    env.apply(
      "a",
      { connectionRef, creationPolicy: row.policy },
      row.state === "ours mid-create" ? { finalizers: [FINALIZER] } : {},
    );
    const out = await env.reconcile("a");
    const ready = env.condition("a", "Ready");
    const stalled = env.condition("a", "Stalled");
    const status = env.get("a").status;

    switch (row.outcome) {
      case "created": {
        // The finalizer before the create, so that an interrupted create is found again.
        expect(out.calls).toEqual([
          ...(createsFirst ? [] : ['one observe "a"']),
          finalizer,
          'one create "a"',
          "kube status",
        ]);
        expect(out.events).toEqual(["log Created"]);
        expect(out.messages).toEqual(['Created Thing "a" (id 1)']);
        expect(out.result).toEqual({});
        expect(ready).toMatchObject({ status: "True", reason: "Synced", observedGeneration: 1 });
        expect(status).toMatchObject({ harborId: 1, harborUrl: ONE, harborName: "a", observedGeneration: 1 });
        expect(env.one.byName("a")?.value).toBe("v1");
        break;
      }
      case "adopted": {
        expect(out.calls).toEqual([
          ...(createsFirst ? refusedCreate : ['one observe "a"']),
          finalizer,
          `one update #${existing?.id} value`,
          "kube status",
        ]);
        expect(out.events).toEqual(["Normal Adopted", "Normal Updated", "Normal Ready"]);
        expect(ready?.status).toBe("True");
        expect(status).toMatchObject({ harborId: existing?.id, harborUrl: ONE });
        expect(env.one.byName("a")?.value).toBe("v1"); // the spec rules from now on
        break;
      }
      case "taken over": {
        // Neither refused as someone else's, nor created a second time, nor announced as adopted.
        expect(out.calls).toEqual([...(createsFirst ? refusedCreate : ['one observe "a"']), "kube status"]);
        expect(out.events).toEqual(["Normal Ready"]);
        expect(ready?.status).toBe("True");
        expect(status).toMatchObject({ harborId: existing?.id, harborUrl: ONE });
        break;
      }
      case "NotFound": {
        // Adopt never creates: a wait, retried, on something the user can fix in Harbor.
        expect(out.calls).toEqual(['one observe "a"', "kube status"]);
        expect(out.result).toEqual({ requeueAfterMs: 15_000 });
        expect(ready).toMatchObject({ status: "False", reason: "NotFound" });
        expect(ready?.message).toContain("creationPolicy Adopt never creates it");
        expect(stalled).toBeUndefined();
        expect(out.events).toEqual(["Warning NotFound"]);
        expect(env.get("a").metadata.finalizers).toBeUndefined();
        break;
      }
      case "AlreadyExists":
      case "NotAllowed": {
        expect(out.calls).toEqual([...(createsFirst ? refusedCreate : ['one observe "a"']), "kube status"]);
        expect(out.error).toBeInstanceOf(TerminalError);
        expect(ready).toMatchObject({ status: "False", reason: row.outcome });
        expect(stalled).toMatchObject({ status: "True", reason: row.outcome });
        expect(ready?.message).toContain(
          row.outcome === "AlreadyExists" ? `already exists in Harbor ${ONE}` : "allowAdoption",
        );
        expect(out.events).toEqual([`Warning ${row.outcome}`]);
        // No finalizer is left that would mark the object as a create of ours (taken over next time).
        expect(env.get("a").metadata.finalizers ?? []).toEqual([]);
        expect(env.one.byName("a")?.value).toBe("theirs"); // never touched
        break;
      }
    }
    expect(env.one.items.size).toBe(row.outcome === "NotFound" ? 0 : 1);
    expect(env.two.items.size).toBe(0);
  });
});

describe("an interrupted create is taken over, never repeated", () => {
  test("a crash between the create and its status write: the next operator takes the object over", async () => {
    const env = setup();
    env.apply("a");
    env.kubeFails.set("patchStatus", new KubeError("server", "etcd is unavailable", 503));
    const first = await env.reconcile("a");
    expect(first.calls).toEqual([
      'one observe "a"',
      `kube finalizers ${JSON.stringify([FINALIZER])}`,
      'one create "a"',
    ]);
    expect(first.error).toBeInstanceOf(KubeError);
    expect(env.get("a").status).toBeUndefined();

    env.kubeFails.clear();
    env.restart();
    const second = await env.reconcile("a");
    expect(second.calls).toEqual(['one observe "a"', "kube status"]);
    expect(harborWrites(env.calls)).toEqual(['one create "a"']);
    expect(second.events).toEqual(["Normal Ready"]);
    expect(env.get("a").status).toMatchObject({ harborId: 1, harborUrl: ONE });
  });

  test("a reconcile that runs before the informer shows our writes uses them: no refusal, no second create", async () => {
    const env = setup();
    env.apply("a");
    await env.reconcile("a", { caughtUp: false });
    // The informer still shows the resource without finalizer and without id.
    const again = await env.reconcile("a", { caughtUp: false });
    expect(again.error).toBeUndefined();
    expect(again.calls).toEqual(["one observe #1"]);
    expect(again.events).toEqual([]);
    expect(env.condition("a", "Ready")?.status).toBe("True");
  });

  test("a write that loses a race with another writer is retried with fresh state, nothing created", async () => {
    const env = setup();
    env.apply("a");
    env.kubeFails.set("mergePatch", new KubeError("conflict", "the object has been modified", 409));
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(KubeError);
    expect(out.calls).toEqual(['one observe "a"']);
    expect(out.statusWrites).toEqual([]); // a stale write is not reported as an error condition
    env.kubeFails.clear();
    await env.reconcile("a");
    expect(harborWrites(env.calls)).toEqual(['one create "a"']);
  });
});

describe("a kind that creates first", () => {
  test("a create whose answer is lost keeps the finalizer; the next create is refused and takes its object over", async () => {
    const env = setup({ createFirst: true });
    env.apply("a");
    // Harbor made the object, but the answer never came (a timeout): it may have been created.
    env.harborFails.set("create", new FakeHarborError("HarborUnavailable", "timeout"));
    env.one.add("a", "v1");
    const first = await env.reconcile("a");
    expect(first.calls).toEqual([
      `kube finalizers ${JSON.stringify([FINALIZER])}`,
      'one create "a"',
      "kube status",
    ]);
    expect(env.get("a").metadata.finalizers).toEqual([FINALIZER]);
    const second = await env.reconcile("a");
    expect(second.calls).toEqual(['one create "a"', 'one observe "a"', "kube status"]);
    expect(second.events).toEqual(["Normal Ready"]);
    expect(env.get("a").status).toMatchObject({ harborId: 1 });
    expect(env.one.items.size).toBe(1);
  });

  test("a refusal no existing object explains is reported, and leaves no finalizer behind", async () => {
    const env = setup({ createFirst: true });
    env.apply("a");
    env.harborFails.set("create", new FakeHarborError("HarborConflict", "the name is being released"));
    const out = await env.reconcile("a");
    expect(out.calls).toEqual([
      `kube finalizers ${JSON.stringify([FINALIZER])}`,
      'one create "a"',
      "kube finalizers []",
      'one observe "a"',
      "kube status",
    ]);
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "HarborConflict" });
    expect(env.get("a").metadata.finalizers ?? []).toEqual([]);
    const again = await env.reconcile("a");
    expect(harborWrites(again.calls)).toEqual(['one create "a"']);
    expect(env.condition("a", "Ready")?.status).toBe("True");
  });

  test("a resource that recorded its object looks it up by id, and an object deleted outside is created again", async () => {
    const env = setup({ createFirst: true });
    await env.ready("a");
    env.one.items.clear();
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1", "kube status", 'one create "a"', "kube status"]);
    expect(out.events).toEqual(["Warning Recreated"]);
  });
});

// The finalizer set at admission (deploy/components/finalizer-at-admission): it comes with the
// object, annotated, and marks no create of the operator's.
describe("a finalizer set at admission", () => {
  const admitted = { finalizers: [FINALIZER], annotations: { [FINALIZER_SET_AT_ANNOTATION]: "admission" } };

  test.each([
    {
      start: "lookup first",
      createFirst: false,
      calls: ['one observe "a"', 'one create "a"', "kube status"],
    },
    { start: "create first", createFirst: true, calls: ['one create "a"', "kube status"] },
  ])(
    "a new resource converges with one Kubernetes write, its status ($start)",
    async ({ createFirst, calls }) => {
      const env = setup({ createFirst });
      env.apply("a", {}, admitted);
      const out = await env.reconcile("a");
      expect(out.error).toBeUndefined();
      expect(out.calls).toEqual(calls);
      expect(env.condition("a", "Ready")?.status).toBe("True");
      expect(env.get("a").metadata.finalizers).toEqual([FINALIZER]);
    },
  );

  test.each([
    { start: "lookup first", createFirst: false },
    { start: "create first", createFirst: true },
  ])(
    "someone else's object of the name is refused under Create and left alone when the resource goes ($start)",
    async ({ createFirst }) => {
      const env = setup({ createFirst });
      env.one.add("a", "theirs");
      env.apply("a", {}, admitted);
      const out = await env.reconcile("a");
      expect(out.error).toBeInstanceOf(TerminalError);
      expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "AlreadyExists" });
      env.delete("a");
      const gone = await env.reconcile("a");
      expect(gone.calls).toEqual(["kube finalizers []"]);
      expect(env.exists("a")).toBe(false);
      expect(env.one.byName("a")?.value).toBe("theirs");
      expect(harborWrites(env.calls)).toEqual(createFirst ? ['one create "a"'] : []);
    },
  );

  test("a create whose answer is lost is taken over by the process that sent it", async () => {
    const env = setup({ createFirst: true });
    env.apply("a", {}, admitted);
    env.harborFails.set("create", new FakeHarborError("HarborUnavailable", "timeout"));
    env.one.add("a", "v1"); // Harbor made it; the answer never came
    const first = await env.reconcile("a");
    expect(first.calls).toEqual(['one create "a"', "kube status"]);
    const second = await env.reconcile("a");
    expect(second.calls).toEqual(['one create "a"', 'one observe "a"', "kube status"]);
    expect(env.get("a").status).toMatchObject({ harborId: 1 });
    expect(env.condition("a", "Ready")?.status).toBe("True");
    expect(env.one.items.size).toBe(1);
  });

  test("a resource deleted after such a create deletes its object; after a restart it is no longer known", async () => {
    const lost = async () => {
      const env = setup({ createFirst: true });
      env.apply("a", {}, admitted);
      env.harborFails.set("create", new FakeHarborError("HarborUnavailable", "timeout"));
      env.one.add("a", "v1");
      await env.reconcile("a");
      return env;
    };
    const same = await lost();
    same.delete("a");
    const out = await same.reconcile("a");
    expect(out.calls).toEqual(['one observe "a"', "one delete #1", "kube finalizers []"]);
    expect(same.one.byName("a")).toBeUndefined();

    // A crash between Harbor's answer and the status write: with no mark in the resource, the
    // object is not recognised as ours, and it stays in Harbor (never someone else's deleted).
    const restarted = await lost();
    restarted.restart();
    restarted.delete("a");
    const after = await restarted.reconcile("a");
    expect(after.calls).toEqual(["kube finalizers []"]);
    expect(restarted.one.byName("a")).toBeDefined();
  });

  test("a finalizer the operator wrote still marks its create, with the annotation on other objects", async () => {
    const env = setup({ createFirst: true });
    env.apply("a");
    env.apply("b", {}, admitted);
    env.harborFails.set("create", new FakeHarborError("HarborUnavailable", "timeout"));
    env.one.add("a", "v1");
    await env.reconcile("a");
    env.restart();
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(['one create "a"', 'one observe "a"', "kube status"]);
    expect(env.get("a").status).toMatchObject({ harborId: 1 });
  });
});

describe("claims: one owner per Harbor object, across connections", () => {
  test("a second resource for the object through another connection to the same Harbor gets Conflict, and never reaches Harbor", async () => {
    const env = setup();
    await env.ready("a");
    env.clock.advance(1000);
    env.apply("twin", { name: "a", value: "other", connectionRef: { name: "harbor-alias" } });
    const out = await env.reconcile("twin");
    expect(out.calls).toEqual(["kube status"]);
    expect(out.result).toEqual({});
    expect(env.condition("twin", "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
    expect(env.condition("twin", "Ready")?.message).toContain(`HarborThing ${NS}/a already manages`);
    expect(out.events).toEqual(["Warning Conflict"]);
    expect(env.get("twin").metadata.finalizers).toBeUndefined();
    expect(env.one.byName("a")?.value).toBe("v1");
    // The owner is unaffected.
    expect((await env.reconcile("a")).calls).toEqual(["one observe #1"]);
  });

  test("the same name in two Harbors: two owners, two objects", async () => {
    const env = setup();
    await env.ready("a");
    await env.ready("elsewhere", { name: "a", connectionRef: { name: "other" } });
    expect(env.two.byName("a")?.id).toBe(1);
    expect(env.get("elsewhere").status).toMatchObject({ harborId: 1, harborUrl: TWO });
  });

  test("the resource that holds the object keeps it against an older one that moves to its Harbor", async () => {
    const env = setup();
    await env.ready("older", { name: "x", connectionRef: { name: "other" } });
    env.clock.advance(1000);
    await env.ready("younger", { name: "x" });
    env.apply("older", { name: "x" }); // now points at Harbor one, where "younger" holds "x"
    const out = await env.reconcile("older");
    expect(env.condition("older", "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
    expect(env.condition("older", "Ready")?.message).toContain(`${NS}/younger`);
    expect(harborWrites(out.calls)).toEqual([]);
    expect((await env.reconcile("younger")).calls).toEqual(["one observe #1"]);
  });

  test("a lost claim: when the owner goes, the waiting resource is queued and takes the object", async () => {
    const env = setup();
    await env.ready("a", { deletionPolicy: "Orphan" });
    env.clock.advance(1000);
    env.apply("twin", { name: "a", creationPolicy: "CreateOrAdopt" });
    await env.reconcile("twin");
    expect(env.condition("twin", "Ready")?.reason).toBe("Conflict");
    expect(env.enqueued).toEqual([]);

    env.delete("a");
    const gone = await env.reconcile("a");
    expect(gone.events).toEqual(["Normal Orphaned"]);
    expect(env.exists("a")).toBe(false);
    expect(env.enqueued).toEqual([`${NS}/twin`]);

    const out = await env.reconcile("twin");
    expect(out.events).toEqual(["Normal Adopted", "Normal Ready"]);
    expect(env.condition("twin", "Ready")?.status).toBe("True");
    expect(env.get("twin").status?.harborId).toBe(1);
  });

  test("a resource in conflict that is deleted leaves the object and its owner alone", async () => {
    const env = setup();
    await env.ready("a");
    env.apply("twin", { name: "a" });
    await env.reconcile("twin");
    env.delete("twin");
    expect(env.exists("twin")).toBe(false); // it never got the finalizer
    expect((await env.reconcile("twin")).calls).toEqual([]);
    expect(env.one.byName("a")).toBeDefined();
  });

  test("a singleton claim (one per Harbor): two resources for one Harbor conflict, for two Harbors they do not", async () => {
    const env = setup({ singleton: true });
    await env.ready("nightly");
    env.clock.advance(1000);
    env.apply("weekly");
    const out = await env.reconcile("weekly");
    expect(env.condition("weekly", "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
    expect(env.condition("weekly", "Ready")?.message).toContain(`${NS}/nightly`);
    expect(out.calls).toEqual(["kube status"]);
    await env.ready("other-harbor", { connectionRef: { name: "other" } });
  });
});

describe("per-Harbor settings a spec takes besides its object", () => {
  test("a second resource taking the setting gets Conflict naming the holder and never reaches Harbor; it takes over when the holder lets go", async () => {
    const env = setup();
    await env.ready("a", { flag: true });
    expect(env.one.byName("a")?.flagged).toBe(true);
    env.clock.advance(1000);
    env.apply("b", { flag: true });
    const out = await env.reconcile("b");
    expect(out.calls).toEqual(["kube status"]);
    expect(env.condition("b", "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
    expect(env.condition("b", "Ready")?.message).toBe(
      `HarborThing ${NS}/a already holds the thing flag of this Harbor; only one resource may`,
    );
    expect(out.events).toEqual(["Warning Conflict"]);
    // Another Harbor has a flag of its own; a resource that does not take it is not in the way.
    await env.ready("elsewhere", { flag: true, connectionRef: { name: "other" } });
    await env.ready("plain");

    env.apply("a", { flag: false }); // the holder lets go: who waited is told
    expect(env.enqueued).toContain(`${NS}/b`);
    const taken = await env.reconcile("b");
    expect(harborWrites(taken.calls)).toEqual(['one create "b"']);
    expect(env.one.byName("b")?.flagged).toBe(true);
    expect(env.get("b").status).toMatchObject({ flagged: true });
  });

  test("the holder keeps it against an older resource that asks later, across a restart; without a holder the oldest wins", async () => {
    const env = setup();
    await env.ready("older");
    env.clock.advance(1000);
    await env.ready("younger", { flag: true });
    env.apply("older", { flag: true });
    expect((await env.reconcile("older")).calls).toEqual(["kube status"]);
    expect(env.condition("older", "Ready")?.message).toContain(`${NS}/younger already holds`);
    // Its status saying it holds the setting (as before the setting moved) is stale while it is in
    // Conflict: listed first after a restart, it still does not take the setting.
    env.setStatus("older", { flagged: true });
    env.restart();
    expect((await env.reconcile("older")).calls).toEqual([]); // still in Conflict: nothing new to write
    expect(env.condition("older", "Ready")?.reason).toBe("Conflict");
    expect((await env.reconcile("younger")).calls).toEqual(["one observe #2"]);

    env.apply("first", { flag: true, connectionRef: { name: "other" } });
    env.clock.advance(1000);
    env.apply("second", { flag: true, connectionRef: { name: "other" } });
    await env.reconcile("second");
    expect(env.condition("second", "Ready")?.message).toContain(`${NS}/first already holds`);
    expect((await env.reconcile("first")).events).toEqual(["log Created"]);
  });
});

describe("drift", () => {
  test("a change made in Harbor is reverted and named: DriftCorrected, lastDriftCorrection at the clock's time", async () => {
    const env = setup();
    await env.ready("a");
    (env.one.items.get(1) as Item).value = "changed in the UI";
    env.clock.advance(30_000);
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1", "one update #1 value", "kube status"]);
    expect(out.events).toEqual(["Normal DriftCorrected"]);
    expect(out.messages).toEqual(["Reverted changes made in Harbor to value"]);
    expect(env.get("a").status?.lastDriftCorrection).toEqual({ time: env.clock.iso(), fields: ["value"] });
    expect(env.one.items.get(1)?.value).toBe("v1");
    expect(env.condition("a", "Ready")?.status).toBe("True");
  });

  test("a spec change is applied as an update: Updated, the new generation observed, no drift recorded", async () => {
    const env = setup();
    await env.ready("a");
    env.apply("a", { value: "v2" });
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1", "one update #1 value", "kube status"]);
    expect(out.events).toEqual(["Normal Updated"]);
    expect(env.get("a").status).toMatchObject({ observedGeneration: 2, value: "v2" });
    expect(env.get("a").status?.lastDriftCorrection).toBeUndefined();
    expect(env.condition("a", "Ready")?.observedGeneration).toBe(2);
  });

  test("in sync: one read, no write to Harbor or Kubernetes, no Event", async () => {
    const env = setup();
    await env.ready("a");
    env.clock.advance(60_000);
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1"]);
    expect(out.events).toEqual([]);
    expect(out.result).toEqual({});
  });

  test("a restart never flaps a Ready resource: no status write, no Event", async () => {
    const env = setup();
    await env.ready("a");
    const before = env.condition("a", "Ready");
    env.clock.advance(3_600_000);
    env.restart();
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1"]);
    expect(out.events).toEqual([]);
    expect(env.condition("a", "Ready")).toEqual(before);
  });

  test("an object deleted outside the operator is created again: the old id is cleared from status first", async () => {
    const env = setup();
    await env.ready("a");
    env.one.items.delete(1);
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["one observe #1", "kube status", 'one create "a"', "kube status"]);
    expect(out.statusWrites[0]).toEqual({ harborId: null, harborUrl: ONE });
    expect(out.events).toEqual(["Warning Recreated"]);
    expect(out.messages[0]).toContain("(id 1) was deleted outside the operator");
    expect(out.messages[0]).toContain("(id 2)");
    expect(env.get("a").status?.harborId).toBe(2);
  });

  test("the sweep reads each Harbor once and queues only what differs; its read stands in for the reconcile's for 10 s", async () => {
    const env = setup();
    await env.ready("same");
    await env.ready("drifted");
    await env.ready("lost");
    await env.ready("paused");
    await env.ready("elsewhere", { connectionRef: { name: "other" } });
    env.annotate("paused", PAUSED_ANNOTATION, "true");
    await env.reconcile("paused");
    (env.one.items.get(2) as Item).value = "changed";
    (env.one.items.get(4) as Item).value = "changed"; // paused: left for later
    env.one.items.delete(3);
    const from = env.calls.length;

    const queued = await env.reconciler.sweep(pino({ level: "silent" }), new AbortController().signal);
    expect(queued).toBe(2);
    expect(env.enqueued.sort()).toEqual([`${NS}/drifted`, `${NS}/lost`]);
    expect(env.calls.slice(from).sort()).toEqual(["one list", "two list"]);

    const drifted = await env.reconcile("drifted");
    expect(drifted.calls).toEqual(["one update #2 value", "kube status"]); // no read of its own
    expect(drifted.events).toEqual(["Normal DriftCorrected"]);

    (env.one.items.get(2) as Item).value = "changed again";
    await env.reconciler.sweep(pino({ level: "silent" }), new AbortController().signal);
    env.clock.advance(10_000);
    expect((await env.reconcile("drifted")).calls[0]).toBe("one observe #2"); // the hint is too old
  });

  test("a spec change stands on its own reconcile's read: the sweep skips it, and an older hint is not used", async () => {
    const env = setup();
    await env.ready("changed");
    await env.ready("edited-after");
    (env.one.items.get(1) as Item).value = "changed in Harbor";
    (env.one.items.get(2) as Item).value = "changed in Harbor";
    env.apply("changed", { value: "v2" }); // a new generation, not reconciled yet
    const from = env.calls.length;
    expect(await env.reconciler.sweep(pino({ level: "silent" }), new AbortController().signal)).toBe(1);
    expect(env.enqueued).toEqual([`${NS}/edited-after`]);
    expect(env.calls.slice(from)).toEqual(["one list"]);
    expect((await env.reconcile("changed")).calls[0]).toBe("one observe #1");

    env.apply("edited-after", { value: "v3" }); // after the sweep read Harbor for the old spec
    expect((await env.reconcile("edited-after")).calls[0]).toBe("one observe #2");
  });

  test("the timed sweep skips what a reconcile read within the interval, not what a sweep's hint brought", async () => {
    const env = setup();
    const log = pino({ level: "silent" });
    const timed = { skipReadWithinMs: 60_000 };
    await env.ready("read-by-reconcile");
    env.clock.advance(60_000);
    await env.ready("just-read");
    (env.one.items.get(1) as Item).value = "changed in Harbor";
    (env.one.items.get(2) as Item).value = "changed in Harbor";
    let from = env.calls.length;
    // The first was read a full interval ago: listed and queued; the second was read just now.
    expect(await env.reconciler.sweep(log, new AbortController().signal, timed)).toBe(1);
    expect(env.enqueued).toEqual([`${NS}/read-by-reconcile`]);
    expect(env.calls.slice(from)).toEqual(["one list"]);
    // Its reconcile started from the sweep's read: that read was the sweep's, so the next timed
    // sweep reads it again.
    expect((await env.reconcile("read-by-reconcile")).calls).toEqual(["one update #1 value", "kube status"]);
    env.clock.advance(59_000);
    (env.one.items.get(1) as Item).value = "changed again";
    env.enqueued.length = 0;
    expect(await env.reconciler.sweep(log, new AbortController().signal, timed)).toBe(1);
    expect(env.enqueued).toEqual([`${NS}/read-by-reconcile`]);
    // A sweep that is not timed (sweepNow) reads everything.
    env.enqueued.length = 0;
    from = env.calls.length;
    await env.reconciler.sweep(log, new AbortController().signal);
    expect(env.enqueued.sort()).toEqual([`${NS}/just-read`, `${NS}/read-by-reconcile`]);
    expect(env.calls.slice(from)).toEqual(["one list"]);
    // Once the interval has passed since its reconcile's read, the timed sweep reads it too.
    env.clock.advance(1_000);
    env.enqueued.length = 0;
    await env.reconciler.sweep(log, new AbortController().signal, timed);
    expect(env.enqueued.sort()).toEqual([`${NS}/just-read`, `${NS}/read-by-reconcile`]);
  });

  test("the sweep at start leaves every observation to the reconciles a start queues: a restart reads lists, not each object", async () => {
    const env = setup();
    await env.ready("same");
    await env.ready("drifted");
    (env.one.items.get(2) as Item).value = "changed";
    const from = env.calls.length;

    const queued = await env.reconciler.sweep(pino({ level: "silent" }), new AbortController().signal, {
      hintAll: true,
    });
    expect(queued).toBe(1);
    expect(env.enqueued).toEqual([`${NS}/drifted`]);
    expect(env.calls.slice(from)).toEqual(["one list"]);

    const same = await env.reconcile("same");
    expect(same.calls).toEqual([]); // in sync: neither a read of its own nor a write
    const drifted = await env.reconcile("drifted");
    expect(drifted.calls).toEqual(["one update #2 value", "kube status"]);
  });

  test("the sweep leaves a resource whose connection moved to its reconcile", async () => {
    const env = setup();
    await env.ready("a");
    (env.connections.get("HarborConnection/harbor") as { url: string }).url = TWO;
    const from = env.calls.length;
    await env.reconciler.sweep(pino({ level: "silent" }), new AbortController().signal);
    expect(env.calls.slice(from)).toEqual([]);
    expect(env.enqueued).toEqual([`${NS}/a`]);
  });
});

describe("pause", () => {
  test("paused without a change: Ready keeps its status with reason Paused, Harbor is not read", async () => {
    const env = setup();
    await env.ready("a");
    env.annotate("a", PAUSED_ANNOTATION, "true");
    (env.one.items.get(1) as Item).value = "changed";
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["kube status"]);
    expect(env.condition("a", "Ready")).toMatchObject({ status: "True", reason: "Paused" });
    expect(env.condition("a", "Synced")).toMatchObject({ status: "False", reason: "Paused" });
    expect(out.events).toEqual([]);
    expect(env.one.items.get(1)?.value).toBe("changed");
    expect((await env.reconcile("a")).calls).toEqual([]); // and says it once
  });

  test("a change while paused is not reported done; after unpause it is applied as a spec change", async () => {
    const env = setup();
    await env.ready("a");
    env.annotate("a", PAUSED_ANNOTATION, "true");
    env.apply("a", { value: "v2" });
    const paused = await env.reconcile("a");
    expect(harborWrites(paused.calls)).toEqual([]);
    expect(paused.calls).toEqual(["kube status"]);
    expect(env.condition("a", "Ready")).toMatchObject({
      status: "False",
      reason: "Paused",
      observedGeneration: 1,
    });
    expect(env.condition("a", "Ready")?.message).toContain("the spec changed while reconciliation is paused");
    expect(env.get("a").status?.observedGeneration).toBe(1);
    expect(paused.events).toEqual(["Warning Paused"]);
    expect(env.one.items.get(1)?.value).toBe("v1");

    env.annotate("a", PAUSED_ANNOTATION, undefined);
    const resumed = await env.reconcile("a");
    expect(resumed.calls).toEqual(["one observe #1", "one update #1 value", "kube status"]);
    expect(resumed.events).toEqual(["Normal Updated", "Normal Ready"]);
    expect(env.condition("a", "Ready")).toMatchObject({
      status: "True",
      reason: "Synced",
      observedGeneration: 2,
    });
    expect(env.get("a").status?.lastDriftCorrection).toBeUndefined();
  });

  test("a paused resource being deleted is left as it is until unpaused", async () => {
    const env = setup();
    await env.ready("a");
    env.annotate("a", PAUSED_ANNOTATION, "true");
    env.delete("a");
    const out = await env.reconcile("a");
    expect(harborWrites(out.calls)).toEqual([]);
    expect(env.get("a").metadata.finalizers).toEqual([FINALIZER]);
  });
});

describe("deletion", () => {
  type Given = "in Harbor" | "gone from Harbor" | "id now another object's" | "recorded in another Harbor";
  // remains: whether Harbor one still has the resource's object "a" afterwards.
  const rows: Array<{
    policy: "Delete" | "Orphan";
    given: Given;
    calls: string[];
    event: string;
    remains: boolean;
  }> = [
    {
      policy: "Delete",
      given: "in Harbor",
      calls: ["one observe #1", "one delete #1"],
      event: "log Deleted",
      remains: false,
    },
    { policy: "Delete", given: "gone from Harbor", calls: ["one observe #1"], event: "", remains: false },
    {
      policy: "Delete",
      given: "id now another object's",
      calls: ["one observe #2"],
      event: "Warning HarborIdReused",
      remains: true,
    },
    {
      policy: "Delete",
      given: "recorded in another Harbor",
      calls: [],
      event: "Normal Orphaned",
      remains: true,
    },
    { policy: "Orphan", given: "in Harbor", calls: [], event: "Normal Orphaned", remains: true },
    {
      policy: "Orphan",
      given: "recorded in another Harbor",
      calls: [],
      event: "Normal Orphaned",
      remains: true,
    },
  ];

  test.each(rows)("deletionPolicy $policy, object $given → $event", async (row) => {
    const env = setup();
    await env.ready("a", { deletionPolicy: row.policy });
    const victim = env.one.add("victim", "theirs");
    if (row.given === "gone from Harbor") env.one.items.delete(1);
    if (row.given === "id now another object's") env.setStatus("a", { harborId: victim.id });
    if (row.given === "recorded in another Harbor")
      (env.connections.get("HarborConnection/harbor") as { url: string }).url = TWO;
    env.two.add("a", "two's"); // the same name in the other Harbor: never touched
    env.delete("a");
    const out = await env.reconcile("a");
    expect(out.error).toBeUndefined();
    expect(out.result).toEqual({});
    expect(out.calls).toEqual([...row.calls, "kube finalizers []"]);
    expect(out.events).toEqual(row.event ? [row.event] : []);
    expect(env.exists("a")).toBe(false);
    expect(env.one.byName("a") !== undefined).toBe(row.remains);
    expect(env.one.byName("victim")?.value).toBe("theirs");
    expect(env.two.byName("a")?.value).toBe("two's");
  });

  test("an object Harbor keeps by design (a built-in): the resource goes as with Orphan, the Event says why", async () => {
    const env = setup();
    await env.ready("builtin");
    env.one.builtIn.add("builtin");
    env.delete("builtin");
    const out = await env.reconcile("builtin");
    expect(out.calls).toEqual(["one observe #1", "one delete #1", "kube finalizers []"]);
    expect(out.events).toEqual(["Normal Orphaned"]);
    expect(out.messages).toEqual(['Left "builtin": Harbor lets nobody delete it']);
    expect(env.exists("builtin")).toBe(false);
    expect(env.one.byName("builtin")).toBeDefined();
  });

  test("without the finalizer nothing is done", async () => {
    const env = setup();
    env.apply("a", {}, { finalizers: ["someone.else/finalizer"] });
    env.delete("a");
    const out = await env.reconcile("a");
    expect(out.calls).toEqual([]);
    expect(out.result).toEqual({});
  });

  test("a blocked deletion keeps the finalizer, says Harbor's reason once, and looks again less often, up to 5 min", async () => {
    const env = setup();
    await env.ready("busy");
    env.one.blocked.set("busy", "the project contains repositories");
    env.delete("busy");
    const waits: Array<number | undefined> = [];
    const events: string[] = [];
    for (let i = 0; i < 8; i++) {
      const out = await env.reconcile("busy");
      waits.push(out.result?.requeueAfterMs);
      events.push(...out.events);
      env.clock.advance(out.result?.requeueAfterMs ?? 0);
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(events).toEqual(["Warning DeletionBlocked"]);
    expect(env.condition("busy", "Ready")).toMatchObject({
      status: "False",
      reason: "DeletionBlocked",
      message: "the project contains repositories",
    });
    expect(env.get("busy").metadata.finalizers).toEqual([FINALIZER]);

    env.one.blocked.delete("busy");
    const out = await env.reconcile("busy");
    expect(out.events).toEqual(["log Deleted"]);
    expect(env.exists("busy")).toBe(false);
    expect(env.one.items.size).toBe(0);
  });

  test("what Harbor removed with the object is an Event; what every delete of the kind does is a log line", async () => {
    const env = setup();
    await env.ready("label");
    await env.ready("policy");
    env.one.deleteNotes.set("label", { note: "Harbor also removed it from every artifact" });
    env.one.deleteNotes.set("policy", { note: "Harbor keeps the record", routine: true });
    env.delete("label");
    env.delete("policy");
    const label = await env.reconcile("label");
    expect(label.events).toEqual(["Normal Deleted"]);
    expect(label.messages).toEqual(['Deleted Thing "label"; Harbor also removed it from every artifact']);
    const policy = await env.reconcile("policy");
    expect(policy.events).toEqual(["log Deleted"]);
    expect(policy.messages).toEqual(['Deleted Thing "policy"; Harbor keeps the record']);
  });

  test("a deletion that waits on its connection says 'deletion pending' and how to let it go; Orphan lets it go", async () => {
    const env = setup();
    await env.ready("a");
    (env.connections.get("HarborConnection/harbor") as { state: string }).state = "down";
    env.delete("a");
    const out = await env.reconcile("a");
    expect(out.result?.requeueAfterMs).toBeGreaterThan(0);
    const ready = env.condition("a", "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "ConnectionNotReady" });
    expect(ready?.message).toMatch(/^deletion pending: HarborConnection "harbor" is not Ready/);
    expect(ready?.message).toContain("set spec.deletionPolicy: Orphan");
    expect(env.get("a").metadata.finalizers).toEqual([FINALIZER]);

    env.apply("a", { deletionPolicy: "Orphan" });
    const orphaned = await env.reconcile("a");
    expect(orphaned.events).toEqual(["Normal Orphaned"]);
    expect(env.exists("a")).toBe(false);
    expect(env.one.byName("a")).toBeDefined();
  });

  test("a reference gone before anything was created lets the resource go; with an id recorded it waits", async () => {
    const env = setup();
    // Never created: the finalizer only (an interrupted first reconcile), its dependency gone.
    env.apply("never", { needs: "project" }, { finalizers: [FINALIZER] });
    env.delete("never");
    const out = await env.reconcile("never");
    expect(out.calls).toEqual(["kube finalizers []"]);
    expect(env.exists("never")).toBe(false);

    env.dependencies.add("project");
    await env.ready("made", { needs: "project" });
    env.dependencies.delete("project");
    env.delete("made");
    await env.reconcile("made");
    expect(env.condition("made", "Ready")?.message).toMatch(/^deletion pending: HarborDependency "project"/);
    expect(env.exists("made")).toBe(true);
  });
});

describe("ids are bound to their Harbor", () => {
  test("moving to another Harbor: looked up there by name, the old id never used, the move recorded before the create", async () => {
    const env = setup();
    await env.ready("a");
    const unrelated = env.two.add("unrelated", "theirs"); // id 1 in Harbor two as well
    env.apply("a", { connectionRef: { name: "other" } });
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(['two observe "a"', "kube status", 'two create "a"', "kube status"]);
    expect(out.statusWrites[0]).toEqual({ harborId: null, harborUrl: TWO });
    expect(out.events).toEqual(["Normal HarborChanged", "log Created"]);
    expect(out.messages[0]).toContain(`id 1 in ${ONE} is left as it is`);
    expect(env.get("a").status).toMatchObject({ harborId: 2, harborUrl: TWO });
    expect(env.two.items.get(unrelated.id)?.value).toBe("theirs");
    expect(env.one.byName("a")?.id).toBe(1);
  });

  test("a connection whose URL changes finds a same-named object there and leaves it (Create)", async () => {
    const env = setup();
    await env.ready("a");
    env.two.add("a", "two's");
    (env.connections.get("HarborConnection/harbor") as { url: string }).url = TWO;
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(out.events).toEqual(["Normal HarborChanged", "Warning AlreadyExists"]);
    expect(env.condition("a", "Ready")?.message).toContain(`already exists in Harbor ${TWO}`);
    expect(harborWrites(out.calls)).toEqual([]);
    expect(env.two.byName("a")?.value).toBe("two's");
  });

  test("an id that now names another object is never updated: HarborIdReused, looked up by name", async () => {
    const env = setup();
    await env.ready("owner");
    const victim = env.one.add("victim", "theirs");
    env.setStatus("owner", { harborId: victim.id }); // as after a restore from a backup
    env.apply("owner", { value: "v2" });
    const out = await env.reconcile("owner");
    expect(out.calls).toEqual([`one observe #${victim.id}`, 'one observe "owner"', "kube status"]);
    expect(out.events).toEqual(["Warning HarborIdReused", "Warning AlreadyExists"]);
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(env.one.items.get(victim.id)?.value).toBe("theirs");
  });

  test("an id that now names another object, and ours is gone: created again by name, the id cleared first", async () => {
    const env = setup();
    await env.ready("owner");
    env.one.items.delete(1);
    const victim = env.one.add("victim", "theirs");
    env.setStatus("owner", { harborId: victim.id });
    const out = await env.reconcile("owner");
    expect(out.calls).toEqual([
      `one observe #${victim.id}`,
      'one observe "owner"',
      "kube status",
      'one create "owner"',
      "kube status",
    ]);
    expect(out.statusWrites[0]).toEqual({ harborId: null, harborUrl: ONE });
    expect(env.get("owner").status?.harborId).toBe(3);
    expect(env.one.items.get(victim.id)?.value).toBe("theirs");
  });
});

describe("waits", () => {
  test("a quiet wait (a connection not checked yet) writes nothing and looks again soon", async () => {
    const env = setup();
    await env.ready("a");
    (env.connections.get("HarborConnection/harbor") as { state: string }).state = "unchecked";
    const out = await env.reconcile("a");
    expect(out).toMatchObject({ calls: [], events: [], result: { requeueAfterMs: 2_000 } });
    expect(env.condition("a", "Ready")?.status).toBe("True");
  });

  test("a wait is reported, retried, Stalled past the timeout while still retried, and recovers by itself", async () => {
    const env = setup();
    await env.ready("a");
    (env.connections.get("HarborConnection/harbor") as { state: string }).state = "down";
    env.apply("a", { value: "v2" });
    const first = await env.reconcile("a");
    expect(first.result).toEqual({ requeueAfterMs: 15_000 });
    expect(first.events).toEqual(["Warning ConnectionNotReady"]);
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "ConnectionNotReady" });
    expect(env.condition("a", "Stalled")).toBeUndefined();

    env.clock.advance(110_000);
    const later = await env.reconcile("a");
    expect(later).toMatchObject({ calls: [], events: [], result: { requeueAfterMs: 10_000 } });

    env.clock.advance(10_000);
    const timedOut = await env.reconcile("a");
    expect(timedOut.error).toBeUndefined(); // retried, not terminal
    expect(timedOut.result).toEqual({ requeueAfterMs: 60_000 });
    expect(env.condition("a", "Stalled")).toMatchObject({ status: "True", reason: "ConnectionNotReady" });
    expect(env.condition("a", "Ready")?.message).toContain("(waiting for 120 s)");

    (env.connections.get("HarborConnection/harbor") as { state: string }).state = "ready";
    const recovered = await env.reconcile("a");
    expect(recovered.calls).toEqual(["one observe #1", "one update #1 value", "kube status"]);
    expect(env.condition("a", "Ready")?.status).toBe("True");
    expect(env.condition("a", "Stalled")).toBeUndefined();
    expect(env.condition("a", "Reconciling")).toBeUndefined();
  });

  test("a new resource waits on another quietly for a moment, then says so without a Warning", async () => {
    const env = setup();
    env.apply("robot", { needs: "project" });
    const early = await env.reconcile("robot");
    expect(early).toMatchObject({ calls: [], events: [], result: { requeueAfterMs: 2_000 } });

    env.clock.advance(10_000);
    const shown = await env.reconcile("robot");
    expect(shown.calls).toEqual(["kube status"]);
    expect(shown.events).toEqual([]); // ordinary orchestration
    expect(env.condition("robot", "Ready")).toMatchObject({ status: "False", reason: DEPENDENCY_NOT_READY });

    env.clock.advance(120_000);
    await env.reconcile("robot");
    expect(env.condition("robot", "Stalled")?.message).toContain('HarborDependency "project"');

    env.dependencies.add("project");
    const ready = await env.reconcile("robot");
    expect(ready.events).toEqual(["log Created"]);
    expect(env.condition("robot", "Stalled")).toBeUndefined();
  });

  test("a Ready resource whose dependency goes waits quietly for a moment, then says so", async () => {
    const env = setup();
    env.dependencies.add("project");
    await env.ready("robot", { needs: "project" });
    env.dependencies.delete("project");
    const early = await env.reconcile("robot");
    expect(early).toMatchObject({ calls: [], events: [], result: { requeueAfterMs: 2_000 } });
    expect(env.condition("robot", "Ready")?.status).toBe("True");

    env.clock.advance(9_000);
    expect((await env.reconcile("robot")).calls).toEqual([]);
    env.clock.advance(1_000);
    const shown = await env.reconcile("robot");
    expect(shown.calls).toEqual(["kube status"]);
    expect(env.condition("robot", "Ready")).toMatchObject({ status: "False", reason: DEPENDENCY_NOT_READY });

    // Back, and gone again later: a new wait, quiet again for its first moment.
    env.dependencies.add("project");
    await env.reconcile("robot");
    expect(env.condition("robot", "Ready")?.status).toBe("True");
    env.clock.advance(60_000);
    env.dependencies.delete("project");
    expect((await env.reconcile("robot")).calls).toEqual([]);
  });

  test("a resource queued by its dependency's deletion just before its own writes no status: deleted as usual", async () => {
    const env = setup();
    env.dependencies.add("project");
    await env.ready("robot", { needs: "project" });
    env.dependencies.delete("project"); // the project is being deleted; the robot's deletion is on its way
    const queued = await env.reconcile("robot");
    expect(queued).toMatchObject({ calls: [], events: [] });
    env.dependencies.add("project"); // still resolvable by its recorded id, as a deleting project is
    env.delete("robot");
    const out = await env.reconcile("robot");
    expect(out.calls).toEqual(["one observe #1", "one delete #1", "kube finalizers []"]);
    expect(out.events).toEqual(["log Deleted"]);
    expect(env.exists("robot")).toBe(false);
  });

  test("Harbor matches but the kind's delivery waits: Ready=False, Synced=True, Stalled past the timeout", async () => {
    const env = setup({
      afterSync: () => ({
        notReady: { reason: "SecretCopyRefused", message: "a copy is refused in ns apps" },
      }),
    });
    env.apply("a");
    const out = await env.reconcile("a");
    expect(out.result).toEqual({ requeueAfterMs: 15_000 });
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "SecretCopyRefused" });
    expect(env.condition("a", "Synced")?.status).toBe("True");
    expect(env.get("a").status?.harborId).toBe(1);
    env.clock.advance(120_000);
    const late = await env.reconcile("a");
    expect(late.result).toEqual({ requeueAfterMs: 60_000 });
    expect(env.condition("a", "Stalled")?.status).toBe("True");
  });
});

describe("what no retry can fix", () => {
  test("a spec the operator cannot use: InvalidSpec, Stalled, nothing in Harbor", async () => {
    const env = setup();
    env.apply("a", { value: 5 as unknown as string });
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(out.calls).toEqual(["kube status"]);
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(env.condition("a", "Ready")?.message).toContain("spec.value");
    expect(env.condition("a", "Stalled")?.status).toBe("True");
  });

  test("a name Harbor would refuse stalls before any Harbor call, naming the field", async () => {
    const env = setup();
    env.apply("a", { name: "Not_Valid" });
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(out.calls).toEqual(["kube status"]);
    expect(env.condition("a", "Ready")).toMatchObject({ reason: "InvalidSpec" });
    expect(env.condition("a", "Ready")?.message).toMatch(/^spec\.name must be lower case; set spec\.name/);
  });

  test("an invalid spec on a resource being deleted lets it go without touching Harbor", async () => {
    const env = setup();
    await env.ready("a");
    env.apply("a", { value: 5 as unknown as string });
    env.delete("a");
    const out = await env.reconcile("a");
    expect(out.calls).toEqual(["kube finalizers []"]);
    expect(env.exists("a")).toBe(false);
    expect(env.one.byName("a")).toBeDefined();
  });

  test("Harbor rejecting the request stalls the resource with Harbor's words", async () => {
    const env = setup();
    env.apply("a");
    env.harborFails.set("create", new FakeHarborError("HarborRejected", "Harbor rejected: bad value", true));
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(env.condition("a", "Ready")).toMatchObject({
      reason: "HarborRejected",
      message: "Harbor rejected: bad value",
    });
    expect(env.condition("a", "Stalled")?.status).toBe("True");
  });
});

describe("failures that a retry fixes", () => {
  test("Harbor's Retry-After reaches the controller as a RetryAfter, after the condition says why", async () => {
    const env = setup();
    await env.ready("a");
    const busy = new FakeHarborError(
      "HarborUnavailable",
      "Harbor is unavailable (429); retrying",
      false,
      120_000,
    );
    env.harborFails.set("observe", busy);
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(RetryAfter);
    expect(out.error).toMatchObject({ retryAfterMs: 120_000, cause: busy });
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "HarborUnavailable" });
    expect(out.events).toEqual(["Warning HarborUnavailable"]);
  });

  test("a classified failure without Retry-After is a plain error for the backoff", async () => {
    const env = setup();
    env.apply("a");
    env.harborFails.set("observe", new FakeHarborError("HarborUnavailable", "Harbor is unavailable (503)"));
    const out = await env.reconcile("a");
    expect(out.error).toBeInstanceOf(Error);
    expect(out.error).not.toBeInstanceOf(RetryAfter);
    expect(out.error).not.toBeInstanceOf(TerminalError);
  });

  test("an unknown failure is reported as Error and rethrown as it is", async () => {
    const env = setup();
    env.apply("a");
    const boom = new Error("boom");
    env.harborFails.set("observe", boom);
    const out = await env.reconcile("a");
    expect(out.error).toBe(boom);
    expect(env.condition("a", "Ready")).toMatchObject({ status: "False", reason: "Error", message: "boom" });
  });

  test("a resource that is gone is done", async () => {
    const env = setup();
    expect(await env.reconcile("nobody")).toMatchObject({ result: {}, calls: [] });
  });
});
