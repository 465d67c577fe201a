// Scripts and pipelines wait on resources with `kubectl wait --for=condition=Ready`, as they do for
// Deployments: it returns once the operator has made the resource Ready for its current spec, and
// times out while it is not Ready, has no status yet, or shows a Ready status of an older spec
// (the conditions carry observedGeneration). Argo CD's health check reads the same statuses.
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { findLua, runArgoHealth } from "../env/lua.ts";
import { useOperator } from "../env/operator.ts";
import { connection, type ProjectCR, project, ready as readyOf } from "../env/resources.ts";

const healthScript = join(import.meta.dirname, "..", "..", "deploy", "argocd", "health.lua");

describe("kubectl wait --for=condition=Ready", () => {
  const op = useOperator({ namespacePrefix: "wait", driftInterval: "5m" });

  // A first run may install Lua 5.1 with apt-get.
  beforeAll(() => {
    findLua();
  }, budget.longTestMs);

  /**
   * `kubectl wait`: its exit code and what it printed. A wait that must time out gets kubectl's
   * shortest timeout (the state it sees cannot change meanwhile); one that must succeed gets the
   * budget's operator wait.
   */
  const wait = async (name: string, condition = "condition=Ready", o: { mustMeet?: boolean } = {}) => {
    const seconds = o.mustMeet ? Math.ceil(budget.operatorMs / 1000) : 1;
    const r = await op.kubectl.tryRun(
      ["wait", `harborproject/${name}`, `--for=${condition}`, `--timeout=${seconds}s`],
      { timeoutMs: seconds * 1000 + budget.requestMs },
    );
    return { code: r.code, output: `${r.stdout}${r.stderr}`.trim() };
  };
  const health = async (name: string) =>
    runArgoHealth(healthScript, await op.kubectl.get<ProjectCR>("harborproject", name));

  test("returns when the resource is Ready; times out while it waits for its connection", async () => {
    await op.kubectl.apply(project("later", { connectionRef: { name: "harbor-later" } }));
    await op.waitFor<ProjectCR>("harborproject", "later", (o) => readyOf(o)?.reason === "ConnectionNotReady");

    expect(await wait("later")).toEqual({
      code: 1,
      output: "error: timed out waiting for the condition on harborprojects/later",
    });
    // The negative condition can be waited for too.
    expect(await wait("later", "condition=Ready=false", { mustMeet: true })).toMatchObject({ code: 0 });
    expect(await health("later")).toMatchObject({
      status: "Progressing",
      message: expect.stringMatching(/^ConnectionNotReady: /),
    });

    await op.kubectl.apply(connection("harbor-later", op.emulator.url, "harbor-credentials"));
    expect(await wait("later", "condition=Ready", { mustMeet: true })).toEqual({
      code: 0,
      output: "harborproject.harborconfig.io/later condition met",
    });
    expect(await health("later")).toMatchObject({ status: "Healthy" });
  });

  test("times out on a resource without status, and on a Ready status of an older spec", async () => {
    await op.kubectl.apply(project("steady"));
    expect((await wait("steady", "condition=Ready", { mustMeet: true })).code).toBe(0);

    // With the operator stopped nothing answers: a new resource has no status, and an edited one
    // still says Ready, but for the previous generation.
    await op.stop();
    await op.kubectl.apply(project("fresh"));
    await op.kubectl.apply(project("steady", { public: true }));
    const steady = await op.kubectl.get<ProjectCR>("harborproject", "steady");
    expect(steady.metadata.generation).toBe(2);
    expect(readyOf(steady)).toMatchObject({ status: "True", observedGeneration: 1 });

    expect((await wait("fresh")).code).toBe(1);
    expect((await wait("steady")).code).toBe(1);
    expect(await health("fresh")).toMatchObject({ status: "Progressing" });
    expect(await health("steady")).toEqual({
      status: "Progressing",
      message: "Waiting for the operator to act on generation 2 (the status describes generation 1)",
    });

    await op.start();
    for (const name of ["fresh", "steady"]) {
      expect((await wait(name, "condition=Ready", { mustMeet: true })).code, name).toBe(0);
      expect(await health(name)).toMatchObject({ status: "Healthy" });
    }
    expect((await op.harbor.projects.get("steady")).metadata).toMatchObject({ public: "true" });
  });
});
