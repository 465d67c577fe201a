// A local Git repository for Argo CD to sync from, as a team's configuration repository: a folder
// of YAML files on branch main, changed by commits. Argo CD's repo server clones it through a
// file:// URL with the machine's git, so nothing leaves the machine.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";

const run = promisify(execFile);

export interface GitRepo {
  /** What an Application's source.repoURL says. */
  readonly url: string;
  readonly path: string;
  /** Writes files (path → YAML documents, or text), removes those mapped to null, commits; returns the commit. */
  commit(message: string, files: Record<string, object[] | string | null>): Promise<string>;
  /** Removes the repository. */
  remove(): void;
}

// The machine's and the user's git configuration play no part: the test's commits look the same anywhere.
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Platform Team",
  GIT_AUTHOR_EMAIL: "platform@example.com",
  GIT_COMMITTER_NAME: "Platform Team",
  GIT_COMMITTER_EMAIL: "platform@example.com",
};

export async function createGitRepo(): Promise<GitRepo> {
  const path = mkdtempSync(join(tmpdir(), "hco-git-"));
  const git = async (...args: string[]) => (await run("git", args, { cwd: path, env })).stdout.trim();
  await git("init", "--quiet", "--initial-branch=main");
  return {
    url: `file://${path}`,
    path,
    async commit(message, files) {
      for (const [file, content] of Object.entries(files)) {
        const target = join(path, file);
        if (content === null) {
          rmSync(target, { force: true });
          continue;
        }
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(
          target,
          typeof content === "string" ? content : content.map((doc) => stringify(doc)).join("---\n"),
        );
      }
      await git("add", "--all");
      await git("commit", "--quiet", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD");
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
