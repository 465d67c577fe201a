// Kubeconfig files for the test control plane. Credentials are embedded, so that a file stands
// alone: it can be handed to kubectl, the operator, or copied elsewhere.
import { readFileSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";

export type KubeconfigCredentials = { clientCert: string; clientKey: string } | { token: string };

export interface KubeconfigOptions {
  server: string;
  /** PEM file of the CA that signed the apiserver's serving certificate. */
  caCert: string;
  user: string;
  credentials: KubeconfigCredentials;
  namespace?: string;
}

export function writeKubeconfig(path: string, opts: KubeconfigOptions): string {
  const user =
    "token" in opts.credentials
      ? { token: opts.credentials.token }
      : {
          "client-certificate-data": base64File(opts.credentials.clientCert),
          "client-key-data": base64File(opts.credentials.clientKey),
        };
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "test",
        cluster: { server: opts.server, "certificate-authority-data": base64File(opts.caCert) },
      },
    ],
    users: [{ name: opts.user, user }],
    contexts: [
      {
        name: opts.user,
        context: {
          cluster: "test",
          user: opts.user,
          ...(opts.namespace ? { namespace: opts.namespace } : {}),
        },
      },
    ],
    "current-context": opts.user,
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

function base64File(path: string): string {
  return readFileSync(path).toString("base64");
}
