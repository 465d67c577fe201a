// The image test's reading of the Dockerfile (test/env/image.ts): what it does not understand fails
// the assembly instead of being skipped, so the Dockerfile and its test cannot drift apart.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { assembleImage, parseDockerfile } from "../env/image.ts";

const node = process.versions.node.split(".")[0];
/** A digest of the right form (the assembly never fetches it). */
const digest = `@sha256:${"0123456789abcdef".repeat(4)}`;
const runtime = `FROM gcr.io/distroless/nodejs${node}-debian12:nonroot${digest}\nWORKDIR /app\n`;
const dirs: string[] = [];

/** A build context with a Dockerfile, a .dockerignore and one source file. */
function context(dockerfile: string): string {
  const dir = mkdtempSync(join(tmpdir(), "hco-dockerfile-"));
  dirs.push(dir);
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "main.ts"), "console.log('hi');\n");
  writeFileSync(join(dir, "notes.md"), "not for the image\n");
  writeFileSync(join(dir, ".dockerignore"), "*\n!src/\n");
  writeFileSync(join(dir, "Dockerfile"), dockerfile);
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("reading the Dockerfile", () => {
  test("joins continued lines and drops comments", () => {
    const parsed = parseDockerfile(
      "# syntax=docker/dockerfile:1\nFROM a AS b\n# a comment\nRUN one \\\n # inside\n && two\nENV A=1 \\\n    B=2\n",
    );
    expect(parsed.map((i) => [i.keyword, i.args])).toEqual([
      ["FROM", "a AS b"],
      ["RUN", "one && two"],
      ["ENV", "A=1 B=2"],
    ]);
  });

  test("assembles a small image: context filtered by .dockerignore, env, user, entrypoint", () => {
    const image = assembleImage({
      context: context(
        `${runtime}ENV NODE_ENV=production HOME="/tmp"\nCOPY src ./src\nUSER 65532:65532\nENTRYPOINT ["/nodejs/bin/node", "src/main.ts"]\n`,
      ),
    });
    try {
      expect(image.env).toMatchObject({ NODE_ENV: "production", HOME: "/tmp" });
      expect(image.user).toEqual({ uid: 65532, gid: 65532 });
      // The project's Node, copied where the base image keeps its own.
      const imageNode = join(image.rootfs, "nodejs", "bin", "node");
      expect(image.entrypoint).toEqual([imageNode, "src/main.ts"]);
      expect(statSync(imageNode).size).toBe(statSync(process.execPath).size);
    } finally {
      image.remove();
    }
  });

  test.each([
    [
      "an instruction it does not know",
      `${runtime}ADD src /app/src\n`,
      /does not understand this instruction/,
    ],
    [
      "a RUN of a program the base image lacks",
      `${runtime}RUN apt-get install -y curl\n`,
      /apt-get is not a program/,
    ],
    [
      "an npm command it cannot reproduce",
      `FROM node:${node}-bookworm-slim${digest}\nRUN npm install\n`,
      /this use of npm is not one/,
    ],
    ["an unknown base image", `FROM alpine:3${digest}\n`, /base image alpine:3@sha256:\w+ is not one/],
    ["a Node other than the project's", `FROM node:18-bookworm-slim${digest}\n`, /Node \d+ expected/],
    [
      "a base image by tag alone",
      `FROM gcr.io/distroless/nodejs${node}-debian12:nonroot\n`,
      /is not pinned by digest/,
    ],
    ["a file .dockerignore leaves out", `${runtime}COPY notes.md ./\n`, /not in the build context/],
    ["a shell-form ENTRYPOINT", `${runtime}ENTRYPOINT node src/main.ts\n`, /exec \(JSON array\) form/],
    ["a user name instead of uid:gid", `${runtime}USER nonroot\n`, /numeric uid:gid/],
    [
      "an entrypoint that is not the image's Node",
      `${runtime}ENTRYPOINT ["/bin/sh"]\n`,
      /not the base image's Node/,
    ],
  ])("fails on %s", (_what, dockerfile, message) => {
    expect(() => assembleImage({ context: context(dockerfile) })).toThrow(message);
  });
});
