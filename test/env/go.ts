// What the builds of Go binaries for the tests share (the control plane, Argo CD, Helm): finding
// Go, checking for a built binary, and the elapsed time of a build for its progress lines.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

/** The Go command, or undefined when the machine has none. */
export function findGo(): string | undefined {
  // /usr/local/go is where Go's own installer puts it, often not on a non-login shell's PATH.
  return ["go", "/usr/local/go/bin/go"].find(
    (candidate) => spawnSync(candidate, ["env", "GOVERSION"], { stdio: "ignore" }).status === 0,
  );
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** "42s" or "4m36s" since `since` (a Date.now()). */
export function elapsed(since: number): string {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
