// --trace and --trace-file: the wire exchange, as the MCP walkthroughs show captures. For stdio
// (and any message-level view) each JSON-RPC message with its direction; for HTTP each request
// and response with method, path, status, the MCP headers, SSE events split out, pretty bodies.
// Pretty output goes to stderr (stdout stays machine-readable); the file gets JSON lines.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, Server as NodeHttpServer, ServerResponse } from 'node:http';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { JsonRpcMessage } from '../jsonrpc/messages.js';
import { readSseStream } from '../transports/http/sse.js';
import type { StatusLine, Style } from './term.js';

/** Headers shown in the pretty trace (the file records every header). */
const SHOWN_HEADERS = [
  'mcp-session-id',
  'mcp-protocol-version',
  'accept',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'authorization',
  'x-api-key',
  'www-authenticate',
  'location',
];
const SECRET_HEADERS = new Set(['authorization', 'x-api-key']);

/** Statuses whose Response may not have a body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export interface TraceOptions {
  /** Print to stderr (through the status line). */
  pretty: boolean;
  /** Append JSON lines here. */
  file?: string;
}

/** Who is talking, for the pretty arrows: a client sends →, a server sends ← (from our side). */
export type Side = 'client' | 'server';

export class Tracer {
  private fd: number | undefined;
  private readonly style: Style;
  private readonly t0 = Date.now();

  constructor(
    private readonly o: TraceOptions,
    private readonly status: StatusLine,
  ) {
    this.style = status.style;
    if (o.file !== undefined) this.fd = openSync(o.file, 'a');
  }

  get enabled(): boolean {
    return this.o.pretty || this.fd !== undefined;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** One JSON line in the trace file. */
  private record(entry: Record<string, unknown>): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  }

  private show(text: string): void {
    if (this.o.pretty) this.status.print(text);
  }

  private stamp(): string {
    return this.style.dim(`+${((Date.now() - this.t0) / 1000).toFixed(3)}s`);
  }

  /**
   * Message-level tracing as middleware (first in the list, so it sees the wire). `self` says
   * which side we are: a client's outgoing messages go →, a server's outgoing go ←.
   */
  middleware(self: Side, transport: string, tag?: () => string | undefined): MessageMiddleware {
    const out = self === 'client' ? '→' : '←';
    const inn = self === 'client' ? '←' : '→';
    return {
      incoming: (m, next) => {
        this.message(inn, m, transport, self === 'client' ? 'server→client' : 'client→server', tag?.());
        return next(m);
      },
      outgoing: (m, next) => {
        this.message(out, m, transport, self === 'client' ? 'client→server' : 'server→client', tag?.());
        return next(m);
      },
    };
  }

  /** One message, with its direction. */
  message(arrow: string, m: JsonRpcMessage, transport: string, direction: string, tag?: string): void {
    this.record({ transport, direction, ...(tag ? { session: tag } : {}), message: m });
    if (!this.o.pretty) return;
    const s = this.style;
    const paint = arrow === '→' ? s.cyan : s.magenta;
    this.show(`${paint(arrow)} ${s.bold(describe(m))}${tag ? s.dim(` [${tag}]`) : ''}  ${this.stamp()}\n${indent(pretty(m))}`);
  }

