// HarborConnection and ClusterHarborConnection against the real control plane and the emulator,
// with the connection controllers running in this process: Ready with Harbor's version and the
// logged-in user for good credentials; Ready=False with the reason a user can act on for a bad URL,
// bad credentials, a missing Secret, a Secret without a key and an untrusted certificate; Ready
// again by itself once the Secret is fixed; tenancy of cluster connections through the resolver.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  ClusterHarborConnections,
  type ConnectionControllers,
  Connections,
  HarborConnections,
  startConnectionControllers,
} from "../../../src/controllers/connection/index.ts";
import { EndpointRegistry } from "../../../src/harbor/endpoints.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { KubeEventRecorder } from "../../../src/kube/events.ts";
import type { ResourceType } from "../../../src/kube/types.ts";
import { NotReady } from "../../../src/runtime/external-client.ts";
import { Metrics } from "../../../src/runtime/metrics.ts";
import { budget } from "../../env/budget.ts";
import { adminKubectl, sharedControlPlane, useNamespace } from "../../env/cluster.ts";
import { useEmulator } from "../../env/harbor.ts";
import {
  type ConnectionCR as Connection,
  clusterConnection,
  connection as connectionOf,
  credentials,
  eventsOf,
  ready as readyOf,
  secret,
} from "../../env/resources.ts";

const h = useEmulator();
const ns = useNamespace("connections");
const admin = adminKubectl();

let kube: KubeClient;
let events: KubeEventRecorder;
let metrics: Metrics;
let running: ConnectionControllers;
const changes: string[] = [];
const clusterNames: string[] = [];

beforeAll(async () => {
  kube = KubeClient.fromOptions({ kubeconfig: sharedControlPlane().kubeconfigPath });
  const logger = pino({ level: process.env.LOG_LEVEL ?? "silent" });
  events = new KubeEventRecorder(kube, logger);
  metrics = new Metrics({ processMetrics: false });
  running = startConnectionControllers({
    kube,
    logger,
    events,
    metrics,
    namespaces: [ns.name],
    // As the operator run in this namespace: cluster connections read Secrets from here only.
    clusterResourceNamespace: ns.name,
    workers: 2,
    driftIntervalMs: 60_000,
    // Fast enough for tests; the defaults are 2 s doubling to 30 s.
    retryBaseMs: 200,
    retryMaxMs: 1_000,
    probeDeadlineMs: 5_000,
    callTimeoutMs: 3_000,
    clientDefaults: { maxRetries: 1 },
    endpoints: new EndpointRegistry(),
  });
  running.connections.onChange((key) => changes.push(key));
  await running.waitForSync(AbortSignal.timeout(budget.operatorMs));
});

afterAll(async () => {
  // Cluster-scoped, so no namespace deletion takes them: deleted while the controllers that hold
  // their finalizer still run, so that no other test's operator finds them.
  for (const name of clusterNames) await admin.delete("clusterharborconnection", name, { wait: true });
  await running?.stop();
  await events?.flush();
  kube?.close();
});

// -------------------------------------------------------------------------------------------
// helpers

/** A connection to the file's emulator with its credentials in Secret `<name>-creds`. */
const connection = (name: string, spec: Parameters<typeof connectionOf>[3] = {}) =>
  connectionOf(name, h.emulator.url, `${name}-creds`, spec);

const adminCreds = () => ({ username: "admin", password: h.emulator.adminPassword });

