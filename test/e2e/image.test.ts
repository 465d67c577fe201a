// What the Dockerfile assembles runs — the stand-in for `docker build` on machines without a
// container engine. test/env/image.ts follows the Dockerfile step by step (production install with
// install scripts off, only the files the image copies, the image's environment and user, a
// read-only tree, the entrypoint as written with the project's Node for the runtime image's); this
// file proves that the result starts, serves /healthz, /readyz and /metrics, and reconciles a
// project against the test control plane and the emulator, and that its SBOM lists what it holds.
// (test/env/image.ts refuses a base image that is not pinned by digest.)
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { sharedControlPlane } from "../env/cluster.ts";
import { type AssembledImage, assembleImage, treeSize } from "../env/image.ts";
import { useOperator } from "../env/operator.ts";
import { servedUrls } from "../env/operator-log.ts";
import { type ProjectCR, project as projectOf } from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

let image: AssembledImage | undefined;
const scratch = mkdtempSync(join(tmpdir(), "hco-image-kubeconfig-"));

// Assembling the image copies the production node_modules: longer than a hook's default.
beforeAll(async () => {
  image = assembleImage({ log: (line) => process.stderr.write(`[image] ${line}\n`) });
  const modules = join(image.cwd, "node_modules");
  const size = existsSync(modules) ? treeSize(modules) : { files: 0, bytes: 0 };
  process.stderr.write(
    `[image] production node_modules: ${size.files} files, ${(size.bytes / 2 ** 20).toFixed(1)} MiB\n`,
  );
}, budget.longTestMs);

afterAll(() => {
  image?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

const op = useOperator({
  namespacePrefix: "image",
  // The image's user must be able to read the kubeconfig it is given (a pod gets its token mounted).
  kubeconfig: () => {
    chmodSync(scratch, 0o755);
    const path = join(scratch, "kubeconfig");
    copyFileSync(sharedControlPlane().kubeconfigPath, path);
    chmodSync(path, 0o644);
    return path;
  },
  launcher: (args, env) => {
    if (!image) throw new Error("the image was not assembled");
    const [file = "", ...entry] = image.entrypoint;
    return {
      file,
      // As a pod passes its args after the entrypoint; on loopback, on ports of the operator's choice.
      args: [
        ...entry,
        ...args,
        "--metrics-bind-address=127.0.0.1:0",
        "--health-probe-bind-address=127.0.0.1:0",
      ],
      cwd: image.cwd,
      // Only the image's environment (and what the test itself sets), nothing of this process's.
      env: { ...image.env, ...env },
      // Only root may start a process as another user; otherwise it runs as this one.
      ...(image.user && process.getuid?.() === 0 ? image.user : {}),
    };
  },
});

/** Every package under a node_modules tree (nested ones too), as name@version. */
function installedPackages(modules: string): Set<string> {
  const out = new Set<string>();
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      const dirs = entry.startsWith("@") ? readdirSync(join(dir, entry)).map((n) => join(entry, n)) : [entry];
      for (const name of dirs) {
        const pkg = JSON.parse(readFileSync(join(dir, name, "package.json"), "utf8")) as { version: string };
        out.add(`${name}@${pkg.version}`);
        visit(join(dir, name, "node_modules"));
      }
    }
  };
  visit(modules);
  return out;
}

const get = (base: string, path: string) =>
  fetch(`${base}${path}`).then(
    async (r) => ({ status: r.status, text: await r.text() }),
    () => ({ status: 0, text: "" }),
  );

describe("the operator's image", () => {
  test("holds the production dependencies only, the operator as JavaScript and package.json", () => {
    const cwd = image?.cwd ?? "";
    expect(existsSync(join(cwd, "src", "main.js"))).toBe(true);
    // Types stripped at build time: Node never loads its TypeScript support in the image.
    const sources = readdirSync(join(cwd, "src"), { recursive: true, encoding: "utf8" });
    expect(sources.filter((f) => f.endsWith(".ts"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")).type).toBe("module");
    expect(existsSync(join(cwd, "node_modules", "@kubernetes", "client-node"))).toBe(true);
    for (const dev of ["vitest", "typescript", "@biomejs", "node"])
      expect(existsSync(join(cwd, "node_modules", dev)), dev).toBe(false);
    for (const absent of ["test", "crds", "deploy", "README.md", "package-lock.json", "bin"])
      expect(existsSync(join(cwd, absent)), absent).toBe(false);
    // The command-line companion runs from a checkout, not from the operator's image.
    const cli = join(cwd, "src", "cli");
    expect(existsSync(cli) ? treeSize(cli).files : 0, "files of src/cli").toBe(0);
  });

  test("carries an SBOM listing exactly the packages installed, at their locked versions, and no dev dependency", () => {
    const cwd = image?.cwd ?? "";
    const sbom = JSON.parse(readFileSync(join(cwd, "sbom.cdx.json"), "utf8")) as {
      bomFormat: string;
      components: Array<{ name: string; version: string; group?: string }>;
    };
    expect(sbom.bomFormat).toBe("CycloneDX");
    const listed = new Set(
      sbom.components.map((c) => `${c.group ? `${c.group}/` : ""}${c.name}@${c.version}`),
    );
    const installed = installedPackages(join(cwd, "node_modules"));
    expect(installed.size).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual([...installed].sort());
    const locked = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8"),
    ) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const dep of Object.keys(locked.dependencies))
      expect(
        [...listed].some((p) => p.startsWith(`${dep}@`)),
        dep,
      ).toBe(true);
    // The dev tools (@types/node is also a dependency of the Kubernetes client, so it is there).
    for (const dev of ["vitest", "typescript", "@biomejs/biome", "node"]) {
      expect(locked.devDependencies, dev).toHaveProperty([dev]);
      expect(
        [...listed].some((p) => p.startsWith(`${dev}@`)),
        dev,
      ).toBe(false);
    }
  });

  test("runs as the image's user on a read-only tree and serves /healthz, /readyz and /metrics", async () => {
    const { metricsUrl, probeUrl } = await servedUrls(op);
    await untilTrue("/healthz answers 200", async () => (await get(probeUrl, "/healthz")).status === 200);
    await untilTrue("/readyz answers 200", async () => (await get(probeUrl, "/readyz")).status === 200);
    const metrics = await get(metricsUrl, "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/process_resident_memory_bytes \d+/);
    expect(op.output()).not.toMatch(/EACCES|EROFS|permission denied/i);
    if (process.getuid?.() === 0) {
      const status = readFileSync(`/proc/${op.pid()}/status`, "utf8");
      expect(status).toMatch(new RegExp(`^Uid:\\s+${image?.user?.uid}\\b`, "m"));
    }
  });

  test("reconciles a project against the control plane and the emulator", async () => {
    const name = `image-${op.namespace}`;
    await op.kubectl.apply(projectOf(name));
    const project = await op.waitReady<ProjectCR>("harborproject", name);
    expect((await op.harbor.projects.get(name)).project_id).toBe(project.status?.harborId);
    // A reconcile is counted once it returns, a moment after the status write the watch showed.
    const { metricsUrl } = await servedUrls(op);
    await untilTrue("the project's reconcile counted in /metrics", async () =>
      /controller_runtime_reconcile_total\{controller="harborproject",result="success"\} [1-9]/.test(
        (await get(metricsUrl, "/metrics")).text,
      ),
    );
  });
});
