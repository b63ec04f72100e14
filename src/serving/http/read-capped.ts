// Reading a web-standard body with a size cap, for the fetch handlers of the MCP server and the
// authorization server.

/** A body as text, or undefined past `max` bytes (reading stops there, the rest is cancelled). */
export async function readCapped(message: Request | Response, max: number): Promise<string | undefined> {
  if (Number(message.headers.get('content-length') ?? 0) > max) return undefined;
  if (!message.body) return '';
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