/** Polls the object until `ready` holds; fails with the last status seen. */
async function waitFor(
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  ready: (c: Connection) => boolean,
  timeoutMs = budget.operatorMs,
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  let last: Connection | undefined;
  while (Date.now() < deadline) {
    last = await kube.find<Connection & { metadata: { name: string } }>(type, namespace, name);
    if (last && ready(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${type.kind} ${name} did not reach the expected state; last status: ${JSON.stringify(last?.status)}`,
  );
}

const hasReady = (status: string, reason: string) => (c: Connection) => {
  const r = readyOf(c);
  return (
    r?.status === status && r.reason === reason && c.status?.observedGeneration === c.metadata.generation
  );
};

async function resolveError(
  namespace: string,
  ref: { kind: "HarborConnection" | "ClusterHarborConnection"; name: string },
) {
  try {
    await running.connections.resolve(namespace, ref);
  } catch (e) {
    if (e instanceof NotReady) return e;
    throw e;
  }
  throw new Error("expected resolve() to refuse");
}

/** A port where nothing listens: bound once, then released. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// -------------------------------------------------------------------------------------------

describe("HarborConnection", () => {
  test("good credentials: Ready with Harbor's version and the user; resolvable; printer columns", async () => {
    await ns.kubectl.apply([credentials("good-creds", adminCreds()), connection("good", {})]);
    const c = await waitFor(HarborConnections, ns.name, "good", hasReady("True", "Connected"));
    // As Harbor reports it to a caller that logged in (from 2.13 only to such a caller).
    const reported = h.emulator.world.version.display;
    expect(c.status).toMatchObject({ harborVersion: reported, authenticatedAs: "admin" });
    expect(readyOf(c)?.message).toBe(
      `Harbor ${reported} at ${h.emulator.url} accepts the credentials of "admin"`,
    );
    expect(Date.parse(c.status?.lastCheckTime ?? "")).not.toBeNaN();

    const handle = await running.connections.resolve(ns.name, { kind: "HarborConnection", name: "good" });
    expect(handle).toMatchObject({
      key: `HarborConnection/${ns.name}/good`,
      url: h.emulator.url,
      registryHost: new URL(h.emulator.url).host,
      harborVersion: reported,
    });
    expect((await handle.client.system.getCurrentUser()).username).toBe("admin");
    expect(changes).toContain(`HarborConnection/${ns.name}/good`);

    // Calls are counted per connection.
    const text = await metrics.text();
    expect(text).toMatch(
      new RegExp(
        `harbor_requests_total\\{connection="HarborConnection/${ns.name}/good",operation="getSystemInfo",method="GET",code="200"\\} [1-9]`,
      ),
    );

    const table = await ns.kubectl.run(["get", "harborconnections"]);
    expect(table).toMatch(/^NAME\s+READY\s+REASON\s+URL\s+VERSION\s+AGE$/m);
    expect(table).toMatch(
      new RegExp(`^good\\s+True\\s+Connected\\s+\\S+\\s+${reported.replaceAll(".", "\\.")}\\s+`, "m"),
    );

    await events.flush();
    expect(await eventsOf(ns.kubectl, "good")).toContainEqual(
      expect.objectContaining({ type: "Normal", reason: "Connected" }),
    );
  });

  test("a check that finds nothing new does not write the status again", async () => {
    await ns.kubectl.apply([credentials("steady-creds", adminCreds()), connection("steady", {})]);
    const before = await waitFor(HarborConnections, ns.name, "steady", hasReady("True", "Connected"));
    const calls = h.emulator.counters.total({ op: "getCurrentUserInfo" });
    const controller = running.controllers.find((x) => x.name === "harborconnection");
    // One guard for the three checks; the assertion below tells if they did not all come.
    const deadline = Date.now() + budget.operatorMs;
    for (let i = 0; i < 3; i++) {
      controller?.enqueue(`${ns.name}/steady`);
      const target = calls + i + 1;
      while (h.emulator.counters.total({ op: "getCurrentUserInfo" }) < target && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // Spread the checks over more than a second, the resolution of lastCheckTime.
      await new Promise((r) => setTimeout(r, 600));
    }
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo" })).toBeGreaterThanOrEqual(calls + 3);
    await new Promise((r) => setTimeout(r, 300));
    const after = await kube.get<Connection & { metadata: { name: string } }>(
      HarborConnections,
      ns.name,
      "steady",
    );
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  test("nothing listens at the URL: Unreachable, and resources are told why", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await ns.kubectl.apply([credentials("nowhere-creds", adminCreds()), connection("nowhere", { url })]);
    const c = await waitFor(HarborConnections, ns.name, "nowhere", hasReady("False", "Unreachable"));
    expect(readyOf(c)?.message).toMatch(/connection refused/);
    expect(c.status?.harborVersion).toBeUndefined();
    const e = await resolveError(ns.name, { kind: "HarborConnection", name: "nowhere" });
    expect(e.reason).toBe("ConnectionNotReady");
    expect(e.message).toContain(
      `HarborConnection "nowhere" in namespace "${ns.name}" is not Ready: Unreachable`,
    );
  });

  test("bad credentials: BadCredentials without the password anywhere; fixing the Secret makes it Ready", async () => {
    await ns.kubectl.apply([
      credentials("badpw-creds", { username: "admin", password: "Not-The-Password-1" }),
      connection("badpw", {}),
    ]);
    const c = await waitFor(HarborConnections, ns.name, "badpw", hasReady("False", "BadCredentials"));
    // The Secret is named; neither of its values is shown, the username included.
    expect(readyOf(c)?.message).toContain(`Secret ${ns.name}/badpw-creds`);
    expect(readyOf(c)?.message).not.toContain("admin");
    expect(JSON.stringify(c.status)).not.toContain("Not-The-Password-1");
    // Only what systeminfo tells anyone is known: the version up to 2.12, none from 2.13.
    const anonymous = (await (await fetch(`${h.emulator.url}/api/v2.0/systeminfo`)).json()) as {
      harbor_version?: string;
    };
    expect(c.status?.harborVersion).toBe(anonymous.harbor_version);
    await events.flush();
    const ev = await eventsOf(ns.kubectl, "badpw");
    expect(ev.map((e) => e.reason)).toContain("BadCredentials");
    expect(JSON.stringify(ev)).not.toContain("Not-The-Password-1");

    await ns.kubectl.apply(credentials("badpw-creds", adminCreds()));
    await waitFor(HarborConnections, ns.name, "badpw", hasReady("True", "Connected"));
    await running.connections.resolve(ns.name, { kind: "HarborConnection", name: "badpw" });
  });

  test("a Harbor older than 2.12: UnsupportedHarborVersion with its release, and resources are told why", async () => {
    h.emulator.control.system.setVersion("v2.11.1-0a1b2c3d");
    try {
      await ns.kubectl.apply([credentials("old-creds", adminCreds()), connection("old", {})]);
      const c = await waitFor(
        HarborConnections,
        ns.name,
        "old",
        hasReady("False", "UnsupportedHarborVersion"),
      );
      expect(readyOf(c)?.message).toContain(
        "is v2.11.1-0a1b2c3d: this operator supports Harbor 2.12 to 2.15",
      );
      expect(c.status?.harborVersion).toBe("v2.11.1-0a1b2c3d");
      const e = await resolveError(ns.name, { kind: "HarborConnection", name: "old" });
      expect(e.message).toContain("is not Ready: UnsupportedHarborVersion");
    } finally {
      h.emulator.control.system.setVersion(h.emulator.world.version.display);
    }
  });

  test("a Secret reported as changed is checked at once, not after the drift interval", async () => {
    h.emulator.control.users.add({ username: "rotator", password: "Rotator-pw1" });
    await ns.kubectl.apply([
      credentials("rotating-creds", { username: "rotator", password: "Rotator-pw1" }),
      connection("rotating", {}),
    ]);
    await waitFor(HarborConnections, ns.name, "rotating", hasReady("True", "Connected"));
    await ns.kubectl.apply(credentials("rotating-creds", { username: "rotator", password: "Rotator-pw2" }));
    running.secretChanged(ns.name, "rotating-creds");
    // The drift interval is a minute: only the immediate check makes this in time. A wrong password
    // takes Harbor 1.5 s to refuse, twice (the client tries a 401 again after the login freeze).
    await waitFor(HarborConnections, ns.name, "rotating", hasReady("False", "BadCredentials"), 15_000);
    h.emulator.control.users.setPassword("rotator", "Rotator-pw2");
    await waitFor(HarborConnections, ns.name, "rotating", hasReady("True", "Connected"));
  });

  test("a missing Secret: SecretNotFound, Ready by itself once the Secret appears", async () => {
    await ns.kubectl.apply(connection("nosecret", {}));
    const c = await waitFor(HarborConnections, ns.name, "nosecret", hasReady("False", "SecretNotFound"));
    expect(readyOf(c)?.message).toBe(`Secret ${ns.name}/nosecret-creds does not exist`);
    await ns.kubectl.apply(credentials("nosecret-creds", adminCreds()));
    await waitFor(HarborConnections, ns.name, "nosecret", hasReady("True", "Connected"));
  });

  test("a Secret that does not opt in: SecretNotAllowed with the command that allows it, nothing sent; Connected once annotated", async () => {
    const logins = h.emulator.counters.total({ op: "getCurrentUserInfo" });
    await ns.kubectl.apply([secret("plain-creds", adminCreds()), connection("plain", {})]);
    const c = await waitFor(HarborConnections, ns.name, "plain", hasReady("False", "SecretNotAllowed"));
    expect(readyOf(c)?.message).toBe(
      `Secret plain-creds is not allowed as a Harbor connection's credentials: it does not opt in with the harborconfig.io/usable-as annotation. To allow it: kubectl annotate secret plain-creds harborconfig.io/usable-as=harbor-connection`,
    );
    // Its values never went to the connection's URL.
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo" })).toBe(logins);
    await ns.kubectl.run([
      "annotate",
      "secret",
      "plain-creds",
      "harborconfig.io/usable-as=harbor-connection",
    ]);
    await waitFor(HarborConnections, ns.name, "plain", hasReady("True", "Connected"));
  });

  test("a Secret without the password key: SecretInvalid naming the key; Ready once it is added", async () => {
    await ns.kubectl.apply([
      secret(
        "nokey-creds",
        { user: "admin", pass: h.emulator.adminPassword },
        { usableAs: "harbor-connection" },
      ),
      connection("nokey", { credentialsSecretRef: { name: "nokey-creds", usernameKey: "user" } }),
    ]);
    const c = await waitFor(HarborConnections, ns.name, "nokey", hasReady("False", "SecretInvalid"));
    expect(readyOf(c)?.message).toContain(`no value under "password"`);
    expect(JSON.stringify(c.status)).not.toContain(h.emulator.adminPassword);
    await ns.kubectl.run([
      "patch",
      "harborconnection",
      "nokey",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { credentialsSecretRef: { passwordKey: "pass" } } }),
    ]);
    await waitFor(HarborConnections, ns.name, "nokey", hasReady("True", "Connected"));
  });

  describe("TLS", () => {
    let dir: string;
    let cert: string;
    let server: https.Server;
    let url: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "conn-tls-"));
      const made = spawnSync(
        "openssl",
        ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"].concat([
          "-keyout",
          join(dir, "tls.key"),
          "-out",
          join(dir, "tls.crt"),
          "-days",
          "1",
          "-subj",
          "/CN=harbor-test",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ]),
        { encoding: "utf8" },
      );
      if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
      cert = readFileSync(join(dir, "tls.crt"), "utf8");
      // An HTTPS front of the emulator, with a certificate that nothing trusts.
      const target = new URL(h.emulator.url);
      server = https.createServer({ key: readFileSync(join(dir, "tls.key")), cert }, (req, res) => {
        const up = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        up.on("error", () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("an untrusted certificate: TLSError; trusting its CA through spec.caBundle makes it Ready", async () => {
      await ns.kubectl.apply([credentials("tls-creds", adminCreds()), connection("tls", { url })]);
      const c = await waitFor(HarborConnections, ns.name, "tls", hasReady("False", "TLSError"));
      expect(readyOf(c)?.message).toMatch(/self-signed.*spec\.caBundle/);

      await ns.kubectl.apply(connection("tls", { url, caBundle: cert }));
      const fixed = await waitFor(HarborConnections, ns.name, "tls", hasReady("True", "Connected"));
      expect(fixed.status?.observedGeneration).toBe(2);
      const handle = await running.connections.resolve(ns.name, { kind: "HarborConnection", name: "tls" });
      expect(handle.url).toBe(url);

      // The bundle alone (caBundleOnly): still trusted, since it holds the issuer.
      await ns.kubectl.apply(connection("tls", { url, caBundle: cert, caBundleOnly: true }));
      const only = await waitFor(
        HarborConnections,
        ns.name,
        "tls",
        (o) => o.status?.observedGeneration === 3 && hasReady("True", "Connected")(o),
      );
      expect(only.status?.observedGeneration).toBe(3);
    });
  });

  test("the optional checks: LDAP ping and job service in the status", async () => {
    h.emulator.control.ldap.setAuthMode("ldap");
    try {
      await ns.kubectl.apply([
        credentials("checked-creds", adminCreds()),
        connection("checked", { checks: { ldap: true, jobService: true } }),
      ]);
      const c = await waitFor(
        HarborConnections,
        ns.name,
        "checked",
        (x) =>
          hasReady("True", "Connected")(x) &&
          x.status?.conditions?.some((k) => k.type === "ChecksPassed") === true,
      );
      expect(c.status?.ldap).toEqual({ success: true });
      expect(c.status?.jobService).toMatchObject({ pools: 1, workers: 10, busyWorkers: 0 });
      expect(c.status?.conditions?.find((k) => k.type === "ChecksPassed")).toMatchObject({
        status: "True",
        reason: "ChecksPassed",
      });
    } finally {
      h.emulator.control.ldap.setAuthMode("db");
    }
  });

  test("a deleted connection stops resolving", async () => {
    await ns.kubectl.apply([credentials("gone-creds", adminCreds()), connection("gone", {})]);
    await waitFor(HarborConnections, ns.name, "gone", hasReady("True", "Connected"));
    await running.connections.resolve(ns.name, { kind: "HarborConnection", name: "gone" });
    await ns.kubectl.delete("harborconnection", "gone", { wait: true });
    const deadline = Date.now() + budget.operatorMs;
    let message = "";
    while (Date.now() < deadline) {
      try {
        await running.connections.resolve(ns.name, { kind: "HarborConnection", name: "gone" });
      } catch (e) {
        message = (e as Error).message;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(message).toBe(`HarborConnection "gone" in namespace "${ns.name}" does not exist`);
  });
});

describe("ClusterHarborConnection", () => {
  test("a namespace outside allowedNamespaces is refused; an allowed one gets the handle", async () => {
    const name = `${ns.name}-shared`;
    clusterNames.push(name);
    await ns.kubectl.apply(credentials("shared-creds", adminCreds()));
    await admin.apply(
      clusterConnection(name, {
        url: h.emulator.url,
        credentialsSecretRef: { name: "shared-creds", namespace: ns.name },
        allowedNamespaces: [ns.name, "team-*"],
      }),
    );
    const c = await waitFor(ClusterHarborConnections, undefined, name, hasReady("True", "Connected"));
    expect(c.status?.authenticatedAs).toBe("admin");

    const ref = { kind: "ClusterHarborConnection", name } as const;
    const denied = await resolveError("elsewhere", ref);
    expect(denied.reason).toBe("ConnectionNotAllowed");
    expect(denied.message).toBe(
      `ClusterHarborConnection "${name}" does not allow namespace "elsewhere" (allowedNamespaces: ${ns.name}, team-*)`,
    );
    expect((await running.connections.resolve(ns.name, ref)).key).toBe(`ClusterHarborConnection/${name}`);
    expect((await running.connections.resolve("team-blue", ref)).registryHost).toBe(
      new URL(h.emulator.url).host,
    );

    const table = await admin.run(["get", "clusterharborconnections", name]);
    expect(table).toMatch(/^NAME\s+READY\s+REASON\s+URL\s+VERSION\s+AGE$/m);
    expect(table).toMatch(new RegExp(`^${name}\\s+True\\s+Connected\\s+`, "m"));
  });

  test("a Secret outside the operator's namespace: Stalled, SecretNotAllowed naming the fix; the Secret is not touched", async () => {
    const name = `${ns.name}-outside`;
    // Opted in and valid: only its namespace is wrong.
    await admin.inNamespace("default").apply(credentials(name, adminCreds()));
    try {
      await admin.apply(
        clusterConnection(name, {
          url: h.emulator.url,
          credentialsSecretRef: { name, namespace: "default" },
          allowedNamespaces: [ns.name],
        }),
      );
      const c = await waitFor(
        ClusterHarborConnections,
        undefined,
        name,
        hasReady("False", "SecretNotAllowed"),
      );
      const stalled = c.status?.conditions?.find((x) => x.type === "Stalled");
      expect(stalled?.status).toBe("True");
      expect(stalled?.message).toContain(
        `reads its credentials Secret only from the operator's namespace ${ns.name}, not default`,
      );
      const secretObj = JSON.parse(
        await admin.inNamespace("default").run(["get", "secret", name, "-o", "json"]),
      );
      expect(secretObj.metadata.finalizers ?? []).toEqual([]);
      // Harbor was never asked: no version, no user.
      expect(c.status?.harborVersion).toBeUndefined();
      expect(c.status?.authenticatedAs).toBeUndefined();
    } finally {
      await admin.delete("clusterharborconnection", name, { wait: true });
      await admin.inNamespace("default").delete("secret", name);
    }
  });

  test("an unknown connection: ConnectionNotReady naming it", async () => {
    const e = await resolveError(ns.name, { kind: "ClusterHarborConnection", name: "no-such-connection" });
    expect(e.reason).toBe("ConnectionNotReady");
    expect(e.message).toBe(`ClusterHarborConnection "no-such-connection" does not exist`);
  });
});

describe("credentials Secrets", () => {
  /** Polls until isCredentialsSecret gives `expected` (the informers see changes within moments). */
  const becomes = async (namespace: string, name: string, expected: boolean) => {
    const deadline = Date.now() + budget.operatorMs;
    while (running.connections.isCredentialsSecret(namespace, name) !== expected) {
      if (Date.now() > deadline)
        throw new Error(`isCredentialsSecret(${namespace}, ${name}) stayed ${!expected}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  test("before the caches have listed, nobody can tell: NotReady", () => {
    const fresh = new Connections({ logger: pino({ level: "silent" }) });
    expect(() => fresh.isCredentialsSecret(ns.name, "anything")).toThrow(NotReady);
  });

  test("every connection's Secret is known from the caches, Ready or not, in its own namespace", async () => {
    // Connections of the tests above: HarborConnections' and the ClusterHarborConnection's.
    expect(running.connections.isCredentialsSecret(ns.name, "good-creds")).toBe(true);
    expect(running.connections.isCredentialsSecret(ns.name, "shared-creds")).toBe(true);
    expect(running.connections.isCredentialsSecret("elsewhere", "good-creds")).toBe(false);
    expect(running.connections.isCredentialsSecret(ns.name, "bystander")).toBe(false);

    // A HarborConnection whose Secret does not even exist yet still claims its name.
    await ns.kubectl.apply(connection("pending", {}));
    await becomes(ns.name, "pending-creds", true);
    // A ClusterHarborConnection's Secret is where its spec says, not where the resource is (even
    // where the operator refuses to read it).
    const remote = `${ns.name}-remote`;
    clusterNames.push(remote);
    await admin.apply(
      clusterConnection(remote, {
        url: h.emulator.url,
        credentialsSecretRef: { name: "remote-creds", namespace: "kube-public" },
        allowedNamespaces: [ns.name],
      }),
    );
    await becomes("kube-public", "remote-creds", true);
    expect(running.connections.isCredentialsSecret(ns.name, "remote-creds")).toBe(false);

    // A deleted connection lets its Secret go.
    await ns.kubectl.delete("harborconnection", "pending", { wait: true });
    await becomes(ns.name, "pending-creds", false);
  });
});
