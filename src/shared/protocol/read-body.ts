/**
 * Read a request body with a ceiling, counting while reading: a client that declares a small
 * Content-Length (or none, chunked) and keeps sending is cut off as soon as the count passes
 * the limit, so the server never holds more than `limit` bytes of one body. The team client
 * reads the server's answers the same way. Web-standard streams only (a fetch `Response.body`,
 * a Hono request's `raw.body`), so it needs nothing from Node.
 */
export type BodyOutcome =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: 'too-large'; received: number }
  | { ok: false; reason: 'aborted'; error: unknown };

export async function readBodyLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyOutcome> {
  if (!body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > limit) {
        // Stop pulling: the rest is never read into memory (the HTTP layer closes the socket).
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: 'too-large', received };
      }
      chunks.push(value);
    }
  } catch (error) {
    return { ok: false, reason: 'aborted', error };
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
