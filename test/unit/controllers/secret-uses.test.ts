// Which Secrets may be sent where a resource says, and what a refusal tells the user.
import { describe, expect, test } from "vitest";
import { SECRET_USES, USABLE_AS_ANNOTATION } from "../../../src/api/common.ts";
import { allowedUses, refusal } from "../../../src/controllers/shared/secret-uses.ts";

const usableAs = (value: string) => ({ [USABLE_AS_ANNOTATION]: value, other: "x" });

describe("allowedUses", () => {
  test("reads the comma-separated uses, spaces allowed, unknown words and repeats dropped", () => {
    expect(allowedUses(undefined)).toEqual([]);
    expect(allowedUses({})).toEqual([]);
    expect(allowedUses(usableAs(""))).toEqual([]);
    expect(allowedUses(usableAs("webhook-auth-header"))).toEqual(["webhook-auth-header"]);
    expect(allowedUses(usableAs(" registry-credential , webhook-auth-header,registry-credential"))).toEqual([
      "registry-credential",
      "webhook-auth-header",
    ]);
    expect(allowedUses(usableAs("Webhook-Auth-Header,webhook_auth_header,anything,*"))).toEqual([]);
  });

  test("only the annotation counts, not labels or other annotations", () => {
    expect(allowedUses({ "harborconfig.io/usable": "webhook-auth-header" })).toEqual([]);
  });
});

describe("refusal", () => {
  test("a Secret that names the use may be used for it", () => {
    expect(
      refusal(
        { name: "ci-token", connectionCredentials: false, annotations: usableAs("webhook-auth-header") },
        SECRET_USES.webhookAuthHeader,
      ),
    ).toBeUndefined();
    expect(
      refusal(
        {
          name: "hub",
          connectionCredentials: false,
          annotations: usableAs("webhook-auth-header,registry-credential"),
        },
        SECRET_USES.registryCredential,
      ),
    ).toBeUndefined();
  });

  test("a Secret without the annotation is refused with the command that opts it in", () => {
    expect(refusal({ name: "ci-token", connectionCredentials: false }, SECRET_USES.webhookAuthHeader)).toBe(
      "Secret ci-token is not allowed as a webhook auth header: it does not opt in with the harborconfig.io/usable-as annotation. To allow it: kubectl annotate secret ci-token harborconfig.io/usable-as=webhook-auth-header",
    );
    expect(
      refusal({ name: "hub", connectionCredentials: false, annotations: {} }, SECRET_USES.registryCredential),
    ).toMatch(/kubectl annotate secret hub harborconfig\.io\/usable-as=registry-credential$/);
  });

  test("a Secret opted in for other uses is refused; the command keeps those uses and overwrites", () => {
    expect(
      refusal(
        { name: "hub", connectionCredentials: false, annotations: usableAs("registry-credential, typo") },
        SECRET_USES.scannerCredential,
      ),
    ).toBe(
      "Secret hub is not allowed as a scanner credential: its harborconfig.io/usable-as annotation does not name scanner-credential. To allow it: kubectl annotate --overwrite secret hub harborconfig.io/usable-as=registry-credential,scanner-credential",
    );
  });

  test("a connection's own credentials opt in like any use; a Secret elsewhere is named with its namespace", () => {
    expect(
      refusal(
        { name: "creds", connectionCredentials: false, annotations: usableAs("harbor-connection") },
        SECRET_USES.harborConnection,
      ),
    ).toBeUndefined();
    expect(
      refusal(
        { name: "creds", namespace: "platform", connectionCredentials: false },
        SECRET_USES.harborConnection,
      ),
    ).toBe(
      `Secret platform/creds is not allowed as a Harbor connection's credentials: it does not opt in with the ${USABLE_AS_ANNOTATION} annotation. To allow it: kubectl annotate -n platform secret creds ${USABLE_AS_ANNOTATION}=harbor-connection`,
    );
  });

  test("a connection's Secret is refused for every use, annotated or not, without an opt-in command", () => {
    for (const use of Object.values(SECRET_USES)) {
      for (const annotations of [undefined, usableAs(Object.values(SECRET_USES).join(","))]) {
        const message = refusal(
          { name: "harbor-credentials", connectionCredentials: true, annotations },
          use,
        );
        expect(message).toContain("Secret harbor-credentials holds the credentials of a Harbor connection");
        expect(message).toContain("a connection's credentials can never be used as");
        expect(message).not.toContain("kubectl annotate");
      }
    }
  });

  test("the message shows only known use names, never the annotation as written", () => {
    const message = refusal(
      { name: "s", connectionCredentials: false, annotations: usableAs("Bearer abc123,registry-credential") },
      SECRET_USES.webhookAuthHeader,
    );
    expect(message).not.toContain("abc123");
    expect(message).toMatch(/usable-as=registry-credential,webhook-auth-header$/);
  });
});
