// Proves registry credentials work the way a container runtime uses them: through the registry's
// token service (/service/token), as `docker login` and `docker pull` do. Works against the emulator
// and against a real Harbor.
//
// Harbor's token service does not reject wrong credentials when a scope is asked for: it answers as
// for an anonymous caller (public access only). Like `docker login`, pullAccess therefore first asks
// for a token without any scope, which Harbor refuses with 401 unless the credentials are valid.

export class RegistryAuthError extends Error {
  override readonly name = "RegistryAuthError";
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** One entry of a registry token's `access` claim. */
export interface TokenAccess {
  type: string;
  name: string;
  actions: string[];
}

/** Asks the token service for a token and returns its `access` claim. */
export async function tokenAccess(
  baseUrl: string,
  username: string,
  password: string,
  scopes: readonly string[],
): Promise<TokenAccess[]> {
  const url = new URL("/service/token", baseUrl);
  url.searchParams.set("service", "harbor-registry");
  for (const s of scopes) url.searchParams.append("scope", s);
  const res = await fetch(url, {
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
  });
  // The body is drained either way; it never holds the credentials.
  const text = await res.text();
  if (res.status === 401)
    throw new RegistryAuthError(401, `registry credentials of ${username} were rejected`);
  if (!res.ok) throw new RegistryAuthError(res.status, `token service answered ${res.status}`);
  const { token } = JSON.parse(text) as { token?: string };
  const claims = token?.split(".")[1];
  if (!claims) throw new RegistryAuthError(res.status, "token service answered without a token");
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { access?: TokenAccess[] };
  return payload.access ?? [];
}

/**
 * The actions the credentials are granted on `repository` ("project/repo"), e.g. ["pull"] for a
 * pull secret. Throws RegistryAuthError (status 401) when the credentials are not valid at all.
 */
export async function pullAccess(
  baseUrl: string,
  username: string,
  password: string,
  repository: string,
): Promise<string[]> {
  await tokenAccess(baseUrl, username, password, []);
  const access = await tokenAccess(baseUrl, username, password, [`repository:${repository}:pull`]);
  return access.find((a) => a.type === "repository" && a.name === repository)?.actions ?? [];
}
