import type { McpServer } from '../../server/mcp-server.js';
import { servingPort, type ServerPort } from '../../server/server.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import { Lifecycle, type HealthOptions } from './lifecycle.js';
import { LegacySseHandler, type LegacySseOptions, type Screen } from './legacy-sse.js';
import { sendError } from './responses.js';
import { ServerCardHost, type ServerCardHostOptions } from './server-card.js';
import { StreamableHttpHandler, type StreamableHttpOptions } from './streamable.js';

export interface HttpServerOptions extends StreamableHttpOptions {
  /** Also serve the deprecated HTTP+SSE transport (`/sse` + `/messages`). Default true. */
  legacySse?: boolean | LegacySseOptions;
  /**
   * Serve the Server Card at `<endpoint>/server-card` and `/.well-known/mcp/server-card.json`
   * (docs/discovery.md). `true` takes everything from the server definition, which then needs a
   * reverse-DNS name and a description. Default off.
   */
  serverCard?: boolean | ServerCardHostOptions;
  /**
   * Serve liveness and readiness probes (`/healthz`, `/readyz`), and refuse MCP requests at once
   * while `unavailable` gives a reason (docs/scaling.md). Default off.
   */
  health?: boolean | HealthOptions;
}

/** Routes one HTTP request to Streamable HTTP or legacy HTTP+SSE, on the same port. */
export class McpHttpHandler {
  readonly streamable: StreamableHttpHandler;
  readonly legacy: LegacySseHandler | undefined;
  private closed = false;
  /** Per-request OAuth scopes of HTTP+SSE POSTs (only with `oauth.scopesFor`). */
  private readonly screen: Screen | undefined;
  readonly card: ServerCardHost | undefined;
  /** Probes, the availability gate and draining; undefined (no cost) until asked for. */
  private lifecycle: Lifecycle | undefined;
  private readonly probes: boolean;

  constructor(server: McpServer | ServerPort, options: HttpServerOptions = {}) {
    const low = servingPort(server);
    const card = options.serverCard ?? false;
    const cardOptions = card === true ? {} : card || undefined;
    if (cardOptions) ServerCardHost.check(low, cardOptions);
    this.streamable = new StreamableHttpHandler(low, options);
    const legacy = options.legacySse ?? true;
    if (legacy)
      this.legacy = new LegacySseHandler(low, { keepAliveMs: options.keepAliveMs, maxBodyBytes: options.maxBodyBytes, ...(legacy === true ? {} : legacy) });
    const oauth = this.streamable.oauth;
    if (oauth?.perMessage) this.screen = (body, authInfo, req, res) => oauth.checkMessages(Array.isArray(body) ? body : [body], authInfo, req, res);
    if (this.legacy) oauth?.addLegacy(this.legacy.ssePath, this.legacy.messagesPath);
    if (cardOptions) this.card = new ServerCardHost(low, this.streamable.endpoint, this.legacy?.ssePath, cardOptions);
    const health = options.health ?? false;
    this.probes = health !== false;
    if (health !== false) this.lifecycle = new Lifecycle(health === true ? undefined : health);
  }

  /**
   * Starts draining (a shutdown): readiness turns 503, new MCP requests are refused with 503 and
   * a closed connection, and standalone GET streams end so that their clients reconnect
   * elsewhere. Running requests go on; `hangUp` then ends the streams they still have open.
   */
  drain(): void {
    (this.lifecycle ??= new Lifecycle(undefined)).draining = true;
    this.streamable.hangUp('standalone');
  }

  get draining(): boolean {
    return this.lifecycle?.draining === true;
  }

  /** Ends every open response stream resumably (see `drain`). */
  hangUp(): void {
    this.streamable.hangUp('all');
  }

  /**
   * Whether `path` is one this handler answers (the endpoint, HTTP+SSE, OAuth metadata, the
   * Server Card): a framework adapter hands other paths on to the application's next route.
   */
  serves(path: string): boolean {
    return (
      path === this.streamable.endpoint ||
      this.legacy?.matches(path) === true ||
      this.streamable.oauth?.isMetadataPath(path) === true ||
      this.card?.matches(path) === true ||
      (this.probes && this.lifecycle!.isProbe(path))
    );
  }

  /** Every path `serves` accepts, for routers that register routes one by one (Fastify). */
  paths(): string[] {
    const out = [this.streamable.endpoint];
    if (this.legacy) out.push(this.legacy.ssePath, this.legacy.messagesPath);
    out.push(...(this.streamable.oauth?.metadataPaths() ?? []), ...(this.card?.paths() ?? []));
    if (this.probes) out.push(...this.lifecycle!.paths());
    return [...new Set(out)];
  }

  handle(req: HttpRequestView, res: HttpResponder): Promise<void> {
    // The usual request, to the endpoint of a server that serves it now: the endpoint's own
    // promise is the answer (an async function returning it would add a promise and two hops).
    const life = this.lifecycle;
    if (
      !this.closed &&
      req.path === this.streamable.endpoint &&
      (life === undefined || (!(this.probes && life.isProbe(req.path)) && (req.method === 'OPTIONS' || life.refusal() === undefined)))
    ) {
      try {
        return this.streamable.handle(req, res);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.handleAny(req, res);
  }

  private async handleAny(req: HttpRequestView, res: HttpResponder): Promise<void> {
    // After close() a late request (a kept-alive connection, a fetch runtime) must not open a
    // session nobody will ever close.
    if (this.closed) return sendError(res, 503, 'Service Unavailable: the server is shutting down', -32603);
    const life = this.lifecycle;
    if (life !== undefined) {
      if (this.probes && life.isProbe(req.path)) return life.probe(req, res);
      const why = req.method === 'OPTIONS' ? undefined : life.refusal();
      if (why !== undefined && (req.path === this.streamable.endpoint || this.legacy?.matches(req.path))) return life.refuse(req, res, why);
    }
    if (req.path === this.streamable.endpoint) return this.streamable.handle(req, res);
    if (this.legacy?.matches(req.path)) {
      const admitted = await this.streamable.admit(req, res);
      if (admitted) await this.legacy.handle(req, res, admitted.authInfo, this.screen);
      return;
    }
    const oauth = this.streamable.oauth;
    if (oauth?.isMetadataPath(req.path)) return oauth.serveMetadata(req, res);
    // Public by design (no credentials, any origin): read before connecting.
    if (this.card?.matches(req.path)) return this.card.handle(req, res);
    sendError(res, 404, `Not Found: no MCP endpoint at ${req.path}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.legacy?.close();
    await this.streamable.close();
  }
}
