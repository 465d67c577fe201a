// Which webhook addresses stay on this machine. The emulator delivers only there unless it was
// started with allowExternalWebhooks (--allow-external-webhooks), so that no test and no demo
// reaches a public name — the examples' placeholder targets included.
import { isIPv4, isIPv6 } from "node:net";

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIPv4(h)) return h.startsWith("127.");
  if (isIPv6(h)) return h === "::1" || /^::ffff:127\./.test(h) || /^(0{1,4}:){7}0{0,3}1$/.test(h);
  return false;
}

/** The host a target address names, read as Harbor's delivery reads it (http:// when no scheme). */
export function addressHost(address: string): string | undefined {
  const trimmed = address.trim();
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`).hostname;
  } catch {
    return undefined;
  }
}
