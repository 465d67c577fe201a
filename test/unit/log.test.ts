// The logger never lets a secret through: fields named like secrets at any depth and in any
// letter case, child bindings, errors and their causes, and credentials inside text are masked,
// while identifiers stay readable.
import { describe, expect, it } from "vitest";
import { createLogger, isSecretField, type Logger, REDACTED } from "../../src/log.ts";

function capture(level: "debug" | "info" = "debug"): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
  raw: () => string;
} {
  let out = "";
  const logger = createLogger(
    { logLevel: level },
    {
      write(s: string) {
        out += s;
      },
    },
  );
  return {
    logger,
    raw: () => out,
    lines: () =>
      out
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

// Every value below is a secret that must never appear in the output.
const SECRETS = [
  "hunter2-top",
  "robot-secret-9f8e7d",
  "tok-abc123def",
  "czNjcjN0LWJhc2U2NA==",
  "harbor-admin-pw",
  "basicpw-77",
  "bearer-xyz-42",
  "urlpass-55",
  "sk-nested-deep",
  "cookie-val-1",
  "child-binding-pw",
  "cause-secret-3",
  "printf-pw-8",
  "err-field-pw",
];

describe("createLogger", () => {
  it("masks secrets in fields, bindings, errors and text, and keeps identifiers", () => {
    const { logger, raw, lines } = capture();

    logger.info(
      {
        password: "hunter2-top",
        robot: { name: "robot$ci", secret: "robot-secret-9f8e7d" },
        Authorization: "Bearer tok-abc123def",
        headers: { authorization: "Basic czNjcjN0LWJhc2U2NA==", "x-request-id": "req-1" },
        secretRef: { name: "harbor-admin", key: "password" },
        data: { password: "harbor-admin-pw" },
        level1: { level2: { level3: { level4: { accessSecret: "sk-nested-deep" } } } },
        list: [{ access_secret: "sk-nested-deep" }],
        "Set-Cookie": "cookie-val-1",
        key: "team-a/my-project",
      },
      "connection checked",
    );
    logger.child({ password: "child-binding-pw", controller: "harborproject" }).warn("reconcile failed");
    logger.child({ nested: { token: "child-binding-pw" } }).info("child nested");

    const err = Object.assign(
      new Error("login to https://admin:urlpass-55@harbor.example failed: Basic YmFzaWNwdy03Nw=="),
      {
        password: "err-field-pw",
        status: 401,
      },
    );
    err.cause = { authHeader: "Basic Y2F1c2Utc2VjcmV0LTM=", secretValue: "cause-secret-3" };
    logger.error({ err }, "request failed");
    logger.info("retrying with Authorization: Bearer bearer-xyz-42");
    logger.info("printf %s then %o", "Basic basicpw-77", { password: "printf-pw-8" });

    const text = raw();
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    // The base64 of secrets too (basic auth carries user:password encoded).
    expect(text).not.toContain("YmFzaWNwdy03Nw==");
    expect(text).not.toContain("Y2F1c2Utc2VjcmV0LTM=");

    const [first, child, childNested, error, bearer] = lines();
    expect(first).toMatchObject({
      password: REDACTED,
      robot: { name: "robot$ci", secret: REDACTED },
      Authorization: REDACTED,
      headers: { authorization: REDACTED, "x-request-id": "req-1" },
      secretRef: { name: "harbor-admin", key: "password" },
      data: REDACTED,
      key: "team-a/my-project",
      msg: "connection checked",
    });
    expect(child).toMatchObject({ password: REDACTED, controller: "harborproject" });
    expect(childNested).toMatchObject({ nested: { token: REDACTED } });
    expect(error?.err).toMatchObject({
      type: "Error",
      message: expect.stringContaining("harbor.example failed"),
      password: REDACTED,
      status: 401,
    });
    expect(bearer?.msg).toBe(`retrying with Authorization: Bearer ${REDACTED}`);
  });

  it("masks an error logged on its own, message included", () => {
    const { logger, raw, lines } = capture();
    logger.error(
      Object.assign(new Error("GET https://u:urlpass-55@h/x: Bearer bearer-xyz-42"), {
        token: "tok-abc123def",
      }),
    );
    const text = raw();
    for (const secret of ["urlpass-55", "bearer-xyz-42", "tok-abc123def"]) expect(text).not.toContain(secret);
    expect(lines()[0]).toMatchObject({
      level: "error",
      err: { type: "Error", token: REDACTED },
      msg: expect.stringContaining("GET https://"),
    });
  });

  it("writes ISO timestamps and the level as a label, and honours the level", () => {
    const { logger, lines } = capture("info");
    logger.debug("hidden");
    logger.child({ reconcileId: "r-1" }).info({ harborId: 7 }, "shown");
    const all = lines();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ level: "info", reconcileId: "r-1", harborId: 7, msg: "shown" });
    expect(String(all[0]?.time)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("survives circular and very deep objects", () => {
    const { logger, lines } = capture();
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    logger.info({ a }, "circular");
    expect(lines()[0]).toMatchObject({ a: { name: "a", self: "[Circular]" } });
  });
});

describe("isSecretField", () => {
  it.each([
    "password",
    "adminPassword",
    "PASSWORD",
    "secret",
    "robotSecret",
    "token",
    "accessToken",
    "authorization",
    "authHeader",
    "accessSecret",
    "access_secret",
    "access_credential",
    "data",
    "stringData",
    "client-key-data",
    "x-api-key",
  ])("%s is secret", (name) => expect(isSecretField(name)).toBe(true));

  it.each([
    "name",
    "secretName",
    "secretRef",
    "key",
    "reconcileId",
    "requestId",
    "tokenExpiry",
    "harborId",
    "namespace",
  ])("%s is not", (name) => expect(isSecretField(name)).toBe(false));
});
