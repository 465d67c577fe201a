// Harbor's one-off operations through the CLI, against the emulator: each command's output (table
// and JSON), and its failures — no Harbor at the URL, an object that does not exist, Harbor
// answering with an error — each a clear line on standard error, a non-zero exit, no stack trace,
// no secret. Destructive commands ask first: without --yes and without a "y" nothing happens.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliResult, expectCleanFailure, runAgainst, runCli } from "../../env/cli.ts";
import { useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
const control = () => h.emulator.control;
const advance = (ms: number) => control().clock.advance(ms);

/** Secrets the emulator holds: none may show in any output. */
const SCANNER_KEY = "Sc4nner-Api-Key-31";
const AUTH_HEADER = "Bearer Hook-Secret-5521";
const SECRETS = [SCANNER_KEY, AUTH_HEADER, "Harbor12345"];

const ids = {
  policy: 0,
  finished: 0,
  running: 0,
  task: 0,
  gcDone: 0,
  gcRunning: 0,
  job: "",
  /** A job that runs throughout (the failure cases never stop it). */
  longJob: "",
};

beforeAll(async () => {
  const admin = h.admin;
  await admin.projects.create({ project_name: "shop", storage_limit: 2 ** 30 });
  for (const repo of ["api", "web"]) control().projects.pushArtifact("shop", repo, { tag: "1.0" });
  const target = await admin.registries.create({
    name: "Backup Site",
    type: "harbor",
    url: "https://backup.example.com",
  });
  ids.policy = await admin.replication.createPolicy({
    name: "Backup shop",
    src_registry: { id: 0 },
    dest_registry: { id: target },
    filters: [{ type: "name", value: "shop/**" }],
    trigger: { type: "manual" },
    enabled: true,
    override: true,
  });
  control().replication.setPolicyPlan(ids.policy, { durationMs: 1_000 });
  ids.finished = await admin.replication.start(ids.policy);
  advance(5_000);
  ids.task = (await admin.replication.listTasks(ids.finished))[0]?.id as number;
  control().replication.setPolicyPlan(ids.policy, { durationMs: 3_600_000 });
  ids.running = await admin.replication.start(ids.policy);

  control().gc.plan({ durationMs: 1_000, purgedBlobs: 3, purgedManifests: 1 });
  ids.gcDone = await admin.gc.createSchedule({ schedule: { type: "Manual" } });
  advance(30_000);
  control().gc.plan({ durationMs: 3_600_000 });
  ids.gcRunning = await admin.gc.createSchedule({ schedule: { type: "Manual" } });

  await admin.webhooks.createPolicy("shop", {
    name: "Deploy hook",
    enabled: true,
    event_types: ["PUSH_ARTIFACT"],
    targets: [{ type: "http", address: "https://deploy.example.com/hook", auth_header: AUTH_HEADER }],
  });
  control().webhooks.trigger({ project: "shop", eventType: "PUSH_ARTIFACT" });
  await control().webhooks.flush();

  control().ldap.setAuthMode("ldap");
  control().ldap.configure({
    url: "ldap://ldap.example.com",
    baseDn: "dc=example,dc=com",
    searchDn: "cn=admin,dc=example,dc=com",
    searchPassword: "Ldap-Admin-9",
  });
  control().ldap.addUser({ uid: "alice", realname: "Alice Liddell", email: "alice@example.com" });
  control().ldap.addUser({ uid: "bob", email: "bob@example.com" });
  control().ldap.addGroup({ name: "developers" });

  [ids.job] = control().jobservice.enqueue("IMAGE_SCAN", { durationMs: 3_600_000 }) as [string];
  [ids.longJob] = control().jobservice.enqueue("IMAGE_SCAN", { durationMs: 3_600_000 }) as [string];

  control().scanners.addAdapter("http://trivy.example.com:8080");
  await admin.scanners.create({
    name: "Trivy Adapter",
    url: "http://trivy.example.com:8080",
    auth: "APIKey",
    access_credential: SCANNER_KEY,
  });
});

afterAll(() => {
  control().faults.clear();
});

const run = (args: string[], stdin?: string) =>
  runAgainst(h.emulator, args, stdin === undefined ? {} : { stdin });

function ok(r: CliResult): CliResult {
  expect(r.code, r.stderr).toBe(0);
  for (const s of SECRETS) expect(`${r.stdout}${r.stderr}`).not.toContain(s);
  return r;
}

/**
 * Each command: its arguments, the Harbor operation whose failure it reports, what its table
 * shows, and the same command naming an object that does not exist (with the message), or, for
 * a listing, what it says when nothing matches.
 */
const COMMANDS: Array<{
  args: () => string[];
  op: string;
  /** What a 500 of that operation reads as, when not Harbor's answer itself. */
  failure?: RegExp;
  table: RegExp;
  missing: { args: () => string[]; message: RegExp } | { args: () => string[]; empty: RegExp };
}> = [
  {
    args: () => ["project", "summary", "shop"],
    op: "getProjectSummary",
    table: /^repositories: +2\n[\s\S]*storage limit: +1Gi\n/,
    missing: {
      args: () => ["project", "summary", "nope"],
      message: /HTTP 404 NOT_FOUND: project nope not found/,
    },
  },
  {
    args: () => ["project", "deletable", "shop"],
    op: "getProjectDeletable",
    table: /^deletable: false\nwhy not: +.+/,
    missing: { args: () => ["project", "deletable", "nope"], message: /HTTP 404/ },
  },
  {
    args: () => ["project", "audit-logs", "shop", "--operation", "create"],
    // The log the release writes: the extended one from 2.13 (audit-logs.test.ts has both).
    get op() {
      return h.emulator.world.version.has("auditLogExt") ? "getLogExts" : "getLogs";
    },
    table: /^TIME +USER +OPERATION +TYPE +RESOURCE\n.*admin +create +project +shop\n/m,
    missing: {
      args: () => ["project", "audit-logs", "shop", "--until", "2001-01-01"],
      empty: /^no audit log entries match\n$/,
    },
  },
  {
    args: () => ["audit-log", "list", "--operation", "create"],
    get op() {
      return h.emulator.world.version.has("auditLogExt") ? "listAuditLogExts" : "listAuditLogs";
    },
    table: /^TIME +USER +OPERATION +TYPE +RESOURCE\n.*admin +create +project +shop\n/m,
    missing: {
      args: () => ["audit-log", "list", "--until", "2001-01-01"],
      empty: /^no audit log entries match\n$/,
    },
  },
  {
    args: () => ["replication", "executions", "--policy", "Backup shop"],
    op: "listReplicationExecutions",
    table:
      /^ID +POLICY +STATUS +TRIGGER +STARTED +ENDED +TASKS\n\d+ +\d+ +InProgress +manual +\S+ +- +0\/2 ok, 0 failed\n\d+ +\d+ +Succeed/,
    missing: {
      args: () => ["replication", "executions", "--policy", "Nope"],
      message: /Harbor has no replication policy named "Nope"/,
    },
  },
  {
    args: () => ["replication", "tasks", String(ids.finished)],
    op: "listReplicationTasks",
    table: /^ID +STATUS +OPERATION +SOURCE +DESTINATION[\s\S]*Succeed +copy +shop\/api/m,
    missing: { args: () => ["replication", "tasks", "99999"], message: /HTTP 404/ },
  },
  {
    args: () => ["replication", "log", String(ids.finished), String(ids.task)],
    op: "getReplicationLog",
    table: /\[INFO\]/,
    missing: {
      args: () => ["replication", "log", String(ids.finished), "99999"],
      message: /replication task 99999 not found/,
    },
  },
  {
    args: () => ["gc", "history"],
    op: "getGCHistory",
    table: /^ID +KIND +STATUS[\s\S]*\n\d+ +MANUAL +Success/m,
    missing: {
      args: () => ["gc", "history", "--limit", "1"],
      empty: /^ID +KIND +STATUS.*\n\d+ +MANUAL +Running/,
    },
  },
  {
    args: () => ["gc", "log", String(ids.gcDone)],
    op: "getGCLog",
    table: /3 blobs and 1 manifests are actually deleted/,
    missing: { args: () => ["gc", "log", "99999"], message: /HTTP 404/ },
  },
  {
    args: () => ["webhook", "jobs", "shop", "Deploy hook"],
    op: "ListWebhookJobs",
    table: /^ID +EVENT +NOTIFY +STATUS +CREATED +UPDATED\n\d+ +PUSH_ARTIFACT +http +Error/,
    missing: {
      args: () => ["webhook", "jobs", "shop", "Nope"],
      message: /Harbor has no webhook policy in project shop named "Nope"/,
    },
  },
  {
    args: () => ["webhook", "last-triggers", "shop"],
    op: "LastTrigger",
    table: /^POLICY +EVENT +ENABLED +LAST TRIGGERED\nDeploy hook +PUSH_ARTIFACT +true +\d{4}-/,
    missing: { args: () => ["webhook", "last-triggers", "nope"], message: /HTTP 404/ },
  },
  {
    args: () => ["ldap", "ping"],
    op: "pingLdap",
    table: /^success: +true\n/,
    missing: { args: () => ["ldap", "users", "nobody"], empty: /^no LDAP users match\n$/ },
  },
  {
    args: () => ["ldap", "users"],
    op: "searchLdapUser",
    table: /^USERNAME +NAME +EMAIL\n[\s\S]*alice +Alice Liddell +alice@example\.com/,
    missing: { args: () => ["ldap", "users", "nobody"], empty: /^no LDAP users match\n$/ },
  },
  {
    args: () => ["ldap", "groups", "--name", "developers"],
    op: "searchLdapGroup",
    table: /^NAME +DN\ndevelopers +cn=developers,/,
    missing: { args: () => ["ldap", "groups", "--name", "nobody"], empty: /^no LDAP group matches\n$/ },
  },
  {
    args: () => ["jobservice", "pools"],
    op: "getWorkerPools",
    table: /^POOL +HOST +PID +CONCURRENCY/,
    missing: { args: () => ["jobservice", "workers", "no-such-pool"], empty: /^no workers\n$/ },
  },
  {
    args: () => ["jobservice", "workers"],
    op: "getWorkers",
    table: /IMAGE_SCAN/,
    missing: { args: () => ["jobservice", "workers", "no-such-pool"], empty: /^no workers\n$/ },
  },
  {
    args: () => ["jobservice", "queues"],
    op: "listJobQueues",
    table: /^JOB TYPE +WAITING +LATENCY \(S\) +PAUSED\n[\s\S]*REPLICATION +0 +0 +false/,
    missing: {
      args: () => ["jobservice", "pause", "NO_SUCH_TYPE"],
      message: /job service has no queue "NO_SUCH_TYPE"/,
    },
  },
  {
    args: () => ["scanner", "list"],
    op: "listScanners",
    table:
      /^NAME +UUID +URL +DEFAULT +DISABLED +AUTH\nTrivy Adapter +\S+ +http:\/\/trivy\.example\.com:8080 +true +false +APIKey\n$/,
    missing: {
      args: () => ["scanner", "ping", "Nope"],
      message: /Harbor has no scanner registration named "Nope"/,
    },
  },
  {
    args: () => ["scanner", "ping", "Trivy Adapter"],
    // From 2.14.4 Harbor keeps the credential to itself: the adapter is reached through its metadata.
    get op() {
      return h.emulator.world.version.has("credentialsKept") ? "getScannerMetadata" : "pingScanner";
    },
    failure:
      /Harbor cannot reach scanner Trivy Adapter at http:\/\/trivy\.example\.com:8080: internal server error/,
    table: /^scanner: +Trivy Adapter\nurl: +http:\/\/trivy\.example\.com:8080\nreachable: true\n$/,
    missing: {
      args: () => ["scanner", "ping", "Nope"],
      message: /Harbor has no scanner registration named "Nope"/,
    },
  },
  {
    args: () => ["scanner", "metadata", "Trivy Adapter"],
    op: "getScannerMetadata",
    table: /^scanner: +\S+\nvendor: +\S+/,
    missing: {
      args: () => ["scanner", "metadata", "Nope"],
      message: /Harbor has no scanner registration named "Nope"/,
    },
  },
  {
    args: () => ["registry", "list"],
    op: "listRegistries",
    table:
      /^ID +NAME +TYPE +URL +STATUS +CREDENTIAL\n\d+ +Backup Site +harbor +https:\/\/backup\.example\.com +healthy +none\n$/,
    missing: { args: () => ["registry", "ping", "Nope"], message: /Harbor has no registry named "Nope"/ },
  },
  {
    args: () => ["registry", "ping", "Backup Site"],
    op: "pingRegistry",
    table: /^registry: Backup Site\nhealthy: +true\n$/,
    missing: { args: () => ["registry", "ping", "Nope"], message: /Harbor has no registry named "Nope"/ },
  },
  {
    args: () => ["registry", "info", "Backup Site"],
    op: "getRegistryInfo",
    table: /^type: +harbor\n[\s\S]*triggers: +manual, scheduled/,
    missing: { args: () => ["registry", "info", "999"], message: /HTTP 404/ },
  },
];

describe.each(COMMANDS.map((c) => [c.args().slice(0, 2).join(" "), c] as const))(
  "kubectl harbor %s",
  (_name, c) => {
    test("prints a table, and JSON for scripts", async () => {
      const table = ok(await run(c.args()));
      expect(table.stdout).toMatch(c.table);
      const json = ok(await run([...c.args(), "-o", "json"]));
      expect(() => JSON.parse(json.stdout)).not.toThrow();
    });

    test("an object that does not exist, or nothing that matches", async () => {
      const r = await run(c.missing.args());
      if ("message" in c.missing) expectCleanFailure(r, 1, c.missing.message, SECRETS);
      else expect(ok(r).stdout).toMatch(c.missing.empty);
    });
  },
);

describe("destructive commands ask first", () => {
  test("replication stop: not without an answer, not with 'n'; with 'y' or --yes", async () => {
    const args = ["replication", "stop", String(ids.running)];
    const silent = await run(args);
    expectCleanFailure(silent, 3, /not confirmed \(no answer; pass --yes to run it from a script\)/);
    expect(silent.stderr).toMatch(/^Stop replication execution \d+ \(policy \d+, InProgress\)\? \[y\/N\] /);
    expectCleanFailure(await run(args, "n\n"), 3, /not confirmed/);
    expect((await h.admin.replication.getExecution(ids.running)).status).toBe("InProgress");
    const yes = ok(await run(args, "y\n"));
    expect(yes.stdout).toMatch(/^execution: \d+\nstatus: +Stopped\n$/);
    expect((await h.admin.replication.getExecution(ids.running)).status).toBe("Stopped");
    expectCleanFailure(await run(["replication", "stop", "99999", "--yes"]), 1, /HTTP 404/);
  });

  test("gc stop", async () => {
    expectCleanFailure(await run(["gc", "stop", String(ids.gcRunning)]), 3, /not confirmed/);
    expect((await h.admin.gc.get(ids.gcRunning)).job_status).toBe("Running");
    expect(ok(await run(["gc", "stop", String(ids.gcRunning), "--yes"])).stdout).toMatch(/status: +Stopped/);
    const fault = control().faults.add({ op: "stopGC", status: 500 });
    try {
      expectCleanFailure(
        await run(["gc", "stop", String(ids.gcDone), "-y"]),
        1,
        /answered stopGC with HTTP 500/,
      );
    } finally {
      control().faults.remove(fault);
    }
  });

  test("jobservice: pause and resume do not ask; stop-queue and stop-job do", async () => {
    expect(ok(await run(["jobservice", "pause", "REPLICATION"])).stdout).toMatch(
      /^JOB TYPE.*\nREPLICATION +0 +0 +true\n$/,
    );
    expect(ok(await run(["jobservice", "resume", "REPLICATION"])).stdout).toMatch(/REPLICATION +0 +0 +false/);
    control().jobservice.enqueue("RETENTION", { count: 40, durationMs: 3_600_000 });
    expectCleanFailure(await run(["jobservice", "stop-queue", "RETENTION"], "no\n"), 3, /not confirmed/);
    expect(ok(await run(["jobservice", "stop-queue", "RETENTION"], "yes\n")).stdout).toMatch(/RETENTION +0 /);
    expectCleanFailure(await run(["jobservice", "stop-job", ids.job]), 3, /not confirmed/);
    expect(
      control()
        .jobservice.runningJobs()
        .some((j) => j.id === ids.job),
    ).toBe(true);
    expect(ok(await run(["jobservice", "stop-job", ids.job, "--yes"])).stdout).toBe(`stopped: ${ids.job}\n`);
    expect(
      control()
        .jobservice.runningJobs()
        .some((j) => j.id === ids.job),
    ).toBe(false);
    const fault = control().faults.add({ op: "stopRunningJob", status: 500 });
    try {
      expectCleanFailure(
        await run(["jobservice", "stop-job", ids.longJob, "--yes"]),
        1,
        /answered stopRunningJob with HTTP 500/,
      );
    } finally {
      control().faults.remove(fault);
    }
  });

  test("ldap import: asks, imports, and exits 1 naming the users it could not import", async () => {
    expectCleanFailure(await run(["ldap", "import", "alice"]), 3, /not confirmed/);
    expect(ok(await run(["ldap", "import", "alice", "--yes"])).stdout).toBe("imported 1 user(s)\n");
    const partly = await run(["ldap", "import", "bob", "nobody", "--yes"]);
    expectCleanFailure(partly, 1, /1 of 2 user\(s\) could not be imported/);
    expect(partly.stdout).toMatch(/^UID +ERROR\nnobody +\S+/);
    const fault = control().faults.add({ op: "importLdapUser", status: 500 });
    try {
      expectCleanFailure(
        await run(["ldap", "import", "bob", "-y"]),
        1,
        /answered importLdapUser with HTTP 500/,
      );
    } finally {
      control().faults.remove(fault);
    }
  });
});

/**
 * The commands that act (stop, pause, resume, import), each with its three failures: no Harbor at
 * the URL, an object that does not exist, Harbor answering the action with an error. The error
 * cases change nothing, so they run with --yes.
 */
const ACTIONS: Array<{
  args: () => string[];
  op: string;
  missing: { args: () => string[]; message: RegExp };
}> = [
  {
    args: () => ["replication", "stop", String(ids.finished), "--yes"],
    op: "stopReplication",
    missing: { args: () => ["replication", "stop", "99999", "--yes"], message: /HTTP 404/ },
  },
  {
    args: () => ["gc", "stop", String(ids.gcDone), "--yes"],
    op: "stopGC",
    missing: { args: () => ["gc", "stop", "99999", "--yes"], message: /HTTP 404/ },
  },
  ...(["pause", "resume", "stop-queue"] as const).map((action) => ({
    args: () =>
      ["jobservice", action, "REPLICATION", "--yes"].filter((a) => action === "stop-queue" || a !== "--yes"),
    op: "actionPendingJobs",
    missing: {
      args: () => ["jobservice", action, "NO_SUCH_TYPE"],
      message: /job service has no queue "NO_SUCH_TYPE" \(it has [A-Z0-9_, ]+\)/,
    },
  })),
  {
    args: () => ["jobservice", "stop-job", ids.longJob, "--yes"],
    op: "stopRunningJob",
    missing: {
      args: () => ["jobservice", "stop-job", "no-such-job", "--yes"],
      message: /no worker of Harbor's job service runs a job "no-such-job"/,
    },
  },
  {
    args: () => ["ldap", "import", "alice", "--yes"],
    op: "importLdapUser",
    missing: {
      args: () => ["ldap", "import", "nobody", "--yes"],
      message: /1 of 1 user\(s\) could not be imported/,
    },
  },
];

describe.each(ACTIONS.map((c) => [c.args().slice(0, 2).join(" "), c] as const))(
  "kubectl harbor %s: its failures",
  (_name, c) => {
    test("an object that does not exist", async () => {
      expectCleanFailure(await run(c.missing.args()), 1, c.missing.message, SECRETS);
    });
  },
);

/**
 * The failures that wait out the client's retries (a refused connection and a 500 are tried again
 * with backoff, about a second in all) run at once: none changes anything, none reaches the
 * emulator or each sees only the faults of its own user.
 */
describe.concurrent("failures after the client's retries", () => {
  let users = 0;
  /** A Harbor administrator of the test's own, and a fault of `op` for that user's requests only. */
  function ownAdminWithFault(op: string) {
    const login = { username: `admin-${++users}`, password: `Admin-${users}-pw1` };
    control().users.add({ ...login, sysadmin: true });
    control().faults.add({ op, username: login.username, status: 500, message: "backend down" });
    return (args: string[]) =>
      runCli([...args, "--harbor-url", h.emulator.url, "-u", login.username], {
        env: { HARBOR_PASSWORD: login.password },
      });
  }
  const unreachable = (args: string[]) =>
    runCli([...args, "--harbor-url", "http://127.0.0.1:1", "-u", "admin"], {
      env: { HARBOR_PASSWORD: "Harbor12345" },
    });
  const named = <C extends { args: () => string[] }>(cs: C[]) =>
    cs.map((c) => [c.args().slice(0, 2).join(" "), c] as const);

  test.each(named(COMMANDS))(
    "kubectl harbor %s: no Harbor at the URL: exit 1, clear message",
    async (_n, c) => {
      const r = await unreachable(c.args());
      expectCleanFailure(r, 1, /cannot reach Harbor at 127\.0\.0\.1:1: connection refused/, SECRETS);
      expect(r.stdout).toBe("");
    },
  );

  test.each(named(ACTIONS))(
    "kubectl harbor %s: no Harbor at the URL: exit 1, clear message, nothing asked",
    async (_n, c) => {
      const r = await unreachable(c.args());
      expectCleanFailure(r, 1, /cannot reach Harbor at 127\.0\.0\.1:1: connection refused/, SECRETS);
      expect(r.stdout).toBe("");
    },
  );

  test.each(named(COMMANDS))(
    "kubectl harbor %s: Harbor answers with an error: exit 1 with Harbor's answer",
    async (_n, c) => {
      const runAs = ownAdminWithFault(c.op);
      expectCleanFailure(
        await runAs(c.args()),
        1,
        c.failure ?? new RegExp(`answered ${c.op} with HTTP 500`),
        SECRETS,
      );
    },
  );

  test.each(named(ACTIONS))(
    "kubectl harbor %s: Harbor answers the action with an error: exit 1 with Harbor's answer",
    async (_n, c) => {
      const runAs = ownAdminWithFault(c.op);
      expectCleanFailure(await runAs(c.args()), 1, new RegExp(`answered ${c.op} with HTTP 500`), SECRETS);
    },
  );
});

describe("what the output leaves out", () => {
  test("a scanner's credential is never shown, in any format", async () => {
    for (const format of ["table", "json", "yaml"]) {
      const r = ok(await run(["scanner", "list", "-o", format]));
      expect(r.stdout).toContain("Trivy Adapter");
    }
  });

  test("a webhook's auth header is never shown, even when Harbor's job payload or log carries text like it", async () => {
    const r = ok(await run(["webhook", "jobs", "shop", "Deploy hook", "-o", "yaml"]));
    expect(r.stdout).toMatch(/event_type: PUSH_ARTIFACT/);
  });

  test("LDAP ping failing: exit 1, the reason, Harbor's stored password never involved", async () => {
    control().ldap.configure({ reachable: false });
    try {
      const r = await run(["ldap", "ping"]);
      expectCleanFailure(r, 1, /the LDAP ping failed: error: ldap server network timeout/, ["Ldap-Admin-9"]);
      expect(r.stdout).toMatch(/^success: false\n/);
    } finally {
      control().ldap.configure({ reachable: true });
    }
  });

  test("audit logs filtered by time and user, limited", async () => {
    const r = ok(
      await run([
        "project",
        "audit-logs",
        "shop",
        "--since",
        "1h",
        "--user",
        "admin",
        "--limit",
        "1",
        "-o",
        "json",
      ]),
    );
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expectCleanFailure(
      await run(["project", "audit-logs", "shop", "--since", "last week"]),
      64,
      /--since "last week" must be a time/,
    );
  });
});
