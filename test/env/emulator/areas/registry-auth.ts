// The registry's token service (/service/token) and the registry's ping (/v2/): enough of Harbor's
// Docker registry auth for a test to prove that credentials, e.g. a delivered pull secret, work.
//
// As in Harbor: the token lists, per requested repository, every action the caller may perform
// there (pull, push, delete, scanner-pull, and "*" when it has the first three), whatever actions
// were asked for; wrong basic-auth credentials make the caller anonymous (a token with public
// access only), and only an anonymous request without any scope (what `docker login` sends) is
// refused with 401. Both routes are outside /api/v2.0; the area has nothing to control.
import { createHash, generateKeyPairSync, type KeyObject, randomInt, sign, verify } from "node:crypto";
import { type Caller, callerName, canProject, isSysAdmin } from "../auth.ts";
import { ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

const REGISTRY_SERVICE = "harbor-registry";
const TOKEN_ISSUER = "harbor-token-issuer";
/** Harbor's token_expiration default: 30 minutes. */
const TOKEN_SECONDS = 30 * 60;
const REPOSITORY_ACTIONS = ["pull", "push", "delete", "scanner-pull"];

interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}
let signingKey: SigningKey | undefined;

/** One RSA key per process, made on first use; the key id in libtrust's format. */
function tokenKey(): SigningKey {
  if (!signingKey) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const digest = createHash("sha256")
      .update(publicKey.export({ type: "spki", format: "der" }))
      .digest();
    const b32 = base32(digest.subarray(0, 30));
    signingKey = { privateKey, publicKey, kid: b32.match(/.{4}/g)?.join(":") ?? b32 };
  }
  return signingKey;
}

function base32(bytes: Buffer): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

interface ResourceActions {
  type: string;
  name: string;
  actions: string[];
}

/** "repository:proj/repo:pull,push" → type, name (may hold ":"), requested actions. */
function parseScope(scope: string): ResourceActions {
  const items = scope.split(":");
  if (items.length === 1) return { type: items[0] as string, name: "", actions: [] };
  if (items.length === 2) return { type: items[0] as string, name: items[1] as string, actions: [] };
  const last = items[items.length - 1] as string;
  return {
    type: items[0] as string,
    name: items.slice(1, -1).join(":"),
    actions: last ? last.split(",") : [],
  };
}

/** What the caller may do on the resource; undefined when Harbor could not handle the name (500). */
function grantedActions(world: World, caller: Caller, a: ResourceActions): string[] | undefined {
  if (a.type === "registry") {
    if (a.name !== "catalog") return undefined;
    return isSysAdmin(caller) ? a.actions : [];
  }
  if (a.type !== "repository") return [];
  const slash = a.name.indexOf("/");
  if (slash < 0) return undefined;
  const project = world.projects.byName(a.name.slice(0, slash));
  if (!project) return [];
  const granted = REPOSITORY_ACTIONS.filter((act) => canProject(caller, project, "repository", act));
  if (["pull", "push", "delete"].every((act) => granted.includes(act))) granted.push("*");
  return granted;
}

function issueToken(world: World, caller: Caller, access: ResourceActions[]) {
  const key = tokenKey();
  const now = Math.floor(world.now() / 1000);
  const jti = Array.from(
    { length: 16 },
    () => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[randomInt(62)],
  ).join("");
  const header = b64url(JSON.stringify({ typ: "JWT", alg: "RS256", kid: key.kid }));
  const claims = b64url(
    JSON.stringify({
      iss: TOKEN_ISSUER,
      sub: caller.kind === "anonymous" ? "" : callerName(caller),
      aud: REGISTRY_SERVICE,
      exp: now + TOKEN_SECONDS,
      nbf: now,
      iat: now,
      jti,
      access,
    }),
  );
  const signature = b64url(sign("sha256", Buffer.from(`${header}.${claims}`), key.privateKey));
  return {
    token: `${header}.${claims}.${signature}`,
    expires_in: TOKEN_SECONDS,
    issued_at: new Date(now * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}

/** Whether a bearer token is one this emulator issued and it has not expired. */
function validBearer(world: World, authorization: string | undefined): boolean {
  const m = /^Bearer\s+([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization ?? "");
  if (!m || !signingKey) return false;
  const [, header, claims, signature] = m as unknown as [string, string, string, string];
  if (
    !verify(
      "sha256",
      Buffer.from(`${header}.${claims}`),
      signingKey.publicKey,
      Buffer.from(signature, "base64url"),
    )
  ) {
    return false;
  }
  const { exp } = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { exp?: number };
  return typeof exp === "number" && exp > world.now() / 1000;
}

const rootRoutes: RouteSpec[] = [
  {
    op: "registryToken",
    method: "GET",
    path: "/service/token",
    query: { service: { type: "string" } },
    handle(ctx) {
      const service = (ctx.query.service as string | undefined) ?? "";
      if (service !== REGISTRY_SERVICE) return textReply400(`Unable to handle service: ${service}`);
      const scopes = ctx.rawQuery
        .getAll("scope")
        .flatMap((s) => s.split(" "))
        .filter(Boolean);
      if (ctx.caller.kind === "anonymous" && scopes.length === 0) return { status: 401 };
      const access: ResourceActions[] = [];
      for (const requested of scopes.map(parseScope)) {
        const actions = grantedActions(ctx.world, ctx.caller, requested);
        if (actions === undefined) return { status: 500 };
        access.push({ ...requested, actions });
      }
      return ok(issueToken(ctx.world, ctx.caller, access));
    },
  },
  {
    op: "registryPing",
    method: "GET",
    path: "/v2",
    handle(ctx) {
      if (ctx.caller.kind !== "anonymous" || validBearer(ctx.world, ctx.headers.authorization)) return ok({});
      const host = ctx.headers.host ?? ctx.url.host;
      return {
        status: 401,
        json: { errors: [{ code: "UNAUTHORIZED", message: "authentication required", detail: null }] },
        headers: {
          "www-authenticate": `Bearer realm="http://${host}/service/token",service="${REGISTRY_SERVICE}"`,
        },
      };
    },
  },
];

function textReply400(message: string) {
  return { status: 400, text: message, headers: { "content-type": "text/plain; charset=utf-8" } };
}

export const area = defineArea({
  routes: [],
  rootRoutes,
  control: () => ({}),
});
