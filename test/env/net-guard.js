// The network guard: loaded into every Node process of the test run and of the local demo
// (`--import` in NODE_OPTIONS, which child processes inherit: vitest's workers, the operator, the
// emulator's CLI, npm), it refuses any TCP connection to an address that is not loopback, any DNS
// lookup of a name other than localhost, and every DNS resolver query. A refused attempt fails at
// once with an error (code ENETGUARD) that names the host, is printed on stderr, and is appended to
// the JSON-lines file named by $HCO_NET_GUARD_LOG, which `npm test` and the demo test read to fail.
// Each armed process records itself there too, so a test can tell that the guard was loaded.
//
// Covered: net.Socket#connect (so net.connect, tls.connect, http(s), http2, undici and fetch),
// dns.lookup / lookupService / resolve* / reverse and their promise and Resolver forms. Not
// covered: UDP sockets, and processes that are not Node (go, kubectl, the control plane, docker).
// Plain JavaScript on purpose: it must load into any Node, npm's included.
import dns from "node:dns";
import { appendFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const ARMED = Symbol.for("harbor-config-operator.net-guard");

/** Loopback: 127.0.0.0/8, ::1 (also IPv4-mapped), and the name localhost. */
export function isLoopback(host) {
  const h = String(host ?? "")
    .replace(/^\[|\]$/g, "")
    .toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (net.isIPv6(h)) {
    if (h === "::1" || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped?.[1]?.startsWith("127.") === true;
  }
  return false;
}

function record(entry) {
  const file = process.env.HCO_NET_GUARD_LOG;
  if (!file) return;
  try {
    appendFileSync(
      file,
      `${JSON.stringify({ ...entry, pid: process.pid, argv: process.argv.slice(1, 3) })}\n`,
    );
  } catch {
    // A log that cannot be written must not change what the process does.
  }
}

function refuse(what, target) {
  const message = `network guard: refused ${what} ${target} (tests and the local demo reach loopback only)`;
  const stack = (new Error().stack ?? "").split("\n").slice(3, 12).join("\n");
  record({ event: "refused", what, target, stack });
  process.stderr.write(`${message}\n`);
  const error = new Error(message);
  error.code = "ENETGUARD";
  return error;
}

/** Where a Socket#connect call goes: undefined for a local (IPC) path. */
function destination(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === "object") {
    if (first.path) return undefined;
    return { host: first.host ?? "localhost", port: first.port };
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const second = Array.isArray(args[0]) ? undefined : args[1];
    return { host: typeof second === "string" ? second : "localhost", port: first };
  }
  return undefined;
}

function arm() {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const to = destination(args);
    if (to && !isLoopback(to.host)) {
      const error = refuse("a connection to", `${to.host}:${to.port}`);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return connect.apply(this, args);
  };

  const lookup = dns.lookup;
  dns.lookup = function guardedLookup(hostname, options, callback) {
    // An address needs no query; a name other than localhost would go to the network.
    if (net.isIP(String(hostname)) === 0 && !isLoopback(hostname)) {
      const error = refuse("a DNS lookup of", hostname);
      const cb = typeof options === "function" ? options : callback;
      process.nextTick(() => cb(error));
      return {};
    }
    return lookup.call(this, hostname, options, callback);
  };
  const lookupAsync = dns.promises.lookup;
  dns.promises.lookup = function guardedLookup(hostname, options) {
    if (net.isIP(String(hostname)) === 0 && !isLoopback(hostname)) {
      return Promise.reject(refuse("a DNS lookup of", hostname));
    }
    return lookupAsync.call(this, hostname, options);
  };

  // Resolver queries always ask a DNS server, whatever the name.
  const queries = (o) =>
    Object.getOwnPropertyNames(o).filter(
      (k) => /^(resolve|reverse|lookupService)/.test(k) && typeof o[k] === "function",
    );
  for (const target of [dns, dns.Resolver.prototype]) {
    for (const name of queries(target)) {
      target[name] = function guardedQuery(...args) {
        const error = refuse(`a DNS query (${name}) for`, args[0]);
        const cb = args.findLast((a) => typeof a === "function");
        if (cb) process.nextTick(() => cb(error));
        return {};
      };
    }
  }
  for (const target of [dns.promises, dns.promises.Resolver.prototype]) {
    for (const name of queries(target)) {
      target[name] = (...args) => Promise.reject(refuse(`a DNS query (${name}) for`, args[0]));
    }
  }
  syncBuiltinESMExports();
  record({ event: "armed" });
}

if (!globalThis[ARMED]) {
  globalThis[ARMED] = true;
  arm();
}
