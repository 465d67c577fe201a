// The operator's image, assembled without a container engine. The Dockerfile is read and followed
// instruction by instruction into a directory per stage: COPY from the build context (filtered by
// .dockerignore, as `docker build` sends it) or from an earlier stage, RUN with the tools the stage's
// base image provides, ENV, WORKDIR, USER and ENTRYPOINT recorded. The result runs the entrypoint as
// written, on a read-only tree, as the image's user, with the image's environment — with the Node the
// project provides standing in for the base image's. An instruction or base image this file does not
// know fails the assembly: the Dockerfile cannot grow something the test silently skips.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative } from "node:path";

const root = join(import.meta.dirname, "..", "..");

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  line: number;
}

/** Parses a Dockerfile into instructions: comments dropped, `\` continuations joined. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trimEnd();
    if (/^\s*#/.test(line) || (pending === undefined && line.trim() === "")) return;
    const continued = line.endsWith("\\");
    const part = continued ? line.slice(0, -1) : line;
    pending = pending
      ? { text: `${pending.text.trimEnd()} ${part.trim()}`, line: pending.line }
      : { text: part, line: i + 1 };
    if (continued) return;
    const m = /^\s*([A-Za-z]+)\s+(.*)$/s.exec(pending.text);
    if (!m) throw new Error(`Dockerfile line ${pending.line}: cannot read ${JSON.stringify(pending.text)}`);
    out.push({ keyword: (m[1] ?? "").toUpperCase(), args: (m[2] ?? "").trim(), line: pending.line });
    pending = undefined;
  });
  return out;
}

/** What a base image brings that the assembly stands in for. */
interface BaseImage {
  /** Programs a RUN may call, and the only forms of them this file can reproduce. */
  tools: Record<string, RegExp>;
  /** The base image's Node, replaced by the project's. */
  node?: string;
}

/** A base image reference pinned by digest: `name:tag@sha256:<64 hex>`. */
const DIGEST = /@sha256:[0-9a-f]{64}$/;

/** The base images the Dockerfile may use, by reference pattern; the Node major must be ours. */
function baseImage(reference: string, nodeMajor: string): BaseImage {
  if (!DIGEST.test(reference))
    throw new Error(`base image ${reference} is not pinned by digest (name:tag@sha256:…)`);
  const name = reference.replace(DIGEST, "");
  const slim = /^node:(\d+)-bookworm-slim$/.exec(name);
  if (slim?.[1] === nodeMajor) {
    return {
      tools: {
        npm: /^npm (ci --omit=dev --ignore-scripts( --[a-z-]+)*|pkg delete devDependencies|sbom --omit=dev( --[a-z-]+=[a-z]+)* > [\w.-]+)$/,
        find: /^find node_modules -type f .* -delete$/,
        node: /^node( --[a-z-]+(=[A-Za-z]+)?)* src\/build\.ts [a-z]+$/,
      },
    };
  }
  const distroless = /^gcr\.io\/distroless\/nodejs(\d+)-debian12(:nonroot)?$/.exec(name);
  if (distroless?.[1] === nodeMajor) return { tools: {}, node: "/nodejs/bin/node" };
  throw new Error(`base image ${reference} is not one the image test knows (Node ${nodeMajor} expected)`);
}

interface Stage {
  name: string;
  base: BaseImage;
  /** The stage's filesystem on this machine. */
  rootfs: string;
  workdir: string;
  env: Record<string, string>;
  user?: { uid: number; gid: number };
  entrypoint?: string[];
}

export interface AssembledImage {
  /** The final stage's filesystem (read-only once assembled). */
  rootfs: string;
  /** WORKDIR of the final stage, on this machine. */
  cwd: string;
  /** ENV of the final stage (plus the PATH its base image sets). */
  env: Record<string, string>;
  user: { uid: number; gid: number } | undefined;
  /** ENTRYPOINT with the base image's Node replaced by the project's (copied into the tree). */
  entrypoint: string[];
  /** Removes the assembly. */
  remove(): void;
}

export interface AssembleOptions {
  dockerfile?: string;
  context?: string;
  /** The Node that stands in for the image's (default: the one running this process). */
  node?: string;
  log?: (line: string) => void;
}

