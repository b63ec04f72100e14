import { DEFAULT_LIMITS, decodeValue } from '../../jsonrpc/codec.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import type { ServerPort } from '../../server/server.js';
import type { FrameInfo, SendOptions, Transport } from '../../engine/transport.js';
import { afterGap, ProgressGap } from '../../transports/progress-gap.js';
import { SSE_HEADERS } from './channel.js';
import type { HttpRequestView, HttpResponder, StreamWriter } from './exchange.js';
import { accepts, isJsonContentType, readJsonBody, REFUSED, sendError } from './responses.js';
import type { AuthInfo } from '../../engine/transport.js';
import { LegacySseRelay } from './legacy-sse-relay.js';

export interface LegacySseOptions {
  /** Path of the event stream. Default '/sse'. */
  ssePath?: string;
  /** Path clients POST to. Default '/messages'. */
  messagesPath?: string;
  keepAliveMs?: number;
  maxBodyBytes?: number;
  /**
   * How long the result of a request waits after that request's last progress notification
   * (default 10 ms; 0 never waits): the official v1 SDK client drops a progress notification
   * that it reads together with the result.
   */
  progressGapMs?: number;
  /**
   * With a message bus (`McpServer({ bus })`, `serve --redis`), a POST for a stream another
   * instance holds is forwarded to it; this is how long the holder has to accept it before
   * the POST counts as for an unknown session (404). Default 5000 ms.
   */
  forwardTimeoutMs?: number;
}

const UNKNOWN = 'Not Found: unknown or closed SSE session';

/** Looks at a POSTed body before it is accepted; false once it has answered with a refusal. */
export type Screen = (body: unknown, authInfo: AuthInfo | undefined, req: HttpRequestView, res: HttpResponder) => boolean;

/** One HTTP+SSE connection: everything the server sends goes down its single stream. */
class SseConnectionTransport implements Transport {
  get kind(): 'http' {
    return 'http';
  }
  onmessage?: (frame: unknown, info?: FrameInfo) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  private closed = false;
  private readonly gap: ProgressGap;
  constructor(
    private readonly writer: StreamWriter,
    progressGapMs: number | undefined,
  ) {
    this.gap = new ProgressGap(progressGapMs);
  }
  async start(): Promise<void> {}
  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed || this.writer.closed) return;
    const wait = this.gap.delay(message, options?.relatedRequestId);
    // A result right after its request's progress (see ProgressGap); other messages go ahead of it.
    if (wait > 0) await afterGap(wait);
    if (!this.writer.closed) this.writer.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writer.end();
    this.onclose?.();
  }
}

interface Connection {
  transport: SseConnectionTransport;
  principal: string | undefined;
}

/**
 * The deprecated HTTP+SSE transport (2024-11-05): `GET /sse` opens the stream and announces the
 * POST URL in an `endpoint` event; each `POST /messages?sessionId=…` answers 202 and the reply
 * travels on the stream. Kept for clients that predate Streamable HTTP.
 */
export class LegacySseHandler {
  readonly ssePath: string;
  readonly messagesPath: string;
  private readonly connections = new Map<string, Connection>();
  /** Idle (a listener in a map) until the server is on a message bus. */
  private readonly relay: LegacySseRelay;

  constructor(
    private readonly server: ServerPort,
    private readonly o: LegacySseOptions = {},
  ) {
    this.ssePath = o.ssePath ?? '/sse';
    this.messagesPath = o.messagesPath ?? '/messages';
    this.relay = new LegacySseRelay(server, (id, body, authInfo, remoteAddress) => this.deliver(id, body, authInfo, remoteAddress), o.forwardTimeoutMs ?? 5000);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  matches(path: string): boolean {
    return path === this.ssePath || path === this.messagesPath;
  }

  async handle(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo, screen?: Screen): Promise<void> {
    if (req.path === this.ssePath) {
      if (req.method !== 'GET') return sendError(res, 405, 'Method Not Allowed: use GET to open the event stream', -32600, { allow: 'GET' });
      return this.open(req, res, authInfo);
    }
    if (req.method !== 'POST') return sendError(res, 405, 'Method Not Allowed: use POST to send messages', -32600, { allow: 'POST' });
    return this.post(req, res, authInfo, screen);
  }

  private async open(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): Promise<void> {
    const accept = req.header('accept');
    if (accept !== undefined && !accepts(accept, 'text/event-stream'))
      return sendError(res, 406, 'Not Acceptable: the event stream needs Accept: text/event-stream');
    const id = globalThis.crypto.randomUUID();
    const writer = res.stream(200, SSE_HEADERS);
    const transport = new SseConnectionTransport(writer, this.o.progressGapMs);
    this.connections.set(id, { transport, principal: authInfo?.principal });
    const session = await this.server.connect(transport);
    const keepAliveMs = this.o.keepAliveMs ?? 15_000;
    const timer = keepAliveMs > 0 ? setInterval(() => writer.write(': keepalive\n\n'), keepAliveMs) : undefined;
    timer?.unref?.();
    const cleanup = () => {
      if (timer) clearInterval(timer);
      this.connections.delete(id);
      void session.close();
    };
    writer.onClose(cleanup);
    session.onClose(cleanup);
    // POSTs may come from other instances: announce the endpoint once this one hears them.
    if (this.server.bus !== undefined) await this.server.bus.ready;
    if (writer.closed) return;
    writer.write(`event: endpoint\ndata: ${this.messagesPath}?sessionId=${id}\n\n`);
  }

  private async post(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo, screen?: Screen): Promise<void> {
    const id = new URLSearchParams(req.query).get('sessionId');
    if (!id) return sendError(res, 400, 'Bad Request: the sessionId query parameter is required');
    const conn = this.connections.get(id);
    // Not here: with a bus, perhaps on another instance (see forward below).
    if (conn ? conn.principal !== authInfo?.principal : !this.relay.available) return sendError(res, 404, UNKNOWN);
    if (!isJsonContentType(req.header('content-type'))) return sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    const parsed = await readJsonBody(req, res, this.o.maxBodyBytes ?? DEFAULT_LIMITS.maxMessageSize);
    if (parsed === REFUSED) return;
    // The transport contract takes a string as JSON text: a body that is a JSON string is refused here.
    if (typeof parsed === 'string') return res.send(400, { 'content-type': 'application/json' }, JSON.stringify(decodeValue(parsed).errors[0]));
    if (screen && !screen(parsed, authInfo, req, res)) return;
    if (!conn) {
      const status = await this.relay.forward(id, parsed, authInfo, req.remoteAddress);
      if (status !== 202) return sendError(res, 404, UNKNOWN);
      return res.send(202, { 'content-type': 'text/plain' }, 'Accepted');
    }
    res.send(202, { 'content-type': 'text/plain' }, 'Accepted');
    conn.transport.onmessage?.(parsed, { authInfo, remoteAddress: req.remoteAddress });
  }

  /** A POST another instance forwarded: handled as if posted here, when this instance holds the stream. */
  private deliver(id: string, body: unknown, authInfo: AuthInfo | undefined, remoteAddress: string | undefined): 202 | 404 | undefined {
    const conn = this.connections.get(id);
    if (!conn) return undefined;
    if (conn.principal !== authInfo?.principal) return 404;
    // After the acknowledgement is on its way, as a local POST answers 202 before it is handled.
    queueMicrotask(() => conn.transport.onmessage?.(body, { authInfo, remoteAddress }));
    return 202;
  }

  close(): void {
    this.relay.close();
    for (const c of this.connections.values()) void c.transport.close();
    this.connections.clear();
  }
}
