// One connection pool, rate limiter and concurrency cap per Harbor: every client of the same base
// URL and TLS settings shares them, whatever its credentials, so that the limits a connection sets
// hold for all the operator sends there. A pool closes when its last client is released.
import { getCACertificates } from "node:tls";
import { Semaphore, TokenBucket } from "./limits.ts";
import { Pool } from "./pool.ts";
import type { HarborConnectionSettings } from "./transport.ts";

export interface Endpoint {
  pool: Pool;
  bucket: TokenBucket;
  slots: Semaphore;
  refs: number;
}

/**
 * The CAs a connection with a CA bundle trusts: Node's default ones (its bundled store, and the
 * system's and NODE_EXTRA_CA_CERTS where Node is told to use them) and the bundle; with `only`, the
 * bundle alone. Node's `ca` option replaces the defaults, so they are listed here.
 */
export function trustedCertificates(caBundle: string, only: boolean): string | string[] {
  return only ? caBundle : [...getCACertificates("default"), caBundle];
}

/**
 * One connection pool, rate limiter and concurrency cap per Harbor base URL (and TLS settings, since
 * they belong to the connections). Clients with different credentials for the same Harbor share them.
 */
export class EndpointRegistry {
  readonly #endpoints = new Map<string, Endpoint>();

  acquire(s: HarborConnectionSettings): { endpoint: Endpoint; release: () => Promise<void> } {
    const key = JSON.stringify([
      baseUrl(s.url),
      s.caBundle ?? "",
      s.caBundleOnly === true,
      s.insecureSkipTLSVerify === true,
    ]);
    let endpoint = this.#endpoints.get(key);
    if (!endpoint) {
      const origin = new URL(s.url).origin;
      const maxConcurrency = s.maxConcurrency ?? 8;
      endpoint = {
        pool: new Pool(origin, {
          connections: maxConcurrency,
          keepAliveTimeout: 30_000,
          connect: {
            ...(s.caBundle ? { ca: trustedCertificates(s.caBundle, s.caBundleOnly === true) } : {}),
            rejectUnauthorized: s.insecureSkipTLSVerify !== true,
          },
        }),
        bucket: new TokenBucket(s.requestsPerSecond ?? 20, s.burst ?? 40),
        slots: new Semaphore(maxConcurrency),
        refs: 0,
      };
      this.#endpoints.set(key, endpoint);
    }
    endpoint.refs++;
    const held = endpoint;
    let released = false;
    return {
      endpoint: held,
      release: async () => {
        if (released) return;
        released = true;
        held.refs--;
        if (held.refs === 0) {
          this.#endpoints.delete(key);
          await held.pool.close();
        }
      },
    };
  }
}

export const defaultEndpoints = new EndpointRegistry();

/** The Harbor base URL without a trailing slash; only http and https. */
export function baseUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new TypeError(`Harbor URL must be http or https: ${u.protocol}`);
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}
