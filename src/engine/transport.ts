import type { Decoded } from '../jsonrpc/codec.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/messages.js';
import type { Era } from '../protocol/era.js';

/** Extra facts a transport knows about an inbound frame. */
export interface FrameInfo {
  /** Authenticated principal, when the transport has one (HTTP auth hooks). */
  authInfo?: AuthInfo;
  /** Remote address, when known. */
  remoteAddress?: string;
  /**
   * The era of the frame's requests, when the transport has already decided it (the HTTP core,
   * which needs it to route, with `requestEra`). Absent: the server decides, once, per request.
   */
  era?: Era;
  /**
   * Set when a request to the peer on behalf of this frame's requests could never be answered
   * (stateless HTTP: the answer would come in another POST, with nothing to route it back): why,
   * in words a user can act on. Whoever would send one fails at once with it.
   */
  cannotAsk?: string;
  /**
   * The HTTP request the frame came in (the HTTP server core): its headers, for whoever needs
   * one the protocol does not carry (a `traceparent` for tracing).
   */
  http?: HttpHeaders;
  /**
   * The frame's JSON text, when the frame is one request and reaches the server as it arrived
   * (no middleware changed it): a 2026-07-28 multi round-trip request reads its params snapshot
   * from this immutable text only if the handler asks for input, instead of copying them always.
   */
  body?: string;
}

export interface HttpHeaders {
  /** Header value by lower-case name. */
  header(name: string): string | undefined;
}

/** What carries the messages, for observers (tracing records it); absent: unknown. */
export type TransportKind = 'stdio' | 'http' | 'memory';

export interface AuthInfo {
  /** Stable identifier of the caller (API key id, token subject...). */
  principal: string;
  scopes?: string[];
  token?: string;
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** When the credential expires, in seconds since the epoch (a JWT's `exp`). The HTTP server's OAuth refuses it after that. */
  expiresAt?: number;
  /**
   * Whom the token was issued for (a JWT's `aud`, the RFC 8707 resource). The HTTP server's OAuth
   * refuses a token whose audience does not name this server.
   */
  audience?: string | string[];
  /**
   * The key a sender-constrained token is bound to (its `cnf` claim, RFC 7800): `jkt` is the
   * JWK SHA-256 thumbprint of a DPoP key (RFC 9449). The HTTP server's OAuth then requires a
   * DPoP proof signed with that key, and refuses any other binding, which it cannot check.
   */
  confirmation?: { jkt?: string; [method: string]: unknown };
  extra?: Record<string, unknown>;
}

export interface SendOptions {
  /** The inbound request this message answers or belongs to; HTTP uses it to pick a stream. */
  relatedRequestId?: RequestId;
  /** Extra per-message HTTP headers (2026-07-28 `Mcp-Param-*` mirrors); non-HTTP transports ignore them. */
  headers?: Record<string, string>;
  /**
   * What the message is, said by whoever built it: 'modern' for a 2026-07-28 request (its own
   * POST over HTTP, no session). Absent: a handshake-era message. Transports never guess it.
   */
  era?: Era;
}

/**
 * The whole transport contract: move whole JSON-RPC messages. Framing, HTTP and SSE live below
 * it; request correlation lives above it.
 *
 * Inbound frames are handed up raw (a JSON text, or an already-parsed value for in-process
 * transports); the engine decodes them so that size/depth limits and error replies are the same
 * for every transport. A transport that must decode a frame itself to route it (the HTTP core)
 * hands the result to `ondecoded` instead, so that no frame is decoded twice.
 */
export interface Transport {
  readonly kind?: TransportKind;
  /** Begin reading. Called once by the engine after the callbacks are set. */
  start(): Promise<void>;
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((frame: unknown, info?: FrameInfo) => void) | undefined;
  /**
   * Set by the engine: takes a frame the transport already decoded with `decodeFrame`, under
   * limits no looser than the engine's (`Peer.limits`), errors included; the engine handles it
   * exactly as it would the same frame from `onmessage`.
   */
  ondecoded?: ((decoded: Decoded, info?: FrameInfo) => void) | undefined;
  /** Fired once when the transport is closed, from either side. */
  onclose?: ((reason?: Error) => void) | undefined;
  /** Non-fatal problems (a bad write, a stray line). */
  onerror?: ((error: Error) => void) | undefined;
  /**
   * Set by the engine: a transport that knows an outgoing request can no longer be answered
   * (its HTTP stream broke and cannot be resumed) calls it, so the caller fails at once instead
   * of waiting for the timeout.
   */
  onrequestlost?: ((requestId: RequestId, error: Error) => void) | undefined;
}
