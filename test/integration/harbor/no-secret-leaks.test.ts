// A run with known credentials — a password, robot secrets, a registry secret, an LDAP password, a
// webhook auth header, a scanner credential — that succeeds and fails in every way the client can: none of those values,
// nor the Authorization header, may appear in any log line or in any error, however it is printed.
import { inspect } from "node:util";
import pino from "pino";
import { afterAll, describe, expect, test } from "vitest";
import { HarborClient } from "../../../src/harbor/client.ts";
import { EndpointRegistry } from "../../../src/harbor/endpoints.ts";
import { useEmulator } from "../../env/harbor.ts";

const PASSWORD = "Adm1n-Very-Secret-Passw0rd";
// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
// 2.12.4 still answers scanner and preheat credentials (2.14.4 stops): the client then holds them in
// answers too, the harder case for keeping them out of logs.
const h = useEmulator({ adminPassword: PASSWORD, loginFreezeMs: 0, harborVersion: "2.12.4" });
const logged: string[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => logged.push(line) });
const endpoints = new EndpointRegistry();
const clients: HarborClient[] = [];
afterAll(() => Promise.all(clients.map((c) => c.close())));

function client(password = PASSWORD): HarborClient {
  const c = new HarborClient({
    url: h.emulator.url,
    username: "admin",
    password,
    logger,
    endpoints,
    maxRetries: 1,
  });
  clients.push(c);
  return c;
}

/** Every way an error could end up in front of someone. */
function renderings(e: unknown): string[] {
  const err = e as Error;
  return [
    String(err),
    err.message,
    err.stack ?? "",
    JSON.stringify(err),
    inspect(err, { depth: 5 }),
    JSON.stringify(err.cause ?? null),
  ];
}

describe("secrets never leak", () => {
  test("logs and errors of a varied run contain no credential", async () => {
    const admin = client();
    const secrets = [PASSWORD, Buffer.from(`admin:${PASSWORD}`).toString("base64")];
    const errors: unknown[] = [];
    const attempt = async (f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (e) {
        errors.push(e);
      }
    };

    // A robot and its secrets: the created one, a generated refresh, and a chosen one.
    const projectId = await admin.projects.create({ project_name: "leaks" });
    const robot = await admin.robots.create({
      name: "ci",
      level: "project",
      duration: 30,
      permissions: [
        { kind: "project", namespace: "leaks", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    secrets.push(robot.secret as string);
    const refreshed = await admin.robots.refreshSecret(robot.id as number);
    secrets.push(refreshed.secret as string);
    const chosen = "Chosen-Robot-Secret-42";
    secrets.push(chosen);
    await admin.robots.refreshSecret(robot.id as number, chosen);
    await attempt(() => admin.robots.refreshSecret(robot.id as number, "weak-but-secret-value")); // 400
    secrets.push("weak-but-secret-value");

    // A registry with credentials, on a healthy and an unhealthy URL.
    const registrySecret = "registry-access-secret-value";
    secrets.push(registrySecret);
    const registry = {
      type: "docker-hub",
      credential: { type: "basic" as const, access_key: "key", access_secret: registrySecret },
    };
    await admin.registries.create({ name: "hub", url: "https://hub.example.com", ...registry });
    h.emulator.control.registries.setHealth("https://down.example.com", false);
    await attempt(() =>
      admin.registries.create({ name: "down", url: "https://down.example.com", ...registry }),
    );

    // An LDAP ping with a search password, and a webhook with an auth header.
    const ldapPassword = "ldap-search-password-value";
    secrets.push(ldapPassword);
    await attempt(() =>
      admin.ldap.ping({ ldap_url: "ldap://ldap.example.com", ldap_search_password: ldapPassword }),
    );
    const authHeader = "Bearer webhook-auth-header-value";
    secrets.push(authHeader);
    await admin.webhooks.createPolicy(projectId, {
      name: "hook",
      enabled: true,
      event_types: ["PUSH_ARTIFACT"],
      targets: [{ type: "http", address: "http://127.0.0.1:9/hook", auth_header: authHeader }],
    });

    // A scanner registration with a credential, on an adapter that answers, one that does not (a
    // 500 from Harbor), and its ping; the registration as Harbor 2.12 shows it (with the credential).
    const scannerCredential = "scanner-access-credential-value";
    secrets.push(scannerCredential);
    h.emulator.control.scanners.addAdapter("http://adapter.example.com");
    const scanner = await admin.scanners.create({
      name: "scan",
      url: "http://adapter.example.com",
      auth: "Bearer",
      access_credential: scannerCredential,
    });
    expect((await admin.scanners.get(scanner)).access_credential).toBe(scannerCredential);
    const unreachable = {
      url: "http://nowhere.example.com",
      auth: "Bearer" as const,
      access_credential: scannerCredential,
    };
    await attempt(() => admin.scanners.create({ name: "nowhere", ...unreachable }));
    await attempt(() => admin.scanners.ping({ name: "nowhere", ...unreachable }));

    // Failures of every kind: not found, conflict, invalid, unauthorized, server errors with
    // retries, dropped connections, a timeout.
    await attempt(() => admin.projects.get(999_999));
    await attempt(() => admin.projects.create({ project_name: "leaks" }));
    await attempt(() => admin.projects.create({ project_name: "Bad Name" }));
    await attempt(() => client("wrong-password-value").projects.create({ project_name: "x" }));
    secrets.push("wrong-password-value");
    h.emulator.control.faults.add({ op: "listProjects", status: 503, times: 2 });
    await attempt(() => admin.projects.list());
    h.emulator.control.faults.add({ op: "getProject", drop: true, times: 2 });
    await attempt(() => admin.projects.get("leaks"));
    h.emulator.control.faults.add({ op: "getRobotByID", latencyMs: 300, times: 2 });
    await attempt(() => admin.robots.get(robot.id as number, { timeoutMs: 50 }));

    expect(errors.length).toBeGreaterThanOrEqual(8);
    expect(logged.length).toBeGreaterThan(10);
    const everything = [...logged, ...errors.flatMap(renderings)].join("\n");
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything.toLowerCase()).not.toContain("authorization: basic");
  });
});
