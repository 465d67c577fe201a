// A webhook policy's delivery status, refreshed by afterSync: a failed delivery's text is read from
// its job log once, however soon the next refresh comes (the status it wrote may not be in the
// informer's cache yet), and read again for a policy deleted and made anew.
import { describe, expect, test } from "vitest";
import type { HarborWebhookPolicySpec } from "../../../src/api/webhook.ts";
import { type WebhookExtra, webhookExternal } from "../../../src/controllers/webhook/external.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";
import { fakeHarborCalls, handle, inputOf } from "./fakes.ts";

/** Harbor's webhook API with one failed delivery (job 7) of policy 3 in project 1; log reads counted. */
function harbor() {
  const reads = { logs: 0 };
  const client = fakeHarborCalls({
    webhooks: {
      lastTriggers: async () => [],
      listJobs: async () => [
        {
          id: 7,
          status: "Error",
          event_type: "PUSH_ARTIFACT",
          notify_type: "http",
          creation_time: "2026-01-02T03:04:05Z",
        },
      ],
      listExecutionTasks: async () => [{ id: 70 }],
      deletePolicy: async () => undefined,
      getTaskLog: async () => {
        reads.logs++;
        return "2026-01-02T03:04:06Z [ERROR] [/jobservice/job/impl/notification/webhook_job.go:115]: abnormal response code: 500";
      },
    },
  });
  return { client, reads };
}

const external = () =>
  webhookExternal({
    projects: {} as Informer<ManagedObject>,
    secrets: {} as never,
    statusRefreshMs: 60_000,
  });

const refresh = (ext: ReturnType<typeof external>, conn: ReturnType<typeof handle>, shown: object[] = []) =>
  ext.afterSync?.(
    inputOf({} as HarborWebhookPolicySpec, {
      conn,
      knownId: 3,
      extra: { projectId: 1 } as WebhookExtra,
      resource: {
        metadata: { name: "res", namespace: "team", uid: "u" },
        status: { recentFailures: shown },
      } as never,
    }),
    { id: 3, name: "res" } as never,
    false,
  );

describe("HarborWebhookPolicy delivery status", () => {
  test("a failure's text is read once, though the next refresh still sees the status before it", async () => {
    const { client, reads } = harbor();
    const ext = external();
    const conn = handle(client);
    const first = await refresh(ext, conn);
    expect(first?.status?.recentFailures).toMatchObject([
      { jobId: 7, eventType: "PUSH_ARTIFACT", error: "abnormal response code: 500" },
    ]);
    // The cache still holds the status without the failure: no second read.
    const second = await refresh(ext, conn);
    expect(second?.status?.recentFailures?.[0]?.error).toBe("abnormal response code: 500");
    expect(reads.logs).toBe(1);
  });

  test("the same policy id in another Harbor, or a policy deleted and made anew, reads its own log", async () => {
    const { client, reads } = harbor();
    const ext = external();
    await refresh(ext, handle(client));
    await refresh(ext, handle(client, { harbor: "https://other.example.com" }));
    expect(reads.logs).toBe(2);
    await ext.delete(
      inputOf({} as HarborWebhookPolicySpec, {
        conn: handle(client),
        extra: { projectId: 1 } as WebhookExtra,
      }),
      { id: 3 } as never,
    );
    await refresh(ext, handle(client));
    expect(reads.logs).toBe(3);
  });
});
