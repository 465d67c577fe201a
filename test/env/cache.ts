// Where the tests keep what is costly to make again between runs (built binaries, npm releases,
// Node's compile cache): one folder per purpose under the user's cache directory.
import { homedir } from "node:os";
import { join } from "node:path";

/** `${XDG_CACHE_HOME:-~/.cache}/harbor-config-operator/<what>`. */
export const cacheFolder = (what: string): string =>
  join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "harbor-config-operator", what);
