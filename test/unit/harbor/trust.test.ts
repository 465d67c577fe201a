// Which CAs a connection with a caBundle trusts: Node's default ones and the bundle, or with
// caBundleOnly the bundle alone (Node's `ca` option replaces the defaults, so the transport lists
// them itself). That the bundle makes a private CA's certificate trusted is proven against a TLS
// server in test/integration/cluster/connections.test.ts.
import { getCACertificates } from "node:tls";
import { describe, expect, test } from "vitest";
import { trustedCertificates } from "../../../src/harbor/endpoints.ts";
import { EXAMPLE_CA_PEM } from "../../env/certificates.ts";

describe("a connection's trusted CAs", () => {
  test("by default the bundle is added to Node's default CAs", () => {
    const defaults = getCACertificates("default");
    expect(defaults.length).toBeGreaterThan(0);
    expect(trustedCertificates(EXAMPLE_CA_PEM, false)).toEqual([...defaults, EXAMPLE_CA_PEM]);
  });

  test("with caBundleOnly the bundle alone", () => {
    expect(trustedCertificates(EXAMPLE_CA_PEM, true)).toBe(EXAMPLE_CA_PEM);
  });
});
