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

/**
 * Whether an address is private in the sense of the patches that refuse webhook delivery to
 * private addresses: loopback, RFC 1918, shared (100.64/10), link-local, unspecified, IPv6 unique-
 * and link-local (IPv4-mapped addresses by their IPv4 address), and the name localhost. Other names
 * are not judged here (see `isPrivateAddress` for a resolved one).
 */
export function isPrivateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  return isPrivateAddress(h);
}

/** An IP address (v4 or v6) in one of the private ranges of `isPrivateHost`; false for a name. */
export function isPrivateAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (isIPv4(a)) {
    const [x = 0, y = 0] = a.split(".").map(Number);
    return (
      x === 10 ||
      x === 127 ||
      x === 0 ||
      (x === 172 && y >= 16 && y <= 31) ||
      (x === 192 && y === 168) ||
      (x === 169 && y === 254) ||
      (x === 100 && y >= 64 && y <= 127)
    );
  }
  if (isIPv6(a)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
    if (mapped) return isPrivateAddress(mapped[1] as string);
    return a === "::" || isLoopbackHost(a) || /^f[cd][0-9a-f]{0,2}:/.test(a) || /^fe[89ab][0-9a-f]?:/.test(a);
  }
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
