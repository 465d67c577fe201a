// Reading Harbor's answers within a bound: no server can make the operator hold more than a call's
// limit of bytes, or parse a body into more objects than it allows (see transport.ts).
import type { Dispatcher } from "./pool.ts";

/**
 * The body as text, or `over` once it passes `limit` bytes: at once when Content-Length announces
 * more (a HEAD's Content-Length describes the GET, so only bodies that can come count), else as
 * soon as the streamed bytes pass it. Either way the body is destroyed unread, which closes the
 * connection; no more than `limit` bytes are ever held.
 */
export async function readLimited(
  res: Dispatcher.ResponseData,
  limit: number,
  hasBody: boolean,
): Promise<{ over: false; text: string } | { over: true; declared?: number }> {
  const length = Number(headerValue(res.headers["content-length"]) ?? Number.NaN);
  if (hasBody && Number.isFinite(length) && length > limit) {
    res.body.destroy();
    return { over: true, declared: length };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      res.body.destroy();
      return { over: true };
    }
    chunks.push(chunk);
  }
  return { over: false, text: Buffer.concat(chunks, size).toString("utf8") };
}

/** The objects and arrays in a JSON text (brackets outside strings), counted up to `max + 1`. */
export function jsonObjects(text: string, max: number): number {
  let n = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the character after it.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if ((c === 0x7b || c === 0x5b) && ++n > max) return n;
  }
  return n;
}

export function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}
