// `npm run emulator -- [--port 8080] [--host 127.0.0.1] [--admin-password pw] [--latency-ms 10]
//                     [--harbor-version 2.15.2|2.14.4|2.13.5|2.12.4|2.10.3]
//                     [--replication-adapter-whitelist harbor,docker-hub,…]
//                     [--webhook-private-addresses refuse|allow] [--allow-external-webhooks]`
// Starts the Harbor emulator standalone. The first line of output carries the URL, credentials and
// the Harbor release modelled; it serves until SIGTERM or SIGINT. What each release and setting
// changes: VERSIONS.md.
import { parseArgs } from "node:util";
import { DEFAULT_ADMIN_PASSWORD, startEmulator } from "./server.ts";
import { DEFAULT_HARBOR_VERSION, HARBOR_VERSIONS, HarborVersion } from "./version.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    "admin-password": { type: "string", default: DEFAULT_ADMIN_PASSWORD },
    "latency-ms": { type: "string", default: "0" },
    "harbor-version": { type: "string", default: DEFAULT_HARBOR_VERSION },
    // REPLICATION_ADAPTER_WHITELIST (2.14+): a comma list; "" for the variable unset. Default: the
    // default install's.
    "replication-adapter-whitelist": { type: "string" },
    // As the patches 2.13.6, 2.14.5 and 2.15.3 (refuse) or the modelled ones (allow, the default).
    "webhook-private-addresses": { type: "string", default: "allow" },
    // Webhooks go to loopback addresses only unless this is given.
    "allow-external-webhooks": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  process.stdout.write(
    `Usage: npm run emulator -- [--port N] [--host H] [--admin-password PW] [--latency-ms MS] [--harbor-version ${HARBOR_VERSIONS.join("|")}] [--replication-adapter-whitelist TYPE,…] [--webhook-private-addresses refuse|allow] [--allow-external-webhooks]\n`,
  );
  process.exit(0);
}

const port = Number(values.port);
const latencyMs = Number(values["latency-ms"]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be an integer between 0 and 65535, got ${values.port}\n`);
  process.exit(2);
}
if (!Number.isFinite(latencyMs) || latencyMs < 0) {
  process.stderr.write(`--latency-ms must be a non-negative number, got ${values["latency-ms"]}\n`);
  process.exit(2);
}
const harborVersion = values["harbor-version"].replace(/^v/, "");
if (!(HARBOR_VERSIONS as readonly string[]).includes(harborVersion)) {
  process.stderr.write(
    `--harbor-version must be one of ${HARBOR_VERSIONS.join(", ")}, got ${values["harbor-version"]}\n`,
  );
  process.exit(2);
}

const privateAddresses = values["webhook-private-addresses"];
if (privateAddresses !== "refuse" && privateAddresses !== "allow") {
  process.stderr.write(`--webhook-private-addresses must be refuse or allow, got ${privateAddresses}\n`);
  process.exit(2);
}
if (privateAddresses === "refuse" && !new HarborVersion(harborVersion).atLeast("2.13")) {
  process.stderr.write(
    `--webhook-private-addresses refuse models the patches 2.13.6, 2.14.5 and 2.15.3; Harbor ${harborVersion} has none\n`,
  );
  process.exit(2);
}
const whitelist = values["replication-adapter-whitelist"];

const emulator = await startEmulator({
  port,
  host: values.host,
  adminPassword: values["admin-password"],
  latencyMs,
  harborVersion,
  ...(whitelist === undefined
    ? {}
    : {
        replicationAdapterWhitelist:
          whitelist.trim() === ""
            ? null
            : whitelist
                .split(",")
                .map((t) => t.trim())
                .filter(Boolean),
      }),
  webhookPrivateAddresses: privateAddresses,
  allowExternalWebhooks: values["allow-external-webhooks"],
});
process.stdout.write(
  `Harbor emulator ready: url=${emulator.url} username=${emulator.adminUsername} password=${emulator.adminPassword} control=${emulator.url}/_emulator harbor=${emulator.harborVersion}\n`,
);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    void emulator.close().then(() => process.exit(0));
  });
}
