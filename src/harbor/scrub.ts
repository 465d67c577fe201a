// Secrets sent in a request body never come back in what the operator reports about the call: the
// values of sensitive fields are replaced wherever they appear in an error or a log line.

const SENSITIVE_KEYS = new Set([
  "password",
  "secret",
  "access_secret",
  "access_credential",
  "auth_header",
  "ldap_search_password",
]);

/** Values of sensitive fields in a request body, to be scrubbed from anything we report. */
export function sensitiveValues(body: unknown, out: string[] = []): string[] {
  if (Array.isArray(body)) for (const v of body) sensitiveValues(v, out);
  else if (body && typeof body === "object") {
    for (const [k, v] of Object.entries(body)) {
      if (SENSITIVE_KEYS.has(k) && typeof v === "string" && v.length >= 4) out.push(v);
      else sensitiveValues(v, out);
    }
  }
  return out;
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join("***");
  return out;
}
