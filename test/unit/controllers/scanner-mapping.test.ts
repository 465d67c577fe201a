import { describe, expect, test } from "vitest";
import { HarborScannerRegistrationSpec } from "../../../src/api/scanner.ts";
import { DEFAULT_SCANNER_CLAIM, scannerExternal } from "../../../src/controllers/scanner/external.ts";
import {
  adapterStatus,
  builtInProblem,
  diff,
  type ObservedScanner,
  registrationRequest,
  type ScannerCredential,
  status,
} from "../../../src/controllers/scanner/mapping.ts";
import type { SecretUses } from "../../../src/controllers/shared/secret-uses.ts";
import { inputOf } from "./fakes.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborScannerRegistrationSpec.parse({ connectionRef: { name: "h" }, url: "http://adapter:8080", ...s });

const bearer = (s: Record<string, unknown> = {}) =>
  spec({ auth: { type: "Bearer", secretRef: { name: "token" } }, ...s });

const cred: ScannerCredential = { value: "t0ken-value", version: "17" };

/** A registration as Harbor 2.12 returns it after storing `spec`. */
const harbor = (r: Partial<ObservedScanner> = {}): ObservedScanner => ({
  uuid: "0b6a2c7e-1111-4222-8333-444455556666",
  name: "team",
  url: "http://adapter:8080",
  description: "",
  auth: "",
  access_credential: "",
  disabled: false,
  is_default: false,
  skip_certVerify: false,
  use_internal_addr: false,
  ...r,
});

describe("the registration request", () => {
  test("create: the spec's fields, Harbor's defaults for the rest, the credential from the Secret", () => {
    expect(registrationRequest(bearer({ description: "d", useInternalAddr: true }), "team", cred)).toEqual({
      name: "team",
      url: "http://adapter:8080",
      description: "d",
      auth: "Bearer",
      access_credential: "t0ken-value",
      skip_certVerify: false,
      use_internal_addr: true,
      disabled: false,
    });
  });

  test("update: fields the spec leaves unset keep Harbor's values, the shown credential included", () => {
    const current = harbor({
      description: "set in the UI",
      auth: "APIKey",
      access_credential: "k3y",
      skip_certVerify: true,
      disabled: true,
    });
    expect(registrationRequest(spec({ url: "http://moved:8080" }), "team", undefined, current)).toEqual({
      name: "team",
      url: "http://moved:8080",
      description: "set in the UI",
      auth: "APIKey",
      access_credential: "k3y",
      skip_certVerify: true,
      use_internal_addr: false,
      disabled: true,
    });
  });

  test("auth None clears Harbor's credential; a default registration is enabled unless the spec says otherwise", () => {
    const current = harbor({ auth: "Bearer", access_credential: "old", disabled: true });
    const req = registrationRequest(
      spec({ auth: { type: "None" }, default: true }),
      "team",
      undefined,
      current,
    );
    expect(req.auth).toBe("");
    expect(req).not.toHaveProperty("access_credential");
    expect(req.disabled).toBe(false);
  });
});

describe("diff", () => {
  test("in sync, with Harbor's normalised URL and omitted false flags", () => {
    const r = harbor({ url: "http://adapter:8080", auth: "Bearer", access_credential: "t0ken-value" });
    delete r.disabled;
    delete r.skip_certVerify;
    expect(
      diff(
        bearer({ url: "http://adapter:8080/", disabled: false, skipCertVerify: false }),
        "team",
        cred,
        "17",
        r,
      ),
    ).toEqual([]);
  });

  test("unset fields are not compared", () => {
    const r = harbor({ description: "ui", skip_certVerify: true, use_internal_addr: true, disabled: true });
    expect(diff(spec({ url: undefined }), "team", undefined, undefined, r)).toEqual([]);
  });

  test("every managed field is named when it differs", () => {
    const s = bearer({
      description: "wanted",
      skipCertVerify: true,
      useInternalAddr: true,
      disabled: true,
    });
    const r = harbor({ url: "http://other:8080", auth: "APIKey" });
    expect(diff(s, "team", cred, "17", r)).toEqual([
      "url",
      "description",
      "auth.type",
      "skipCertVerify",
      "useInternalAddr",
      "disabled",
    ]);
  });

  test("the credential: another Secret version, or another value where Harbor shows one", () => {
    const shown = harbor({ auth: "Bearer", access_credential: "t0ken-value" });
    expect(diff(bearer(), "team", cred, "16", shown)).toEqual(["auth.secretRef"]);
    const changedInHarbor = harbor({ auth: "Bearer", access_credential: "typed-in-the-ui" });
    expect(diff(bearer(), "team", cred, "17", changedInHarbor)).toEqual(["auth.secretRef"]);
    // A Harbor that never shows the credential (2.14.4 on: "" or absent): the version alone decides,
    // so a drift sweep does not push it again.
    const hidden = harbor({ auth: "Bearer", access_credential: "" });
    expect(diff(bearer(), "team", cred, "17", hidden)).toEqual([]);
    expect(diff(bearer(), "team", cred, "17", { ...hidden, access_credential: undefined })).toEqual([]);
    expect(diff(bearer(), "team", cred, "16", hidden)).toEqual(["auth.secretRef"]);
  });

  test("default: true wants Harbor's default, enabled; false manages neither", () => {
    expect(diff(spec({ default: true }), "team", undefined, undefined, harbor())).toEqual(["default"]);
    expect(
      diff(
        spec({ default: true }),
        "team",
        undefined,
        undefined,
        harbor({ is_default: true, disabled: true }),
      ),
    ).toEqual(["disabled"]);
    expect(diff(spec(), "team", undefined, undefined, harbor({ is_default: true }))).toEqual([]);
  });
});

