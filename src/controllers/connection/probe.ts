// One check of a connection against Harbor: systeminfo, asked anonymously (it answers anyone, so it
// proves Harbor is there without sending a password that may be stale: a wrong one freezes the
// user in Harbor for everyone), then the current user (proves the credentials; a 401 during such a
// freeze is tried once more by the client), then, when the anonymous answer had no version (from
// 2.13 Harbor tells its version only to a caller that logged in), systeminfo again with the
// credentials; then the optional checks the spec asks for. A release older than the oldest
// supported is refused (UnsupportedHarborVersion), before the credentials are sent when the
// anonymous answer already tells it. Every call runs under one overall deadline; a failure becomes
// a Ready reason through mapping.ts, unless the caller's own signal fired (shutdown), which is
// rethrown. What Harbor says about itself reaches the status (and `kubectl get`'s Version column),
// so its text is cleaned and capped like any message (kube/text.ts).
import type { ConnectionStatus } from "../../api/connection.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { ALL } from "../../harbor/job-service.ts";
import type { GeneralInfo } from "../../harbor/system.ts";
import type { CallOptions } from "../../harbor/transport.ts";
import { safeText } from "../../kube/text.ts";
import {
  type CheckResult,
  type Credentials,
  type CredentialsRef,
  describeFailure,
  type Failure,
  releaseRefusal,
} from "./mapping.ts";

export interface ProbeOptions {
  client: HarborClient;
  url: string;
  credentials: CredentialsRef & Credentials;
  checks: { ldap: boolean; jobService: boolean };
  /** The reconcile's signal: when it fires the probe is abandoned, not judged. */
  signal: AbortSignal;
  /** For the whole probe. */
  deadlineMs: number;
  /** Per Harbor call attempt. */
  callTimeoutMs: number;
}

/** The longest name or version Harbor reports that is kept (Harbor's own names are at most 255). */
const SHORT_TEXT = 256;

export async function probe(o: ProbeOptions): Promise<CheckResult> {
  const call: CallOptions = {
    signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.deadlineMs)]),
    timeoutMs: o.callTimeoutMs,
  };
  const ctx = { url: o.url, credentials: o.credentials, deadlineMs: o.deadlineMs };
  const judge = (e: unknown): Failure => {
    if (o.signal.aborted) throw e;
    return describeFailure(e, ctx);
  };

  let harborVersion: string | undefined;
  try {
    harborVersion = versionOf(await o.client.system.getSystemInfo({ ...call, anonymous: true }));
  } catch (e) {
    return { url: o.url, failure: judge(e) };
  }
  const base = () => ({ url: o.url, ...(harborVersion ? { harborVersion } : {}) });
  const refusal = () => {
    const failure = releaseRefusal(o.url, harborVersion);
    return failure && { ...base(), failure };
  };
  // Up to 2.12 anyone is told the release: an older one is refused before the credentials go out.
  const early = refusal();
  if (early) return early;

  // Only what Harbor answers is shown, never the Secret's username: a connection pointed at a
  // server of its author's choosing would otherwise copy a Secret's value into the status.
  let authenticatedAs: string | undefined;
  try {
    const me = await o.client.system.getCurrentUser(call);
    authenticatedAs = me.username ? safeText(me.username, SHORT_TEXT) : undefined;
  } catch (e) {
    // Robot accounts log in but have no user record: Harbor answers 412 only after authenticating.
    if (!isHarborError(e, "precondition")) return { ...base(), failure: judge(e) };
  }

  if (harborVersion === undefined) {
    try {
      harborVersion = versionOf(await o.client.system.getSystemInfo(call));
    } catch (e) {
      return { ...base(), failure: judge(e) };
    }
    const late = refusal();
    if (late) return late;
  }

  const result: CheckResult = { ...base(), ...(authenticatedAs ? { authenticatedAs } : {}) };
  if (!o.checks.ldap && !o.checks.jobService) return result;
  // Reasons of the ChecksPassed condition: LDAPPingFailed, or the Ready reason of a call that failed.
  const problems: Array<{ reason: string; message: string }> = [];
  if (o.checks.ldap) {
    try {
      result.ldap = await ldapCheck(o.client, call);
      if (!result.ldap.success) {
        problems.push({
          reason: "LDAPPingFailed",
          message: `LDAP: ${result.ldap.message ?? "the ping failed"}`,
        });
      }
    } catch (e) {
      const f = judge(e);
      problems.push({ reason: f.reason, message: `LDAP check: ${f.message}` });
    }
  }
  if (o.checks.jobService) {
    try {
      result.jobService = await jobServiceCheck(o.client, call);
    } catch (e) {
      const f = judge(e);
      problems.push({ reason: f.reason, message: `job-service check: ${f.message}` });
    }
  }
  const first = problems[0];
  result.checks = first
    ? {
        passed: false,
        reason: first.reason,
        message: problems.map((p) => p.message).join("; "),
      }
    : { passed: true, reason: "ChecksPassed", message: checkedText(o.checks) };
  return result;
}

