// What Flux's source-controller would hand kustomize-controller, without it: a folder packed as a
// tar.gz artifact, served on loopback, and a GitRepository whose status names that artifact (its
// URL, digest and revision), as source-controller writes it after a fetch. Each commit() packs the
// folder again and moves the GitRepository to the new revision; kustomize-controller notices the
// status change through its watch and applies that revision.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kubectl } from "../kubectl.ts";

export interface ArtifactSource {
  /** The GitRepository's namespace and name (a Kustomization's sourceRef). */
  readonly namespace: string;
  readonly name: string;
  /** Packs `folder` as the next revision and points the GitRepository at it; returns the revision. */
  commit(folder: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts the artifact server and creates the GitRepository (no artifact until the first commit). */
export async function startArtifactSource(
  kubectl: Kubectl,
  o: { namespace: string; name: string },
): Promise<ArtifactSource> {
  const artifacts = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const body = artifacts.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/gzip", "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await kubectl.apply({
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: o.name, namespace: o.namespace },
    // Never fetched: no source-controller runs. The URL only has to be valid.
    spec: {
      url: "https://git.example.invalid/platform/harbor.git",
      interval: "24h",
      ref: { branch: "main" },
    },
  });
  let commits = 0;
  const work = mkdtempSync(join(tmpdir(), "hco-flux-artifact-"));
  return {
    namespace: o.namespace,
    name: o.name,
    async commit(folder) {
      const file = join(work, `${++commits}.tar.gz`);
      // A reproducible archive of the folder's content, as source-controller packs a checkout.
      const tar = spawnSync(
        "tar",
        [
          "--sort=name",
          "--mtime=@0",
          "--owner=0",
          "--group=0",
          "--numeric-owner",
          "-czf",
          file,
          "-C",
          folder,
          ".",
        ],
        { encoding: "utf8" },
      );
      if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
      const body = readFileSync(file);
      const sha256 = createHash("sha256").update(body).digest("hex");
      const revision = `main@sha1:${createHash("sha1").update(body).digest("hex")}`;
      const path = `/gitrepository/${o.namespace}/${o.name}/${sha256}.tar.gz`;
      artifacts.set(path, body);
      const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      await kubectl.run([
        "patch",
        "gitrepository",
        o.name,
        "-n",
        o.namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        JSON.stringify({
          status: {
            observedGeneration: 1,
            artifact: {
              path: path.slice(1),
              url: `${base}${path}`,
              revision,
              digest: `sha256:${sha256}`,
              lastUpdateTime: now,
              size: body.length,
            },
            conditions: [
              {
                type: "Ready",
                status: "True",
                reason: "Succeeded",
                message: `stored artifact for revision '${revision}'`,
                lastTransitionTime: now,
                observedGeneration: 1,
              },
            ],
          },
        }),
      ]);
      return revision;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
