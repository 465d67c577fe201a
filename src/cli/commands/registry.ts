// `registry`: remote registries — listed, pinged (Harbor checks it can reach them), described.
import { isHarborError } from "../../harbor/errors.ts";
import type { Registry } from "../../harbor/registries.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import type { GroupSpec } from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { list, record } from "../output.ts";
import { idOf } from "./shared.ts";

const REGISTRY = { name: "REGISTRY", help: "the registry's name or id" };

/** A registry as the CLI shows it: the credential's type only (Harbor masks the secret anyway). */
const shownRegistry = (r: Registry) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  url: r.url,
  insecure: r.insecure ?? false,
  status: r.status,
  credentialType: r.credential?.access_key ? r.credential.type || "basic" : undefined,
  description: r.description,
});

export const registryGroup: GroupSpec = {
  name: "registry",
  summary: "Remote registries: list, ping, what they support",
  commands: [
    {
      name: "list",
      summary: "Every remote registry with its health",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const registries = (await h.client.registries.list({}, { signal: inv.io.signal }))
            .filter((r) => r.id !== 0)
            .map(shownRegistry);
          print(
            inv,
            list(
              registries,
              [
                { header: "id", value: (r) => r.id },
                { header: "name", value: (r) => r.name },
                { header: "type", value: (r) => r.type },
                { header: "url", value: (r) => r.url },
                { header: "status", value: (r) => r.status },
                { header: "credential", value: (r) => r.credentialType ?? "none" },
              ],
              formatOf(inv),
              "no registries",
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "ping",
      summary: "Whether Harbor reaches the registry with its stored settings (exit 1 when not)",
      args: [REGISTRY],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const id = await idOf(inv.args[0] as string, "registry", (name) =>
            h.client.registries.list({ name }, { signal }),
          );
          try {
            await h.client.registries.ping({ id }, { signal });
          } catch (e) {
            if (isHarborError(e, "invalid"))
              throw new CliError(
                `Harbor cannot reach registry ${inv.args[0]}: ${e.harborMessage ?? "it is unhealthy"}`,
              );
            throw e;
          }
          print(
            inv,
            record(
              [
                ["registry", inv.args[0]],
                ["healthy", true],
              ],
              { registry: inv.args[0], healthy: true },
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "info",
      summary: "What the registry supports: filters, triggers, copy by chunk",
      args: [REGISTRY],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const id = await idOf(inv.args[0] as string, "registry", (name) =>
            h.client.registries.list({ name }, { signal }),
          );
          const info = await h.client.registries.getInfo(id, { signal });
          print(
            inv,
            record(
              [
                ["type", info.type],
                ["description", info.description],
                ["triggers", (info.supported_triggers ?? []).join(", ")],
                [
                  "filters",
                  (info.supported_resource_filters ?? [])
                    .map((f) => `${f.type}${f.values?.length ? ` (${f.values.join(", ")})` : ""}`)
                    .join(", "),
                ],
                ["copy by chunk", info.supported_copy_by_chunk ?? false],
              ],
              info,
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
  ],
};