  /** A fetch that traces every exchange; SSE bodies are teed so the client still reads them. */
  fetch(inner: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
    let seq = 0;
    const traced = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const n = ++seq;
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      const body = typeof init?.body === 'string' ? init.body : undefined;
      const path = url.pathname + url.search;
      this.record({ transport: 'http', event: 'request', seq: n, method, url: url.href, headers: headerObject(headers, true), body: parseMaybe(body) });
      if (this.o.pretty) {
        const s = this.style;
        this.show(
          `${s.cyan('→')} ${s.bold(`${method} ${path}`)}  ${this.stamp()}${headerLines(headers, s)}${body === undefined ? '' : `\n${indent(prettyText(body))}`}`,
        );
      }
      const started = Date.now();
      let res: Response;
      try {
        res = await inner(input, init);
      } catch (err) {
        this.record({ transport: 'http', event: 'error', seq: n, method, url: url.href, error: (err as Error).message });
        this.show(`${this.style.red('✖')} ${method} ${path} failed: ${(err as Error).message}`);
        throw err;
      }
      const ms = Date.now() - started;
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      const head = () => {
        const s = this.style;
        const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
        const paint = res.ok ? s.green : s.red;
        return `${s.magenta('←')} ${paint(s.bold(status))} ${s.dim(`${method} ${path} · ${ms} ms`)}${headerLines(res.headers, s)}`;
      };
      const respRecord = {
        transport: 'http',
        event: 'response',
        seq: n,
        method,
        url: url.href,
        status: res.status,
        headers: headerObject(res.headers, true),
        ms,
      };
      if (type === 'text/event-stream' && res.body) {
        this.record(respRecord);
        this.show(head());
        const [mine, theirs] = res.body.tee();
        void this.followSse(mine, n, method, path).catch(() => {});
        return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
      }
      const text = res.body && !NULL_BODY.has(res.status) ? await res.text() : '';
      this.record({ ...respRecord, body: parseMaybe(text) });
      this.show(text === '' ? head() : `${head()}\n${indent(prettyText(text))}`);
      return new Response(NULL_BODY.has(res.status) ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
    return traced as typeof fetch;
  }

  /**
   * The server side of an HTTP trace: each exchange's method, path, status, timing and MCP
   * headers, as the client side shows them (the messages themselves come from the middleware).
   * It listens before the MCP handler, so even an answer written at once is seen.
   */
  httpServer(http: NodeHttpServer): void {
    let seq = 0;
    http.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const n = ++seq;
      const started = Date.now();
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      this.record({ transport: 'http', event: 'request', seq: n, method, path, headers: headerObject(headers, true), remoteAddress: req.socket.remoteAddress });
      const s = this.style;
      this.show(`${s.cyan('→')} ${s.bold(`${method} ${path}`)}  ${this.stamp()}${headerLines(headers, s)}`);
      let sse = false;
      // The MCP handler passes its headers to writeHead rather than setHeader, so they are read
      // from the call; patching this one response object is the only way to see them.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      (res as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
        const r = writeHead(...args);
        const out = responseHeaders(res, args);
        const ms = Date.now() - started;
        sse = (out.get('content-type') ?? '').startsWith('text/event-stream');
        this.record({ transport: 'http', event: 'response', seq: n, method, path, status: res.statusCode, headers: headerObject(out, true), ms });
        const paint = res.statusCode < 400 ? s.green : s.red;
        this.show(
          `${s.magenta('←')} ${paint(s.bold(`${res.statusCode} ${res.statusMessage ?? ''}`.trim()))} ${s.dim(`${method} ${path} · ${ms} ms`)}${headerLines(out, s)}`,
        );
        return r;
      };
      // An HTTP-level refusal (401, 404 for an unknown session...) has a body no middleware sees.
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      (res as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
        const body = args[0];
        if (res.statusCode >= 400 && (typeof body === 'string' || Buffer.isBuffer(body)) && body.length > 0) {
          const text = body.toString();
          this.record({ transport: 'http', event: 'response-body', seq: n, method, path, body: parseMaybe(text) });
          this.show(indent(prettyText(text)));
        }
        return end(...args);
      };
      res.once('close', () => {
        if (!sse) return;
        this.record({ transport: 'http', event: 'sse-end', seq: n, method, path });
        this.show(s.dim(`← SSE stream closed (${method} ${path} · ${Date.now() - started} ms)`));
      });
    });
  }

  private async followSse(body: ReadableStream<Uint8Array>, seq: number, method: string, path: string): Promise<void> {
    for await (const ev of readSseStream(body)) {
      this.record({ transport: 'http', event: 'sse', seq, method, path, id: ev.id, type: ev.event, retry: ev.retry, data: parseMaybe(ev.data) });
      if (!this.o.pretty) continue;
      const s = this.style;
      const fields = [
        ev.id !== undefined ? `id: ${ev.id}` : '',
        ev.event !== 'message' ? `event: ${ev.event}` : '',
        ev.retry !== undefined ? `retry: ${ev.retry}` : '',
      ]
        .filter(Boolean)
        .join('  ');
      const what = describeText(ev.data);
      this.show(
        `${s.magenta('←')} ${s.yellow('SSE')} ${s.bold(what)}${fields ? s.dim(`  ${fields}`) : ''} ${s.dim(`(${method} ${path})`)}  ${this.stamp()}${ev.data === '' ? '' : `\n${indent(prettyText(ev.data))}`}`,
      );
    }
    this.record({ transport: 'http', event: 'sse-end', seq, method, path });
    if (this.o.pretty) this.show(this.style.dim(`← SSE stream closed (${method} ${path})`));
  }
}

