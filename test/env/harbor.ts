// Test fixture: an in-process Harbor emulator per test file and Harbor clients pointed at it.
import { afterAll, beforeAll } from "vitest";
import { HarborClient, type HarborClientOptions } from "../../src/harbor/client.ts";
import { EndpointRegistry } from "../../src/harbor/transport.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "./emulator/index.ts";

export interface EmulatorFixture {
  readonly emulator: Emulator;
  /** A client logged in as the emulator's admin. */
  readonly admin: HarborClient;
  /** A client with other credentials or options, closed with the fixture. */
  client(options?: Partial<HarborClientOptions>): HarborClient;
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
