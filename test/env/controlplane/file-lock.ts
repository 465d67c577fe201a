// A lock file shared by every process on the machine, so that two test runs started at the same
// time do not both spend minutes building the same binaries. The file holds the owner's pid; a lock
// whose owner has died (killed mid-build) is taken over rather than waited for. The lock only saves
// time: what it guards must stay correct without it (builds land by atomic rename).
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive } from "./processes.ts";

export async function withFileLock<T>(
  path: string,
  onWait: (ownerPid: number) => void,
  fn: () => Promise<T>,
): Promise<T> {
  let reportedOwner: number | undefined;
  while (!tryAcquire(path)) {
    const owner = readOwner(path);
    if (owner !== undefined && !isAlive(owner)) {
      rmSync(path, { force: true });
      continue;
    }
    if (owner !== undefined && owner !== reportedOwner) onWait(owner);
    reportedOwner = owner;
    await sleep(1000);
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

function tryAcquire(path: string): boolean {
  // Written aside and linked into place, so the lock never exists without its owner's pid in it.
  const candidate = `${path}.${process.pid}`;
  writeFileSync(candidate, String(process.pid));
  try {
    linkSync(candidate, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(candidate, { force: true });
  }
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
