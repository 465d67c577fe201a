// Test fixture: an in-process Harbor emulator per test file and Harbor clients pointed at it.
import { afterAll, beforeAll } from "vitest";
import { HarborClient, type HarborClientOptions } from "../../src/harbor/client.ts";
import type { HarborError } from "../../src/harbor/errors.ts";
import { EndpointRegistry } from "../../src/harbor/transport.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "./emulator/index.ts";

export interface EmulatorFixture {
  readonly emulator: Emulator;
  /** A client logged in as the emulator's admin. */
  readonly admin: HarborClient;
  /** A client with other credentials or options, closed with the fixture. */
  client(options?: Partial<HarborClientOptions>): HarborClient;
  /**
   * A request to `/api/v2.0` past the client, to see Harbor's wire form: as the admin unless `as`
   * says otherwise; a body is sent as JSON.
   */
  api(path: string, init?: RequestInit & { as?: { user: string; password: string } }): Promise<Response>;
  /** The same, answered as status, headers and the body's text. */
  raw(
    method: string,
    path: string,
    body?: unknown,
    init?: Parameters<EmulatorFixture["api"]>[1],
  ): Promise<RawReply>;
}

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
}

/** The HarborError a client call rejected with, or undefined when it succeeded. */
export const harborErrorOf = (call: Promise<unknown>): Promise<HarborError | undefined> =>
  call.then(
    () => undefined,
    (e: unknown) => e as HarborError,
  );

/** The first entry of Harbor's error envelope `{"errors": [{code, message}]}`. */
export async function firstError(res: Response): Promise<{ code: string; message: string }> {
  return ((await res.json()) as { errors: Array<{ code: string; message: string }> }).errors[0] as {
    code: string;
    message: string;
  };
}

export function useEmulator(options: EmulatorOptions = {}): EmulatorFixture {
  let emulator: Emulator | undefined;
  let admin: HarborClient | undefined;
  const clients: HarborClient[] = [];
  // A registry per file so limits and pools of one file never leak into another.
  const endpoints = new EndpointRegistry();

  const fixture: EmulatorFixture = {
    get emulator() {
      if (!emulator) throw new Error("emulator not started: use the fixture inside tests");
      return emulator;
    },
    get admin() {
      if (!admin) throw new Error("emulator not started: use the fixture inside tests");
      return admin;
    },
    client(o = {}) {
      const c = new HarborClient({
        url: fixture.emulator.url,
        username: fixture.emulator.adminUsername,
        password: fixture.emulator.adminPassword,
        endpoints,
        requestsPerSecond: 1000,
        burst: 1000,
        ...o,
      });
      clients.push(c);
      return c;
    },
    api(path, { as, ...init } = {}) {
      const { adminUsername, adminPassword, url } = fixture.emulator;
      const basic = Buffer.from(`${as?.user ?? adminUsername}:${as?.password ?? adminPassword}`);
      return fetch(`${url}/api/v2.0${path}`, {
        ...init,
        headers: {
          authorization: `Basic ${basic.toString("base64")}`,
          ...(init.body ? { "content-type": "application/json" } : {}),
          ...init.headers,
        },
      });
    },
    async raw(method, path, body, init = {}) {
      const res = await fixture.api(path, {
        ...init,
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
  };

  beforeAll(async () => {
    emulator = await startEmulator(options);
    admin = fixture.client();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.close();
  });
  return fixture;
}
