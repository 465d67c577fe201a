// The apiserver's audit log: who did what to which object, one JSON line per request. Tests and the
// benchmark read it to count the requests a user (the operator's ServiceAccount) made.
import { readFileSync } from "node:fs";

/**
 * Metadata (user, verb, object, response code) of every resource request, without bodies.
 * Non-resource requests (the probes' /readyz, discovery) are left out: noise for counting.
 */
export const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["*"]
  - level: Metadata
`;

export interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    subresource?: string;
  };
  responseStatus?: { code?: number };
}

const writeVerbs = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** The requests that have completed, oldest first (a watch appears once it ends). */
export function readAuditLog(path: string): AuditEvent[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((event) => event.stage === "ResponseComplete");
}

export function isWrite(event: AuditEvent): boolean {
  return writeVerbs.has(event.verb);
}
