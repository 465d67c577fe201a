// The control API: how tests, the demo and the benchmark drive the simulated world and read the
// emulator's counters. In process it is a plain object; over HTTP every method is
// POST /_emulator/<area>/<method> with the arguments as a JSON array, answered with {"result": …}.

import { areas } from "./areas/index.ts";
import { ROLES, type RoleName } from "./auth.ts";
import type { Counters, FaultRule, Faults } from "./faults.ts";
import type { World } from "./world.ts";

export const CONTROL_PREFIX = "/_emulator";

export function buildControl(world: World, faults: Faults, counters: Counters) {
  return {
    faults: {
      add: (rule: FaultRule): number => faults.add(rule),
      remove: (id: number): void => faults.remove(id),
      clear: (): void => faults.clear(),
      list: (): FaultRule[] => faults.list(),
      /** Latency added to every API request. */
      setBaseLatency: (ms: number): void => {
        faults.baseLatencyMs = ms;
      },
    },
    counters: {
      list: () => counters.list(),
      total: (filter?: { op?: string; method?: string; status?: number }) => counters.total(filter),
      writes: (): number => counters.writes(),
      reset: (): void => counters.reset(),
    },
    clock: {
      now: (): number => world.now(),
      advance: (ms: number): void => world.clock.advance(ms),
      /** The world's time moves only by advance() until resume(). */
      freeze: (): void => world.clock.freeze(),
      resume: (): void => world.clock.resume(),
    },
    users: {
      ...areas.users.control(world),
      add: (u: { username: string; password: string; sysadmin?: boolean }) => {
        const rec = world.identities.add(u);
        return { user_id: rec.user_id, username: rec.username };
      },
      setPassword: (username: string, password: string): void =>
        world.identities.setPassword(username, password),
      /** Whether a failed login has locked the principal: Harbor refuses it until the freeze ends. */
      locked: (username: string): boolean => world.identities.locked(username),
      /** Makes the user a member of the project with a built-in role. */
      setMember: (project: string, username: string, role: RoleName): void => {
        const p = world.projects.byName(project);
        const u = world.identities.byName(username);
        if (!p || !u) throw new Error(`no project ${project} or user ${username}`);
        p.members.set(u.user_id, ROLES[role]);
      },
    },
    audit: {
      /** Every write the emulator recorded, whichever log of the release shows it. */
      list: () => world.audit.all(),
      ...areas.auditLogs.control(world),
    },
    labels: areas.labels.control(world),
    projects: areas.projects.control(world),
    members: areas.members.control(world),
    robots: areas.robots.control(world),
    scanners: areas.scanners.control(world),
    registries: areas.registries.control(world),
    replication: areas.replication.control(world),
    jobservice: areas.jobservice.control(world),
    ldap: areas.ldap.control(world),
    userGroups: areas.userGroups.control(world),
    gc: areas.gc.control(world),
    purge: areas.purge.control(world),
    webhooks: areas.webhooks.control(world),
    system: areas.system.control(world),
    retention: areas.retention.control(world),
    immutable: areas.immutable.control(world),
    configurations: areas.configurations.control(world),
    scanAll: areas.scanAll.control(world),
    preheat: areas.preheat.control(world),
  };
}

export type Control = ReturnType<typeof buildControl>;

/** The same API seen from another process: every method returns a promise. */
export type RemoteControl = {
  [A in keyof Control]: {
    [M in keyof Control[A]]: Control[A][M] extends (...args: infer P) => infer R
      ? (...args: P) => Promise<Awaited<R>>
      : never;
  };
};

/** Calls one control method; throws with the emulator's message when the call fails. */
export async function callControl(
  target: object,
  area: string,
  method: string,
  args: unknown[],
): Promise<unknown> {
  const ns = (target as Record<string, Record<string, unknown>>)[area];
  const fn = ns?.[method];
  if (typeof fn !== "function") throw new Error(`unknown control method ${area}.${method}`);
  return await (fn as (...a: unknown[]) => unknown).apply(ns, args);
}

/** A typed client of the HTTP control API, for tests that run in another process. */
export function remoteControl(baseUrl: string): RemoteControl {
  const root = baseUrl.replace(/\/+$/, "");
  return new Proxy({} as RemoteControl, {
    get: (_t, area: string) =>
      new Proxy(
        {},
        {
          get:
            (_t2, method: string) =>
            async (...args: unknown[]) => {
              const res = await fetch(`${root}${CONTROL_PREFIX}/${area}/${method}`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify(args),
              });
              const out = (await res.json()) as { result?: unknown; error?: string };
              if (!res.ok)
                throw new Error(out.error ?? `control call ${area}.${method} failed: ${res.status}`);
              return out.result;
            },
        },
      ),
  });
}