describe("Harbor's built-in Trivy", () => {
  const trivy = harbor({
    name: "Trivy",
    url: "http://trivy-adapter:8080",
    description: "The Trivy scanner adapter",
    use_internal_addr: true,
  });

  test("a differing spec is refused with Harbor's values, never a credential", () => {
    const s = bearer({
      name: "Trivy",
      creationPolicy: "Adopt",
      url: "http://mine:8080",
      useInternalAddr: false,
    });
    const drift = diff(s, "Trivy", cred, undefined, trivy);
    expect(drift).toEqual(["url", "auth.type", "useInternalAddr"]);
    const problem = builtInProblem(s, trivy, drift) ?? "";
    expect(problem).toContain('spec.url (Harbor has "http://trivy-adapter:8080")');
    expect(problem).toContain('spec.auth.type (Harbor has "None")');
    expect(problem).toContain("spec.useInternalAddr (Harbor has true)");
    expect(problem).toContain("only spec.default can be applied");
    expect(problem).not.toContain("t0ken-value");
  });

  test("only the default differing is no problem: Harbor lets it move", () => {
    const s = spec({ name: "Trivy", creationPolicy: "Adopt", url: undefined, default: true });
    expect(builtInProblem(s, trivy, diff(s, "Trivy", undefined, undefined, trivy))).toBeUndefined();
    expect(status(trivy, undefined)).toEqual({ isDefault: false, builtIn: true });
  });
});

describe("status", () => {
  test("the registration's: whether it is the default, the credential version pushed", () => {
    expect(status(harbor({ is_default: true }), cred)).toEqual({ isDefault: true, credentialsVersion: "17" });
    expect(status(harbor(), undefined)).toEqual({ isDefault: false });
  });

  test("the adapter's, from its metadata: health, who it is, what it scans for", () => {
    expect(
      adapterStatus({
        scanner: { name: "Trivy", vendor: "Aqua Security", version: "v0.56.1" },
        capabilities: [{ type: "vulnerability" }, { type: "sbom" }, {}],
      }),
    ).toEqual({
      health: "healthy",
      adapter: { name: "Trivy", vendor: "Aqua Security", version: "v0.56.1" },
      capabilities: ["vulnerability", "sbom"],
    });
    // Harbor could not reach it: only the health changes.
    expect(adapterStatus(undefined)).toEqual({ health: "unhealthy" });
  });
});

describe("what the shared lifecycle asks of the kind", () => {
  const ext = scannerExternal({ secrets: {} as SecretUses, statusRefreshMs: 3_600_000 });

  test("one resource per registration name in a Harbor, from any namespace; adopted only by its exact name", () => {
    expect(ext.claim(spec(), "team", "a")).toBe(ext.claim(bearer(), "team", "b"));
    expect(ext.claim(spec(), "team", "a")).not.toBe(ext.claim(spec(), "other", "a"));
    const input = inputOf(spec(), { harborName: "team" });
    expect(ext.identifies?.(input as never, harbor({ name: "team" }))).toBe(true);
    for (const name of ["Team", "team ", "team-2"])
      expect(ext.identifies?.(input as never, harbor({ name })), name).toBe(false);
  });

  test("default: true also takes Harbor's default scanner, a setting of its own, held while status shows it", () => {
    expect(ext.setting?.(spec())).toBeUndefined();
    expect(ext.setting?.(spec({ default: false }))).toBeUndefined();
    const taken = ext.setting?.(spec({ default: true }));
    expect(taken).toEqual({
      claim: DEFAULT_SCANNER_CLAIM,
      what: "Harbor's default scanner (spec.default: true)",
    });
    // Another kind's or another registration's claim never meets it.
    expect(taken?.claim).not.toBe(ext.claim(spec(), "team", "a"));
    expect(ext.holdsSetting?.({ isDefault: true } as never)).toBe(true);
    expect(ext.holdsSetting?.({ isDefault: false } as never)).toBe(false);
    expect(ext.holdsSetting?.({} as never)).toBe(false);
  });
});
