import type { AuthInfo } from '../../engine/transport.js';

/**
 * The tiny HTTP surface the server core speaks. Two adapters fill it: node:http (writes straight
 * to ServerResponse, no Request/Response objects) and web-standard fetch (Bun, Deno, Workers).
 */

export interface HttpRequestView {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Raw query string without the leading `?` ('' when none). */
  readonly query: string;
  /** Header value by lower-case name. */
  header(name: string): string | undefined;
  readonly remoteAddress?: string;
  /**
   * The origin (`scheme://host[:port]`) the request was addressed to, as the adapter sees it: the
   * Request's URL (fetch), or the Host header with https only on a TLS socket (node). Behind a
   * proxy that terminates TLS it says http.
   */
  readonly urlOrigin?: string;
  /**
   * The body as text, read at most once. Resolves `undefined` when it exceeds `limit` bytes
   * (the adapter stops reading).
   */
  readBody(limit: number): Promise<string | undefined>;
  /**
   * The body, when the adapter holds it already (serve()'s own front reads it whole before it
   * serves) and it is within `limit` bytes; null otherwise (then `readBody` answers). Read at most
   * once, as `readBody`: a request with no promise for its body.
   */
  bodyNow?(limit: number): string | null;
  /**
   * The caller as a web framework's own authentication middleware established it (the express,
   * hono and fastify adapters fill it). It admits the request in place of `authenticate`; `oauth`
   * checks the bearer token itself whatever this says.
   */
  readonly authInfo?: AuthInfo;
}

export type HeaderMap = Record<string, string>;

/** A response being written: either whole, or as an open stream (SSE). */
export interface HttpResponder {
  /** A complete response. */
  send(status: number, headers: HeaderMap, body?: string): void;
  /** Starts a streaming response and returns its writer. */
  stream(status: number, headers: HeaderMap): StreamWriter;
  /** Called once if the client goes away before the response is complete. */
  onAbort?(listener: () => void): void;
  /**
   * Adds a header to the response still to come (the `DPoP-Nonce` of an admitted request).
   * Optional: a responder without it just goes without such extras.
   */
  setHeader?(name: string, value: string): void;
}

export interface StreamWriter {
  /** Writes a chunk; false once the connection is gone. */
  write(chunk: string): boolean;
  end(): void;
  readonly closed: boolean;
  /** Called once when the connection closes, by either side. */
  onClose(listener: () => void): void;
}

/**
 * The origin a request was addressed to (`urlOrigin`, else the Host header), or undefined when
 * that names no origin: a Host header smuggling a path, query or credentials is refused, since
 * what is built from it (a resource identifier, a card's URLs) is handed to clients.
 */
export function requestOrigin(req: HttpRequestView): string | undefined {
  let u: URL;
  try {
    u = new URL(req.urlOrigin ?? `http://${req.header('host') ?? 'localhost'}`);
  } catch {
    return undefined;
  }
  if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) return undefined;
  return u.origin;
}