/** `request #1 tools/call`, `result #1`, `error #1 -32602`, `notification notifications/progress`. */
export function describe(m: unknown): string {
  if (Array.isArray(m)) return `batch of ${m.length}: ${m.map(describe).join(', ')}`;
  const msg = m as { id?: unknown; method?: unknown; result?: unknown; error?: { code?: unknown } } | null;
  if (!msg || typeof msg !== 'object') return 'not JSON-RPC';
  const id = msg.id === undefined ? '' : ` #${String(msg.id)}`;
  if (typeof msg.method === 'string') return msg.id === undefined ? msg.method : `${msg.method}${id}`;
  if (msg.error) return `error${id} ${String(msg.error.code ?? '')}`.trim();
  if ('result' in msg) return `result${id}`;
  return 'message';
}

function describeText(text: string): string {
  if (text === '') return 'event without data (priming)';
  try {
    return describe(JSON.parse(text));
  } catch {
    return 'event';
  }
}

function parseMaybe(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function pretty(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

function prettyText(text: string): string {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

function indent(text: string): string {
  return text.replace(/^/gm, '    ');
}

function headerLines(h: Headers, s: Style): string {
  let out = '';
  for (const name of SHOWN_HEADERS) {
    const v = h.get(name);
    if (v === null) continue;
    out += `\n  ${s.dim(`${canonical(name)}:`)} ${SECRET_HEADERS.has(name) ? redact(v) : v}`;
  }
  return out;
}

/** The headers a response went out with: those set before writeHead, and those given to it. */
function responseHeaders(res: ServerResponse, args: unknown[]): Headers {
  const h = new Headers();
  const add = (k: string, v: unknown) => {
    if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  };
  for (const [k, v] of Object.entries(res.getHeaders() as OutgoingHttpHeaders)) add(k, v);
  const given = args.slice(1).find((a) => a !== null && typeof a === 'object');
  if (Array.isArray(given)) {
    // [[name, value], ...] or the flat [name, value, name, value, ...] form.
    if (given.every((e) => Array.isArray(e))) for (const [k, v] of given as unknown[][]) add(String(k), v);
    else for (let i = 0; i + 1 < given.length; i += 2) add(String(given[i]), given[i + 1]);
  } else if (given) for (const [k, v] of Object.entries(given as Record<string, unknown>)) add(k, v);
  return h;
}

function headerObject(h: Headers, hideSecrets: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[canonical(k)] = hideSecrets && SECRET_HEADERS.has(k) ? redact(v) : v;
  });
  return out;
}

function redact(v: string): string {
  const m = /^(\w+)\s+(.+)$/.exec(v);
  return m ? `${m[1]} ***` : '***';
}

const SPELLING: Record<string, string> = {
  'mcp-protocol-version': 'MCP-Protocol-Version',
  'last-event-id': 'Last-Event-ID',
  'www-authenticate': 'WWW-Authenticate',
  'x-api-key': 'X-API-Key',
};

function canonical(name: string): string {
  return SPELLING[name] ?? name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
}
