// What a Harbor deployment sets around its release, as the emulator models it: the replication
// adapter whitelist (REPLICATION_ADAPTER_WHITELIST, which 2.14+ applies to the adapter lists only)
// and the patches 2.13.6 / 2.14.5 / 2.15.3 that refuse webhook delivery to private addresses unless
// the project's metadata says webhook_allow_private_ip "true".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator } from "../../env/emulator/index.ts";
import { isPrivateHost } from "../../env/emulator/loopback.ts";
import { useEmulator } from "../../env/harbor.ts";

const byName = { headers: { "x-is-resource-name": "true" } };

describe("REPLICATION_ADAPTER_WHITELIST", () => {
  describe.each([
    { version: "2.13.5", applied: false },
    { version: "2.14.4", applied: true },
    { version: "2.15.2", applied: true },
  ])("unset, on $version", ({ version, applied }) => {
    const h = useEmulator({ harborVersion: version, replicationAdapterWhitelist: null });

    test(
      applied
        ? "nothing is listed; any known type is still created"
        : "every type is listed (no whitelist before 2.14)",
      async () => {
        const types = JSON.parse((await h.raw("GET", "/replication/adapters")).text) as string[];
        const infos = JSON.parse((await h.raw("GET", "/replication/adapterinfos")).text) as Record<
          string,
          unknown
        >;
        if (applied) {
          expect(types).toEqual([]);
          expect(infos).toEqual({});
        } else {
          expect(types).toContain("harbor");
          expect(Object.keys(infos)).toContain("docker-hub");
        }
        const created = await h.raw("POST", "/registries", {
          name: "r",
          type: "harbor",
          url: "https://r.example.com",
        });
        expect(created.status).toBe(201);
      },
    );
  });

  describe("a list of its own, on 2.15.2", () => {
    const h = useEmulator({
      harborVersion: "2.15.2",
      replicationAdapterWhitelist: ["harbor", "docker-hub", "nope"],
    });

    test("only those types (known ones) are listed, infos only for those that publish a pattern", async () => {
      expect(JSON.parse((await h.raw("GET", "/replication/adapters")).text)).toEqual([
        "docker-hub",
        "harbor",
      ]);
      expect(Object.keys(JSON.parse((await h.raw("GET", "/replication/adapterinfos")).text))).toEqual([
        "docker-hub",
      ]);
      // Not listed, created all the same.
      const gitlab = await h.raw("POST", "/registries", {
        name: "g",
        type: "gitlab",
        url: "https://g.example.com",
      });
      expect(gitlab.status).toBe(201);
    });
  });
});

describe("webhook delivery to private addresses", () => {
  let receiver: Server;
  const received: string[] = [];
  const port = () => (receiver.address() as AddressInfo).port;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      received.push(req.url ?? "");
      req.resume();
      req.on("end", () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  describe.each(["2.13.5", "2.14.4", "2.15.2"])("refused (the patch after %s)", (version) => {
    const h = useEmulator({ harborVersion: version, webhookPrivateAddresses: "refuse" });
    const hooks = () => h.emulator.control.webhooks;

    test("systeminfo names that patch, as the Harbor that refuses is", async () => {
      const patch = { "2.13.5": "2.13.6", "2.14.4": "2.14.5", "2.15.2": "2.15.3" }[version];
      const info = JSON.parse((await h.raw("GET", "/systeminfo")).text) as { harbor_version?: string };
      expect(info.harbor_version).toMatch(new RegExp(`^v${patch?.replaceAll(".", "\\.")}-[0-9a-f]{8}$`));
    });

    test('at send time, not at creation; the project\'s webhook_allow_private_ip "true" lets it through', async () => {
      const project = `hooks-${version.replaceAll(".", "-")}`;
      expect((await h.raw("POST", "/projects", { project_name: project })).status).toBe(201);
      const path = `/${project}`;
      const policy = await h.raw(
        "POST",
        `/projects/${project}/webhook/policies`,
        {
          name: "local",
          enabled: true,
          event_types: ["PUSH_ARTIFACT"],
          targets: [{ type: "http", address: `http://127.0.0.1:${port()}${path}` }],
        },
        byName,
      );
      expect(policy.status).toBe(201);

      const [refused] = hooks().trigger({ project, eventType: "PUSH_ARTIFACT" });
      await hooks().flush();
      const job = hooks()
        .deliveries()
        .find((d) => d.id === refused);
      expect(job?.status).toBe("Error");
      expect(job?.error).toContain("private address");
      expect(job).not.toHaveProperty("response");
      expect(received).not.toContain(path);

      const allowed = await h.raw(
        "PUT",
        `/projects/${project}`,
        { metadata: { webhook_allow_private_ip: "true" } },
        byName,
      );
      expect(allowed.status).toBe(200);
      const shown = JSON.parse((await h.raw("GET", `/projects/${project}`, undefined, byName)).text);
      expect(shown.metadata.webhook_allow_private_ip).toBe("true");
      const [delivered] = hooks().trigger({ project, eventType: "PUSH_ARTIFACT" });
      await hooks().flush();
      expect(
        hooks()
          .deliveries()
          .find((d) => d.id === delivered),
      ).toMatchObject({ status: "Success", response: 200 });
      expect(received).toContain(path);
    });
  });

  describe("allowed (the modelled patches, the default)", () => {
    const h = useEmulator({ harborVersion: "2.15.2" });

    test("a loopback target gets the event; webhook_allow_private_ip is no metadata key (dropped)", async () => {
      await h.raw("POST", "/projects", {
        project_name: "open-hooks",
        metadata: { webhook_allow_private_ip: "true" },
      });
      const shown = JSON.parse((await h.raw("GET", "/projects/open-hooks", undefined, byName)).text);
      expect(shown.metadata).not.toHaveProperty("webhook_allow_private_ip");
      await h.raw(
        "POST",
        "/projects/open-hooks/webhook/policies",
        {
          name: "local",
          enabled: true,
          event_types: ["PUSH_ARTIFACT"],
          targets: [{ type: "http", address: `http://127.0.0.1:${port()}/open` }],
        },
        byName,
      );
      h.emulator.control.webhooks.trigger({ project: "open-hooks", eventType: "PUSH_ARTIFACT" });
      await h.emulator.control.webhooks.flush();
      expect(received).toContain("/open");
    });
  });

  test.each([
    ["127.0.0.1", true],
    ["localhost", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.32.0.1", false],
    ["192.168.1.10", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["[::1]", true],
    ["fd00::1", true],
    ["fe80::1", true],
    ["::ffff:10.0.0.1", true],
    ["8.8.8.8", false],
    ["2001:db8::1", false],
    ["ci.example.com", false],
  ])("%s is private: %s", (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });

  test("refusing needs a release that has such a patch (2.13 on)", async () => {
    await expect(
      startEmulator({ harborVersion: "2.12.4", webhookPrivateAddresses: "refuse" }),
    ).rejects.toThrow(
      'webhookPrivateAddresses "refuse" models the patches 2.13.6, 2.14.5, 2.15.3; Harbor 2.12.4 has no such patch',
    );
  });
});
