import type { HttpRequestView, HttpResponder } from './exchange.js';

/** Health and readiness endpoints for a load balancer or an orchestrator (docs/scaling.md). */
export interface HealthOptions {
  /** Liveness: 200 as long as the process answers at all. Default '/healthz'. */
  livePath?: string;
  /** Readiness: 200 when this instance can serve, 503 while it cannot or is draining. Default '/readyz'. */
  readyPath?: string;
  /**
   * Why this instance cannot serve right now (e.g. "Redis at … is unreachable"), or undefined
   * when it can. While it gives a reason, readiness is 503 and MCP requests are refused at once
   * with 503 and that reason (a JSON-RPC error carrying the request's id when there is one)
   * instead of waiting on what is missing.
   */
  unavailable?: () => string | undefined;
  /**
   * For an instance part of which may be missing while the rest serves (a gateway's backends):
   * `ready: false` answers readiness with 503 but refuses no MCP request; `reason` says what is
   * missing (with `ready` true, the status is `degraded`); `detail` joins the probe's JSON body.
   */
  readiness?: () => { ready: boolean; reason?: string; detail?: Record<string, unknown> };
}

const JSON_TYPE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** What a request refused while draining is told. */
export const DRAINING_MESSAGE = 'Service Unavailable: this server instance is shutting down; send the request again (another instance will take it)';

/**
 * Answers the probes, and refuses MCP work while the instance is draining or cannot reach what
 * it depends on. Kept apart from the routing so that an instance without probes pays nothing.
 */
export class Lifecycle {
  draining = false;
  private readonly live: string;
  private readonly ready: string;
  private readonly unavailable: (() => string | undefined) | undefined;
  private readonly readiness: HealthOptions['readiness'];

  constructor(options: HealthOptions | undefined) {
    this.live = options?.livePath ?? '/healthz';
    this.ready = options?.readyPath ?? '/readyz';
    this.unavailable = options?.unavailable;
    this.readiness = options?.readiness;
  }

  /** Whether `path` is a probe (only when probes are on). */
  isProbe(path: string): boolean {
    return path === this.live || path === this.ready;
  }

  paths(): string[] {
    return [this.live, this.ready];
  }

  probe(req: HttpRequestView, res: HttpResponder): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.send(405, { ...JSON_TYPE, allow: 'GET, HEAD' }, JSON.stringify({ status: 'error', reason: `Method Not Allowed: ${req.method}` }));
      return;
    }
    if (req.path === this.live) return res.send(200, JSON_TYPE, JSON.stringify({ status: 'ok' }));
    const why = this.refusal();
    if (why !== undefined) return res.send(503, JSON_TYPE, JSON.stringify({ status: this.draining ? 'draining' : 'unavailable', reason: why }));
    const r = this.readiness?.();
    if (r === undefined) return res.send(200, JSON_TYPE, JSON.stringify({ status: 'ready' }));
    const status = !r.ready ? 'starting' : r.reason === undefined ? 'ready' : 'degraded';
    res.send(r.ready ? 200 : 503, JSON_TYPE, JSON.stringify({ status, ...(r.reason !== undefined && { reason: r.reason }), ...r.detail }));
  }

  /** Why MCP requests are refused right now, or undefined when they are served. */
  refusal(): string | undefined {
    if (this.draining) return DRAINING_MESSAGE;
    const why = this.unavailable?.();
    return why === undefined ? undefined : `Service Unavailable: ${why}`;
  }

  /**
   * 503 with the reason, fast: a JSON-RPC error, with the request's id when the body is a single
   * request (read within a small bound; anything else gets id null). While draining the
   * connection is closed after the answer, so a keep-alive client moves to another instance.
   */
  async refuse(req: HttpRequestView, res: HttpResponder, why: string): Promise<void> {
    let id: unknown = null;
    if (req.method === 'POST') {
      try {
        const body = await req.readBody(64 * 1024);
        const parsed = body === undefined ? undefined : (JSON.parse(body) as { id?: unknown });
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && (typeof parsed.id === 'string' || typeof parsed.id === 'number')) id = parsed.id;
      } catch {
        // Not JSON: id null, as for any request whose id cannot be read.
      }
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'retry-after': '1' };
    if (this.draining) headers.connection = 'close';
    res.send(503, headers, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: why } }));
  }
}
