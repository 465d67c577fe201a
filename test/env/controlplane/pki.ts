// Certificates and keys of one control plane, made fresh for each start with the openssl CLI
// (Node can make keys but not certificates). EC P-256 keys: generated in microseconds, accepted by
// every component. Client certificates carry the identity: CN is the user, O the groups.

import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CertPair {
  cert: string;
  key: string;
}

export interface Pki {
  /** Signs every certificate below; clients trust the apiserver through it. */
  ca: CertPair;
  /** The apiserver's serving certificate. */
  apiserver: CertPair;
  /** user admin in group system:masters: everything, bypassing RBAC, as a cluster's admin.conf. */
  admin: CertPair;
  /** user system:kube-controller-manager, bound by the bootstrap RBAC policy to what it needs. */
  controllerManager: CertPair;
  /** The apiserver signs ServiceAccount tokens with the private key, and checks them with the public one. */
  serviceAccount: { key: string; publicKey: string };
}

/** Where the apiserver answers: loopback, and the names a pod would use for the kubernetes Service. */
const serverNames = [
  "IP:127.0.0.1",
  "IP:10.0.0.1",
  "DNS:localhost",
  "DNS:kubernetes",
  "DNS:kubernetes.default",
  "DNS:kubernetes.default.svc",
  "DNS:kubernetes.default.svc.cluster.local",
];

// The extensions of each kind of certificate; a config file of our own so that the machine's
// openssl.cnf does not matter.
const opensslConfig = `
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = ${serverNames.join(", ")}
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
`;

export function createPki(dir: string): Pki {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "openssl.cnf");
  writeFileSync(config, opensslConfig);

  const ca = { cert: join(dir, "ca.crt"), key: writeKey(join(dir, "ca.key")) };
  const subj = "/CN=harbor-config-operator-test-ca";
  openssl("req", ["-x509", "-new"], {
    config,
    extensions: "ca",
    days: "30",
    key: ca.key,
    subj,
    out: ca.cert,
  });

  let serial = 1;
  const issue = (name: string, subj: string, extensions: "server" | "client"): CertPair => {
    const pair = { cert: join(dir, `${name}.crt`), key: writeKey(join(dir, `${name}.key`)) };
    const csr = join(dir, `${name}.csr`);
    openssl("req", ["-new"], { config, key: pair.key, subj, out: csr });
    openssl("x509", ["-req"], {
      in: csr,
      CA: ca.cert,
      CAkey: ca.key,
      set_serial: String(++serial),
      days: "30",
      extfile: config,
      extensions,
      out: pair.cert,
    });
    return pair;
  };

  return {
    ca,
    apiserver: issue("apiserver", "/CN=kube-apiserver", "server"),
    admin: issue("admin", "/O=system:masters/CN=admin", "client"),
    controllerManager: issue("controller-manager", "/CN=system:kube-controller-manager", "client"),
    serviceAccount: {
      key: writeKey(join(dir, "service-account.key"), join(dir, "service-account.pub")),
      publicKey: join(dir, "service-account.pub"),
    },
  };
}

function writeKey(path: string, publicKeyPath?: string): string {
  const { privateKey, publicKey } = generateKeyPairSync("ec", {
    namedCurve: "P-256",
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  writeFileSync(path, privateKey, { mode: 0o600 });
  if (publicKeyPath) writeFileSync(publicKeyPath, publicKey);
  return path;
}

function openssl(command: string, switches: string[], options: Record<string, string>): void {
  const args = [
    command,
    ...switches,
    ...Object.entries(options).flatMap(([name, value]) => [`-${name}`, value]),
  ];
  const r = spawnSync("openssl", args, { encoding: "utf8" });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    throw new Error(
      "openssl is needed to make the test control plane's certificates: install it (apt-get install openssl)",
    );
  }
  if (r.status !== 0) throw new Error(`openssl ${command} failed: ${r.stderr || r.error?.message}`);
}
