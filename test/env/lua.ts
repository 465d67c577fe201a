// A real Lua 5.1 interpreter for tests of the Argo CD health check. Argo CD runs health scripts
// with gopher-lua (Lua 5.1 semantics) and only the base and table libraries; runArgoHealth does the
// same: the object arrives as the global `obj`, the script runs in an environment without the
// string, io, os and debug libraries, and strings lose their methods for the duration.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HealthStatus {
  status: string;
  message: string;
}

let found: string | undefined;

/**
 * A Lua 5.1 interpreter: lua5.1, luajit or a `lua` that reports 5.1 on PATH, else Debian's lua5.1
 * installed with apt-get (these machines run tests as root). Throws with what to do otherwise.
 */
export function findLua(): string {
  if (found) return found;
  const probe = () => ["lua5.1", "luajit", "lua"].find((c) => isLua51(c));
  found = probe();
  if (found) return found;
  // Not found: install Debian's package, refreshing the package lists first if that fails.
  const attempts: string[] = [];
  const aptGet = (...args: string[]) => {
    try {
      execFileSync("apt-get", args, {
        stdio: "pipe",
        timeout: 180_000,
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
      return true;
    } catch (e) {
      attempts.push(`apt-get ${args.join(" ")}: ${(e as Error).message.split("\n")[0]}`);
      return false;
    }
  };
  const install = () => aptGet("install", "-y", "--no-install-recommends", "lua5.1");
  if (install() || (aptGet("update") && install())) {
    found = probe();
    if (found) return found;
    attempts.push("lua5.1 was installed but does not run");
  }
  throw new Error(
    `no Lua 5.1 interpreter: none of lua5.1, luajit or lua (5.1) is on PATH and installing Debian's lua5.1 failed (${attempts.join("; ")}). Install one, e.g. \`apt-get install lua5.1\`.`,
  );
}

function isLua51(command: string): boolean {
  // `-v` prints the version (Lua 5.1 on stderr); stdin is closed so that no prompt waits.
  const r = spawnSync(command, ["-v"], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: 10_000,
  });
  return r.status === 0 && /Lua 5\.1|LuaJIT 2/.test(`${r.stdout}${r.stderr}`);
}

/** A JSON value as a Lua table constructor, as Argo CD hands objects to scripts (null: absent). */
export function toLua(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a JSON number: ${value}`);
    return String(value);
  }
  if (typeof value === "string") return luaString(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(", ")}}`;
  if (typeof value === "object") {
    const fields = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `[${luaString(k)}] = ${toLua(v)}`);
    return `{${fields.join(", ")}}`;
  }
  throw new Error(`not a JSON value: ${typeof value}`);
}

function luaString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, "utf8")) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte}`; // decimal escape: control characters and UTF-8 bytes alike
  }
  return `${out}"`;
}

/** What the harness prints between the two: status, then message. */
const SEPARATOR = "\u0001";

const harness = `
local script_path = arg[1]
local f = assert(io.open(script_path, "rb"))
local source = f:read("*a")
f:close()
local chunk, err = loadstring(source, "=health.lua")
if chunk == nil then io.stderr:write("syntax: " .. err) os.exit(2) end
local env = { obj = OBJ }
for _, name in ipairs({ "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
    "rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber", "tostring",
    "type", "unpack", "xpcall", "_VERSION" }) do
  env[name] = _G[name]
end
env.table = table
env._G = env
setfenv(chunk, env)
local strings = getmetatable("")
local methods = strings.__index
strings.__index = nil
local ok, hs = pcall(chunk)
strings.__index = methods
if not ok then io.stderr:write("runtime: " .. tostring(hs)) os.exit(3) end
if type(hs) ~= "table" then io.stderr:write("returned " .. type(hs) .. ", not a table") os.exit(4) end
io.write(tostring(hs.status), "${SEPARATOR}", tostring(hs.message or ""))
`;

/** Runs a health script on an object the way Argo CD does and returns its verdict. */
export async function runArgoHealth(scriptPath: string, obj: unknown): Promise<HealthStatus> {
  const lua = findLua();
  const dir = mkdtempSync(join(tmpdir(), "hco-lua-"));
  try {
    const file = join(dir, "harness.lua");
    writeFileSync(file, `local OBJ = ${toLua(obj)}\n${harness}`);
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(lua, [file, scriptPath], { timeout: 10_000, encoding: "utf8" }, (err, out, stderr) => {
        if (err) reject(new Error(`the health script failed: ${stderr.trim() || err.message}`));
        else resolve(out);
      });
    });
    const at = stdout.indexOf(SEPARATOR);
    if (at < 0) throw new Error(`unexpected output of the harness: ${JSON.stringify(stdout)}`);
    return { status: stdout.slice(0, at), message: stdout.slice(at + SEPARATOR.length) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
