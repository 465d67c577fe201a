// The kubeconfig loader: what it reads itself (files, KUBECONFIG lists, the in-cluster service
// account) and that it leaves exec plugins to client-node, which the operator then loads lazily.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type https from "node:https";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type KubeconfigHost, loadKubeAuth } from "../../../src/kube/kubeconfig.ts";

const dir = mkdtempSync(join(tmpdir(), "hco-kubeconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : stringify(content));
  return path;
}

function config(o: { context?: string; cluster?: object; user?: object; name?: string }) {
  const name = o.name ?? "a";
  return {
    apiVersion: "v1",
    kind: "Config",
    ...(o.context === undefined
      ? { "current-context": name }
      : o.context
        ? { "current-context": o.context }
        : {}),
    clusters: [{ name, cluster: { server: "https://127.0.0.1:6443/", ...o.cluster } }],
    users: o.user ? [{ name, user: o.user }] : [],
    contexts: [{ name, context: { cluster: name, ...(o.user ? { user: name } : {}) } }],
  };
}

async function applied(path: string | undefined, host?: KubeconfigHost): Promise<https.RequestOptions> {
  const auth = loadKubeAuth(path, host);
  const opts: https.RequestOptions = { headers: { accept: "application/json" } };
  await auth.apply(opts);
  return opts;
}

const noDefaults = (env: Record<string, string> = {}): KubeconfigHost => ({
  env,
  home: join(dir, "no-home"),
  serviceAccountDir: join(dir, "no-service-account"),
});

describe("loadKubeAuth", () => {
  it("reads the server, CA, client certificate and key (data or files relative to the kubeconfig)", async () => {
    mkdirSync(join(dir, "certs"), { recursive: true });
    write("certs/ca.pem", "CA");
    const path = write(
      "certs.yaml",
      config({
        cluster: { "certificate-authority": "certs/ca.pem", "tls-server-name": "api.internal" },
        user: {
          "client-certificate-data": Buffer.from("CERT").toString("base64"),
          "client-key-data": Buffer.from("KEY").toString("base64"),
        },
      }),
    );
    const auth = loadKubeAuth(path);
    expect(auth.server.toString()).toBe("https://127.0.0.1:6443/");
    const opts = await applied(path);
    expect(String(opts.ca)).toBe("CA");
    expect(String(opts.cert)).toBe("CERT");
    expect(String(opts.key)).toBe("KEY");
    expect(opts.servername).toBe("api.internal");
    expect(opts.rejectUnauthorized).toBeUndefined();
    expect(opts.headers).toEqual({ accept: "application/json" });
  });

  it("sends a bearer token, a token file's content, impersonation and skips TLS verification when asked", async () => {
    const token = await applied(
      write(
        "token.yaml",
        config({ cluster: { "insecure-skip-tls-verify": true }, user: { token: "t0k", as: "bob" } }),
      ),
    );
    expect(token.headers).toMatchObject({ authorization: "Bearer t0k", "impersonate-user": "bob" });
    expect(token.rejectUnauthorized).toBe(false);
    write("token-file", "from-file\n");
    const file = await applied(write("token-file.yaml", config({ user: { "token-file": "token-file" } })));
    expect(file.headers).toMatchObject({ authorization: "Bearer from-file" });
  });

  it("merges a KUBECONFIG list first-wins, as kubectl does", async () => {
    const first = write("first.yaml", config({ context: "", name: "b", user: { token: "first" } }));
    const second = write("second.yaml", config({ context: "b", name: "b", user: { token: "second" } }));
    const host = noDefaults({ KUBECONFIG: [first, second].join(delimiter) });
    const opts = await applied(undefined, host);
    expect(opts.headers).toMatchObject({ authorization: "Bearer first" });
  });

  it("uses the in-cluster service account when there is no kubeconfig, and falls back to localhost:8080", async () => {
    const sa = join(dir, "sa");
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), "sa-token");
    writeFileSync(join(sa, "ca.crt"), "SA-CA");
    const host: KubeconfigHost = {
      env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" },
      home: join(dir, "no-home"),
      serviceAccountDir: sa,
    };
    expect(loadKubeAuth(undefined, host).server.toString()).toBe("https://[fd00::1]/");
    const opts = await applied(undefined, host);
    expect(String(opts.ca)).toBe("SA-CA");
    expect(opts.headers).toMatchObject({ authorization: "Bearer sa-token" });
    expect(loadKubeAuth(undefined, noDefaults()).server.toString()).toBe("http://localhost:8080/");
  });

  it("refuses a kubeconfig without a current context or cluster", () => {
    expect(() => loadKubeAuth(write("none.yaml", config({ context: "" })))).toThrow(/no current context/);
    expect(() => loadKubeAuth(write("other.yaml", config({ context: "missing" })))).toThrow(
      /no context named/,
    );
  });

  it("takes another context when asked (kubectl's --context), with that context's namespace", () => {
    const two = config({ user: { token: "t" } });
    two.clusters.push({ name: "b", cluster: { server: "https://127.0.0.2:6443/" } });
    two.contexts.push({ name: "b", context: { cluster: "b", namespace: "team-b" } as never });
    const path = write("two.yaml", two);
    expect(loadKubeAuth(path).server.toString()).toBe("https://127.0.0.1:6443/");
    expect(loadKubeAuth(path).namespace).toBeUndefined();
    const b = loadKubeAuth(path, noDefaults(), "b");
    expect(b.server.toString()).toBe("https://127.0.0.2:6443/");
    expect(b.namespace).toBe("team-b");
    expect(() => loadKubeAuth(path, noDefaults(), "c")).toThrow('the kubeconfig has no context "c"');
    expect(() => loadKubeAuth(undefined, noDefaults(), "b")).toThrow(/no kubeconfig was found/);
  });

  it("hands exec plugins to client-node", async () => {
    const path = write(
      "exec.yaml",
      config({
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: process.execPath,
            args: [
              "-e",
              'process.stdout.write(JSON.stringify({apiVersion:"client.authentication.k8s.io/v1",kind:"ExecCredential",status:{token:"from-exec"}}))',
            ],
            interactiveMode: "Never",
          },
        },
      }),
    );
    const opts = await applied(path);
    expect(JSON.stringify(opts.headers)).toContain("Bearer from-exec");
  });
});