/** The release Harbor reports, cleaned; undefined when it tells none. */
function versionOf(info: GeneralInfo): string | undefined {
  const version = info.harbor_version;
  return version ? safeText(version, SHORT_TEXT) || undefined : undefined;
}

function checkedText(checks: { ldap: boolean; jobService: boolean }): string {
  const names = [
    checks.ldap ? "the LDAP ping succeeds" : "",
    checks.jobService ? "the job service answers" : "",
  ];
  return names.filter(Boolean).join(" and ");
}

/**
 * Harbor's LDAP ping tests the configuration it is sent, so the stored one is read first. The
 * search password is left out: Harbor then uses its stored one (only in LDAP auth mode).
 */
export async function ldapCheck(
  client: HarborClient,
  call: CallOptions,
): Promise<NonNullable<ConnectionStatus["ldap"]>> {
  const conf = await client.system.getConfigurations(call);
  const mode = conf.auth_mode?.value ?? undefined;
  if (mode !== "ldap_auth") {
    return {
      success: false,
      message: `Harbor's auth mode is ${mode ?? "unknown"}, not ldap_auth: there is no LDAP to ping`,
    };
  }
  const str = (item: { value?: string | null } | undefined) => item?.value ?? undefined;
  const r = await client.ldap.ping(
    {
      ldap_url: str(conf.ldap_url),
      ldap_search_dn: str(conf.ldap_search_dn),
      ldap_base_dn: str(conf.ldap_base_dn),
      ldap_filter: str(conf.ldap_filter),
      ldap_uid: str(conf.ldap_uid),
      ldap_scope: conf.ldap_scope?.value ?? undefined,
      ldap_connection_timeout: conf.ldap_timeout?.value ?? undefined,
      ldap_verify_cert: conf.ldap_verify_cert?.value ?? undefined,
    },
    call,
  );
  return r.success === true
    ? { success: true }
    : { success: false, message: safeText(r.message ?? "") || "the ping failed" };
}

async function jobServiceCheck(
  client: HarborClient,
  call: CallOptions,
): Promise<NonNullable<ConnectionStatus["jobService"]>> {
  const [pools, workers, queues] = await Promise.all([
    client.jobService.listPools(call),
    client.jobService.listWorkers(ALL, call),
    client.jobService.listQueues(call),
  ]);
  return {
    pools: pools.length,
    workers: workers.length,
    busyWorkers: workers.filter((w) => (w.job_id ?? "") !== "").length,
    queues: queues
      .map((q) => ({
        jobType: safeText(q.job_type ?? "", SHORT_TEXT),
        count: q.count ?? 0,
        latency: q.latency ?? 0,
        paused: q.paused ?? false,
      }))
      .sort((a, b) => (a.jobType < b.jobType ? -1 : a.jobType > b.jobType ? 1 : 0)),
  };
}
