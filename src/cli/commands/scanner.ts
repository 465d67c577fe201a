// `scanner`: scanner registrations — listed (never their credentials), pinged with their stored
// settings, and the metadata their adapter reports.
import { isHarborError } from "../../harbor/errors.ts";
import type { ScannerRegistration } from "../../harbor/scanners.ts";
import type { HarborTarget } from "../auth.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import type { GroupSpec } from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { list, record } from "../output.ts";

const SCANNER = { name: "SCANNER", help: "the registration's name or UUID" };

/** A registration as the CLI shows it: without its access credential. */
const shownScanner = ({ access_credential: _secret, ...r }: ScannerRegistration) => r;

async function registration(
  h: HarborTarget,
  text: string,
  signal: AbortSignal,
): Promise<ScannerRegistration> {
  const all = await h.client.scanners.list({}, { signal });
  const found = all.find((s) => s.uuid === text) ?? all.find((s) => s.name === text);
  if (!found?.uuid) throw new CliError(`Harbor has no scanner registration named "${text}"`);
  return found;
}

export const scannerGroup: GroupSpec = {
  name: "scanner",
  summary: "Scanner registrations: list, ping, adapter metadata",
  commands: [
    {
      name: "list",
      summary: "Every scanner registration, the default first",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const scanners = (await h.client.scanners.list({}, { signal: inv.io.signal })).map(shownScanner);
          print(
            inv,
            list(
              scanners,
              [
                { header: "name", value: (s) => s.name },
                { header: "uuid", value: (s) => s.uuid },
                { header: "url", value: (s) => s.url },
                { header: "default", value: (s) => s.is_default ?? false },
                { header: "disabled", value: (s) => s.disabled ?? false },
                { header: "auth", value: (s) => s.auth || "none" },
              ],
              formatOf(inv),
              "no scanners",
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "ping",
      summary:
        "Whether Harbor reaches the scanner adapter with the registration's settings (exit 1 when not)",
      args: [SCANNER],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const s = await registration(h, inv.args[0] as string, signal);
          try {
            // From 2.14.4 Harbor no longer returns a registration's credential, so a ping with the
            // settings read back would go without it; asking for the adapter's metadata makes
            // Harbor call the adapter with the credential it stored.
            if (s.auth && !s.access_credential)
              await h.client.scanners.getMetadata(s.uuid as string, { signal });
            else
              await h.client.scanners.ping(
                {
                  name: s.name ?? "",
                  url: s.url ?? "",
                  ...(s.auth ? { auth: s.auth as "Basic" | "Bearer" | "APIKey" } : {}),
                  ...(s.access_credential ? { access_credential: s.access_credential } : {}),
                },
                { signal },
              );
          } catch (e) {
            if (isHarborError(e, "invalid") || isHarborError(e, "server"))
              throw new CliError(
                `Harbor cannot reach scanner ${s.name} at ${s.url}: ${e.harborMessage ?? e.kind}`,
              );
            throw e;
          }
          const data = { scanner: s.name, url: s.url, reachable: true };
          print(
            inv,
            record(
              [
                ["scanner", s.name],
                ["url", s.url],
                ["reachable", true],
              ],
              data,
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "metadata",
      summary: "What the scanner adapter reports about itself: name, vendor, version, capabilities",
      args: [SCANNER],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const s = await registration(h, inv.args[0] as string, signal);
          const m = await h.client.scanners.getMetadata(s.uuid as string, { signal });
          print(
            inv,
            record(
              [
                ["scanner", m.scanner?.name],
                ["vendor", m.scanner?.vendor],
                ["version", m.scanner?.version],
                ["capabilities", (m.capabilities ?? []).map((c) => c.type ?? "").join(", ")],
                ["properties", m.properties],
              ],
              m,
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
  ],
};