/** Follows the Dockerfile into a temporary directory; throws on anything it does not understand. */
export function assembleImage(o: AssembleOptions = {}): AssembledImage {
  const context = o.context ?? root;
  const text = readFileSync(o.dockerfile ?? join(context, "Dockerfile"), "utf8");
  const node = o.node ?? process.execPath;
  const nodeMajor = process.versions.node.split(".")[0] ?? "";
  const work = mkdtempSync(join(tmpdir(), "hco-image-"));
  // The image's user must reach the tree: only the final tree's files are made read-only.
  chmodSync(work, 0o755);
  const ignore = dockerignore(context);
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const fail = (i: Instruction, why: string): never => {
    throw new Error(`Dockerfile line ${i.line} (${i.keyword} ${i.args}): ${why}`);
  };
  try {
    for (const i of parseDockerfile(text)) {
      const stage = stages.at(-1);
      const expand = (s: string) =>
        s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? stage?.env[a ?? b] ?? "");
      if (i.keyword === "ARG") {
        const [name, value] = i.args.split("=", 2);
        if (!name) fail(i, "ARG without a name");
        args[name as string] = value ?? "";
        continue;
      }
      if (i.keyword === "FROM") {
        const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(expand(i.args));
        if (!m?.[1]) fail(i, "not understood");
        const rootfs = join(work, `stage-${stages.length}`);
        mkdirSync(rootfs, { mode: 0o755 });
        stages.push({
          name: m?.[2] ?? String(stages.length),
          base: baseImage(m?.[1] ?? "", nodeMajor),
          rootfs,
          workdir: "/",
          env: {},
        });
        continue;
      }
      if (!stage) fail(i, "an instruction before the first FROM");
      const s = stage as Stage;
      const host = (imagePath: string) => join(s.rootfs, posix.resolve(s.workdir, imagePath));
      switch (i.keyword) {
        case "WORKDIR":
          s.workdir = posix.resolve(s.workdir, expand(i.args));
          mkdirSync(host("."), { recursive: true, mode: 0o755 });
          break;
        case "LABEL":
        case "EXPOSE":
          break; // metadata only
        case "ENV":
          Object.assign(s.env, parseEnv(i.args) ?? fail(i, "not understood (KEY=value pairs expected)"));
          break;
        case "USER": {
          const m = /^(\d+):(\d+)$/.exec(i.args);
          if (!m)
            fail(i, "a numeric uid:gid is expected (the kubelet can only verify runAsNonRoot for those)");
          s.user = { uid: Number(m?.[1]), gid: Number(m?.[2]) };
          break;
        }
        case "ENTRYPOINT": {
          let entry: unknown;
          try {
            entry = JSON.parse(i.args);
          } catch {
            fail(i, "only the exec (JSON array) form is understood");
          }
          if (!Array.isArray(entry) || !entry.every((x) => typeof x === "string"))
            fail(i, "not a list of strings");
          s.entrypoint = entry as string[];
          break;
        }
        case "COPY": {
          const words = i.args.split(/\s+/);
          const from = words[0]?.startsWith("--from=") ? words.shift()?.slice("--from=".length) : undefined;
          if (words.some((w) => w.startsWith("--")) || words.length < 2)
            fail(i, "only COPY [--from=stage] src… dest is understood");
          const dest = words.pop() as string;
          const source = from === undefined ? undefined : stages.find((x) => x.name === from);
          if (from !== undefined && !source) fail(i, `no earlier stage named ${from}`);
          for (const src of words) {
            const target =
              words.length > 1 || dest.endsWith("/") ? join(host(dest), posix.basename(src)) : host(dest);
            if (source) {
              const path = join(source.rootfs, posix.resolve(source.workdir, src));
              if (!existsSync(path)) fail(i, `${src} does not exist in stage ${from}`);
              cpSync(path, target, { recursive: true });
            } else
              copyFromContext(context, src, target, ignore) ||
                fail(i, `${src} is not in the build context (see .dockerignore)`);
          }
          break;
        }
        case "RUN": {
          const commands = i.args.split("&&").map((c) => c.trim());
          for (const c of commands) {
            const tool = c.split(/\s+/)[0] ?? "";
            const form = s.base.tools[tool];
            if (!form)
              fail(i, `${tool} is not a program this base image provides (or the test can reproduce)`);
            if (!form?.test(c)) fail(i, `this use of ${tool} is not one the test can reproduce: ${c}`);
          }
          o.log?.(`RUN ${i.args}`);
          // The project's Node first on PATH: it stands in for the base image's, also under npm.
          const r = spawnSync("/bin/sh", ["-c", i.args], {
            cwd: host("."),
            env: { ...process.env, ...s.env, PATH: `${dirname(node)}:${process.env.PATH ?? ""}` },
            encoding: "utf8",
            timeout: 300_000,
          });
          if (r.status !== 0) fail(i, `failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
          break;
        }
        default:
          fail(
            i,
            "the image test does not understand this instruction; teach test/env/image.ts what it means",
          );
      }
    }
    const last = stages.at(-1);
    if (!last) throw new Error("the Dockerfile has no FROM");
    if (!last.entrypoint?.length) throw new Error("the final stage has no ENTRYPOINT");
    const [exe, ...rest] = last.entrypoint;
    if (!exe || exe !== last.base.node)
      throw new Error(`the entrypoint runs ${exe}, not the base image's Node`);
    // The project's Node goes where the base image has its own, inside the tree: the image's user
    // must reach it, and the checkout's copy may sit below a folder only its owner may enter.
    const imageNode = join(last.rootfs, exe);
    mkdirSync(dirname(imageNode), { recursive: true, mode: 0o755 });
    copyFileSync(node, imageNode, constants.COPYFILE_FICLONE);
    chmodSync(imageNode, 0o755);
    makeReadOnly(last.rootfs);
    return {
      rootfs: last.rootfs,
      cwd: join(last.rootfs, last.workdir),
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...last.env },
      user: last.user,
      entrypoint: [imageNode, ...rest],
      remove: () => remove(work),
    };
  } catch (e) {
    remove(work);
    throw e;
  }
}

/** Size and file count of a directory tree. */
export function treeSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

/** `KEY=value` pairs, values optionally double-quoted; undefined when it is not that. */
function parseEnv(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const re = /\s*([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/y;
  let m: RegExpExecArray | null;
  let at = 0;
  // biome-ignore lint/suspicious/noAssignInExpressions: a sticky regexp walks the pairs
  while ((m = re.exec(text)) !== null) {
    const raw = m[2] ?? "";
    out[m[1] ?? ""] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
    at = re.lastIndex;
  }
  return at === text.length && Object.keys(out).length > 0 ? out : undefined;
}

/** The .dockerignore rules: a path is left out when the last rule matching it or a parent excludes it. */
function dockerignore(context: string): (path: string) => boolean {
  const file = join(context, ".dockerignore");
  const rules = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
        .map((l) => {
          const negate = l.startsWith("!");
          const pattern = posix.normalize((negate ? l.slice(1) : l).replace(/^\/+/, "")).replace(/\/+$/, "");
          return { negate, re: globToRegExp(pattern) };
        })
    : [];
  return (path) => {
    const parts = path.split("/");
    const candidates = parts.map((_, n) => parts.slice(0, n + 1).join("/"));
    let excluded = false;
    for (const rule of rules) if (candidates.some((c) => rule.re.test(c))) excluded = !rule.negate;
    return excluded;
  };
}

function globToRegExp(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*" && pattern[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Copies what the build context holds of `src` (after .dockerignore); false when that is nothing. */
function copyFromContext(
  context: string,
  src: string,
  target: string,
  ignored: (p: string) => boolean,
): boolean {
  const from = join(context, src);
  if (!existsSync(from)) return false;
  let copied = false;
  cpSync(from, target, {
    recursive: true,
    filter: (path) => {
      const rel = relative(context, path);
      const keep = !ignored(rel);
      if (keep && statSync(path).isFile()) copied = true;
      return keep || statSync(path).isDirectory();
    },
  });
  return copied;
}

function makeReadOnly(dir: string): void {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    chmodSync(path, entry.isDirectory() || (statSync(path).mode & 0o111) !== 0 ? 0o555 : 0o444);
  }
  chmodSync(dir, 0o555);
}

function remove(dir: string): void {
  // A read-only tree has to be made writable again before it can be removed.
  spawnSync("chmod", ["-R", "u+w", dir]);
  rmSync(dir, { recursive: true, force: true });
}
