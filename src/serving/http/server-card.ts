/**
 * Serves the Server Card (docs/discovery.md): at `<endpoint>/server-card`, the location the
 * card's draft reserves, and at `/.well-known/mcp/server-card.json`, where earlier drafts and
 * several hosts look. Public and read-only: CORS for any origin, an ETag with 304 revalidation,
 * Cache-Control. Optionally a site-level AI Catalog at `/.well-known/ai-catalog.json`.
 */
import { bytesToBase64url, utf8Bytes } from '../../protocol/encoding.js';
import { buildServerCard, endpointVersions, SERVER_CARD_MEDIA_TYPE, type CardRemote, type ServerCard, type ServerCardOptions } from '../../server/card.js';
import type { ServerPort } from '../../server/server.js';
import { requestOrigin, type HeaderMap, type HttpRequestView, type HttpResponder } from './exchange.js';
import { accepts, sendError } from './responses.js';

export interface ServerCardHostOptions extends ServerCardOptions {
  /**
   * The public URL of the MCP endpoint (`https://api.example.com/mcp`), for the card's remotes.
   * Default: derived from each request (Host header, https on a TLS socket). Set it behind a proxy.
   */
  url?: string;
  /** The card's remotes as they are, instead of the Streamable HTTP (and HTTP+SSE) ones derived here. */
  remotes?: CardRemote[];
  /** `Cache-Control: max-age` in seconds. Default 3600. */
  maxAgeSeconds?: number;
  /**
   * Also serve `/.well-known/ai-catalog.json` naming this card. Only for a server that speaks for
   * its whole domain: the catalog is site-wide. Default false.
   */
  aiCatalog?: boolean;
}

export const WELL_KNOWN_CARD = '/.well-known/mcp/server-card.json';
export const AI_CATALOG = '/.well-known/ai-catalog.json';
const AI_CATALOG_TYPE = 'application/ai-catalog+json';
const CORS: HeaderMap = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
};
const PREFLIGHT: HeaderMap = {
  ...CORS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-max-age': '86400',
};

/** Whether an If-None-Match header matches `etag` (weak comparison, as RFC 9110 asks for GET). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

/** `urn:air:{publisher}:mcp:{name}` from a card name: `com.example/weather` → `urn:air:example.com:mcp:weather`. */
export function catalogIdentifier(cardName: string): string {
  const [namespace, name] = cardName.split('/');
  return `urn:air:${namespace.split('.').reverse().join('.')}:mcp:${name}`;
}

export class ServerCardHost {
  readonly cardPath: string;
  private readonly maxAge: number;
  /** The last body and its ETag: the card changes only with the Host a request names. */
  private last: { body: string; etag: Promise<string> } | undefined;

  constructor(
    private readonly server: ServerPort,
    private readonly endpoint: string,
    private readonly ssePath: string | undefined,
    private readonly o: ServerCardHostOptions,
  ) {
    this.cardPath = `${endpoint.replace(/\/+$/, '')}/server-card`;
    this.maxAge = o.maxAgeSeconds ?? 3600;
  }

  /**
   * Refuses options that could never make a valid card, when the handler is built rather than
   * on the first GET (and before anything that would need closing is started).
   */
  static check(server: ServerPort, o: ServerCardHostOptions): void {
    const age = o.maxAgeSeconds ?? 3600;
    if (!(Number.isInteger(age) && age >= 0))
      throw new RangeError(`serverCard.maxAgeSeconds must be a whole number of 0 or more, got ${String(o.maxAgeSeconds)}`);
    if (o.url !== undefined && !/^https?:\/\/[^\s]+$/.test(o.url)) throw new TypeError(`serverCard.url must be an http(s) URL, got ${JSON.stringify(o.url)}`);
    buildServerCard(server, o);
  }

  /** Every path the card is served at. */
  paths(): string[] {
    return this.o.aiCatalog === true ? [this.cardPath, WELL_KNOWN_CARD, AI_CATALOG] : [this.cardPath, WELL_KNOWN_CARD];
  }

  matches(path: string): boolean {
    return path === this.cardPath || path === WELL_KNOWN_CARD || (this.o.aiCatalog === true && path === AI_CATALOG);
  }

  /** The card as a request to this server sees it (its remotes name the origin it was addressed to). */
  card(req: HttpRequestView): ServerCard | undefined {
    if (this.o.remotes !== undefined) return buildServerCard(this.server, this.o, this.o.remotes);
    const mcpUrl = this.o.url ?? this.derived(req, this.endpoint);
    if (mcpUrl === undefined) return undefined;
    const remotes: CardRemote[] = [{ type: 'streamable-http', url: mcpUrl, supportedProtocolVersions: endpointVersions(this.server, 'streamable-http') }];
    if (this.ssePath !== undefined) {
      const sse = this.o.url === undefined ? this.derived(req, this.ssePath) : new URL(this.ssePath, this.o.url).href;
      if (sse !== undefined) remotes.push({ type: 'sse', url: sse, supportedProtocolVersions: endpointVersions(this.server, 'sse') });
    }
    return buildServerCard(this.server, this.o, remotes);
  }

  private derived(req: HttpRequestView, path: string): string | undefined {
    const origin = requestOrigin(req);
    return origin === undefined ? undefined : origin + path;
  }

  async handle(req: HttpRequestView, res: HttpResponder): Promise<void> {
    if (req.method === 'OPTIONS') return res.send(204, PREFLIGHT);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, 405, `Method Not Allowed: ${req.method}; the server card is read with GET`, -32600, { ...CORS, allow: 'GET, HEAD, OPTIONS' });
    const card = this.card(req);
    if (card === undefined) return sendError(res, 400, 'Bad Request: the Host header does not form a valid URL', -32600, CORS);
    let doc: unknown = card;
    let type = SERVER_CARD_MEDIA_TYPE;
    if (req.path === AI_CATALOG) {
      type = AI_CATALOG_TYPE;
      const origin = this.o.url === undefined ? this.derived(req, '') : new URL(this.o.url).origin;
      doc = { specVersion: '1.0', entries: [{ identifier: catalogIdentifier(card.name), type: SERVER_CARD_MEDIA_TYPE, url: `${origin}${this.cardPath}` }] };
    }
    const accept = req.header('accept');
    if (!acceptsType(accept, type)) {
      // A client that asks for plain JSON gets the same document under that name.
      if (accepts(accept, 'application/json')) type = 'application/json';
      else return sendError(res, 406, `Not Acceptable: this document is ${type} (or application/json)`, -32600, CORS);
    }
    const body = JSON.stringify(doc);
    const etag = await this.etagOf(body);
    const headers: HeaderMap = { ...CORS, etag, 'cache-control': `public, max-age=${this.maxAge}`, vary: 'Accept' };
    if (matches(req.header('if-none-match'), etag)) return res.send(304, headers);
    headers['content-type'] = type;
    res.send(200, headers, req.method === 'HEAD' ? undefined : body);
  }

  private etagOf(body: string): Promise<string> {
    const last = this.last;
    if (last?.body === body) return last.etag;
    const etag = globalThis.crypto.subtle.digest('SHA-256', utf8Bytes(body)).then((d) => `"${bytesToBase64url(new Uint8Array(d)).slice(0, 22)}"`);
    this.last = { body, etag };
    return etag;
  }
}

/** Whether Accept admits `type` itself, `application/*` or anything (absent admits everything). */
function acceptsType(accept: string | undefined, type: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const media = part.split(';')[0].trim().toLowerCase();
    return media === type || media === '*/*' || media === 'application/*';
  });
}
