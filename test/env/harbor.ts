// Test fixture: an in-process Harbor emulator per test file and Harbor clients pointed at it, and
// what tests of the Harbor client share: requests on the wire, the errors they end in, test users,
// robot requests.
import { afterAll, beforeAll, expect } from "vitest";
import { HarborClient, type HarborClientOptions } from "../../src/harbor/client.ts";
import { EndpointRegistry } from "../../src/harbor/endpoints.ts";
import { HarborError } from "../../src/harbor/errors.ts";
import type { RobotCreate, RobotPermissionInput } from "../../src/harbor/robots.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "./emulator/index.ts";
import { testHarborVersion } from "./harbor-version.ts";

export interface EmulatorFixture {
  readonly emulator: Emulator;
  /** A client logged in as the emulator's admin. */
  readonly admin: HarborClient;
  /** A client with other credentials or options, closed with the fixture. */
  client(options?: Partial<HarborClientOptions>): HarborClient;
  /**
   * A request to `/api/v2.0` past the client, to see Harbor's wire form: as the admin unless `as`
   * says otherwise (other credentials, or "anonymous" for none); a body is sent as JSON.
   */
  api(path: string, init?: RequestInit & { as?: Login | "anonymous" }): Promise<Response>;
  /** The same, answered as status, headers and the body's text. */
  raw(
    method: string,
    path: string,
    body?: unknown,
    init?: Parameters<EmulatorFixture["api"]>[1],
  ): Promise<RawReply>;
  /**
   * A Harbor user without system access, added to the emulator: `Name12345` is the password
   * unless one is given. The result is what `client()` and `api(…, { as })` take.
   */
  addUser(username: string, password?: string): Login;
}

/** Basic-auth credentials of a user or robot. */
export interface Login {
  username: string;
  password: string;
}

/** The Authorization header of a basic-auth login. */
export const basicAuth = (username: string, password: string): { authorization: string } => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
});

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

/** What a call that must fail rejected with; the test fails when it succeeded or threw another type. */
export async function rejectionOf<E extends Error>(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const e = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, "the call was expected to fail").toBeInstanceOf(type);
  return e as E;
}

/** The HarborError of a client call that must fail. */
export const harborFailure = (call: Promise<unknown>): Promise<HarborError> => rejectionOf(call, HarborError);

/** How Harbor answers with each error status, and the kind of HarborError the client makes of it. */
const HARBOR_ERRORS = {
  400: { kind: "invalid", code: "BAD_REQUEST" },
  401: { kind: "unauthorized", code: "UNAUTHORIZED" },
  403: { kind: "forbidden", code: "FORBIDDEN" },
  404: { kind: "notFound", code: "NOT_FOUND" },
  409: { kind: "conflict", code: "CONFLICT" },
  412: { kind: "precondition", code: "PRECONDITION" },
  422: { kind: "invalid", code: "UNPROCESSABLE_ENTITY" },
  500: { kind: "server", code: "UNKNOWN" },
} as const;

/**
 * The HarborError of Harbor's answer with this status and message, for `toMatchObject`: its kind,
 * the status, Harbor's error code and message.
 */
export const harborError = (status: keyof typeof HARBOR_ERRORS, harborMessage: string) => ({
  ...HARBOR_ERRORS[status],
  status,
  harborMessage,
});

/** The first entry of Harbor's error envelope `{"errors": [{code, message}]}`. */
export async function firstError(res: Response): Promise<{ code: string; message: string }> {
  return ((await res.json()) as { errors: Array<{ code: string; message: string }> }).errors[0] as {
    code: string;
    message: string;
  };
}

/**
 * The one entry of Harbor's error envelope, checking its wire form on the way: JSON with a charset,
 * a trailing newline (Go's encoder), exactly one error.
 */
export async function onlyError(res: Response): Promise<{ code: string; message: string }> {
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  const text = await res.text();
  expect(text.endsWith("\n")).toBe(true);
  const body = JSON.parse(text) as { errors: Array<{ code: string; message: string }> };
  expect(body.errors).toHaveLength(1);
  return body.errors[0] as { code: string; message: string };
}

/** The request to create a project-level robot with these permissions in one project. */
export const projectRobot = (
  name: string,
  project: string,
  access: RobotPermissionInput["access"],
  duration = -1,
): RobotCreate => ({
  name,
  level: "project",
  duration,
  permissions: [{ kind: "project", namespace: project, access }],
});

/** The request to create a system-level robot with these system permissions. */
export const systemRobot = (
  name: string,
  access: RobotPermissionInput["access"],
  duration = 30,
): RobotCreate => ({
  name,
  level: "system",
  duration,
  permissions: [{ kind: "system", namespace: "/", access }],
});

/**
 * An emulator for the file (or the describe block it is called in), started before its tests and
 * closed after them, of the release `options.harborVersion` names or else the tests' release
 * (harbor-version.ts).
 */
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
      const login = as ?? { username: adminUsername, password: adminPassword };
      return fetch(`${url}/api/v2.0${path}`, {
        ...init,
        headers: {
          ...(login === "anonymous" ? {} : basicAuth(login.username, login.password)),
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
    addUser(username, password = `${username[0]?.toUpperCase()}${username.slice(1)}12345`) {
      fixture.emulator.control.users.add({ username, password });
      return { username, password };
    },
  };

  beforeAll(async () => {
    emulator = await startEmulator({
      ...options,
      harborVersion: options.harborVersion ?? testHarborVersion(),
    });
    admin = fixture.client();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.close();
  });
  return fixture;
}
