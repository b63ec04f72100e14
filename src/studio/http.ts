// The studio's web server (node:http): the page, its two assets, the JSON API and one event
// stream, every request through the gate of security.ts first. Binds 127.0.0.1 unless told.
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StudioEvents } from './api-types.js';
import { StudioApi } from './api.js';
import { serveAppView, VIEW_PATH } from './apps.js';
import { StudioRequestError } from './confirm.js';
import { StudioHub, type HubOptions } from './hub.js';
import {
  allowedHostNames,
  checkApiRequest,
  checkedHost,
  hasSessionCookie,
  newSecret,
  sameSecret,
  securityHeaders,
  sessionCookie,
  type Gate,
} from './security.js';
import { forStream } from './timeline.js';

export interface StudioOptions extends HubOptions {
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Where studio.js and studio.css are. Default: dist/studio/assets of this package. */
  assetsDir?: string;
}

export interface RunningStudio {
  /** The address to open: it carries the access token. */
  url: string;
  /** The studio's origin (no token). */
  origin: string;
  port: number;
  hub: StudioHub;
  /** Settles when every server has connected or failed its first attempt. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** The largest JSON body the API reads. */
const MAX_BODY = 4 * 1024 * 1024;
const HEARTBEAT_MS = 20_000;

/** The built page assets: beside this module once built (dist/studio/assets), or the build's output when run from src/. */
export function defaultAssetsDir(): string {
  const here = fileURLToPath(new URL('./assets/', import.meta.url));
  if (existsSync(join(here, 'studio.js'))) return here;
  return fileURLToPath(new URL('../../dist/studio/assets/', import.meta.url));
}

const ASSET_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', map: 'application/json' };

/** Starts the studio's web server; the servers are connected in the background (see hub.start()). */
export async function startStudio(options: StudioOptions): Promise<RunningStudio> {
  const assetsDir = options.assetsDir ?? defaultAssetsDir();
  if (!existsSync(join(assetsDir, 'studio.js'))) {
    throw new Error(`The studio's page is not built (no ${join(assetsDir, 'studio.js')}): run npm run build`);
  }
  const hub = new StudioHub(options);
  const api = new StudioApi(hub);
  const bindHost = options.host ?? '127.0.0.1';
  const gate: Gate = { token: newSecret(), apiKey: newSecret(), port: 0, hostNames: allowedHostNames(bindHost) };
  const streams = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: `The studio failed: ${err instanceof Error ? err.message : String(err)}` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    const host = checkedHost(req, gate);
    if (!host) return plain(res, 403, `Forbidden: Host "${req.headers.host ?? ''}" is not this studio (only its own address is answered)`);
    const url = new URL(req.url ?? '/', `http://${host}`);
    const path = url.pathname;
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      const token = url.searchParams.get('token');
      if (token !== null) {
        if (!sameSecret(token, gate.token)) return page(res, 401, signInPage('This address carries a wrong or old token.'));
        // Set once, then a URL without the token (history, screenshots, a reload).
        res.setHeader('Set-Cookie', sessionCookie(gate));
        res.writeHead(303, { Location: '/' });
        return void res.end();
      }
      if (!hasSessionCookie(req, gate)) return page(res, 401, signInPage('Open the address mcpkit studio printed: it carries the access token.'));
      return page(res, 200, appPage(gate.apiKey));
    }
    if (path.startsWith('/assets/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method not allowed');
      if (!hasSessionCookie(req, gate)) return plain(res, 401, 'Not signed in to this studio');
      return asset(res, assetsDir, path.slice('/assets/'.length));
    }
    // Browsers ask for it on their own; an empty answer rather than a 404 in the console.
    if (path === '/favicon.ico') {
      res.writeHead(204);
      return void res.end();
    }
    const view = VIEW_PATH.exec(path);
    if (view) return serveAppView(req, res, gate, hub.appViews, host, view[1]);
    // The authorization server sends the browser back here: a redirect from another site carries
    // no SameSite=Strict cookie, so the sign-in's own state (128 random bits) is the key (oauth.ts).
    if (path === OAUTH_CALLBACK && req.method === 'GET') return oauthCallback(res, hub, url);
    if (!path.startsWith('/api/')) return plain(res, 404, 'Not found');
    const refused = checkApiRequest(req, gate, host);
    if (refused) return json(res, refused.status, { error: { message: refused.message } });
    if (path === '/api/events' && req.method === 'GET') return openStream(req, res);
    const found = api.match(req.method ?? 'GET', path);
    if (!found) return json(res, api.knowsPath(path) ? 405 : 404, { error: { message: api.knowsPath(path) ? 'Method not allowed' : 'No such API route' } });
    let body: Record<string, unknown> = {};
    if (req.method === 'POST') {
      const read = await readJson(req);
      if ('error' in read) return json(res, read.status, { error: { message: read.error } });
      body = read.value;
    }
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      const out = await found.route.run({ body, params: found.params, query: url.searchParams, signal: gone.signal, origin: `http://${host}` });
      json(res, 200, out ?? {});
    } catch (err) {
      if (err instanceof StudioRequestError) return json(res, err.status, { error: { message: err.message } });
      throw err;
    }
  }

  function openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    // close() ends the streams before their 'close' events unsubscribe them, and the hub keeps
    // sending while it lets the servers go: a write then would throw ERR_STREAM_WRITE_AFTER_END.
    const open = () => !res.writableEnded && !res.destroyed;
    const send = <E extends keyof StudioEvents>(event: E, data: StudioEvents[E]) => {
      if (open()) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    send('snapshot', { state: hub.state(), timeline: hub.timeline.since(0, 5_000).map(forStream) });
    const off = hub.on(send);
    streams.add(res);
    const beat = setInterval(() => open() && res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    beat.unref();
    const done = () => {
      off();
      clearInterval(beat);
      streams.delete(res);
    };
    req.once('close', done);
    res.once('close', done);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  gate.port = port;
  const shown = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  const origin = `http://${shown}:${port}`;
  hub.auth.setOrigin(origin);
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${gate.token}`,
    origin,
    port,
    hub,
    ready: hub.start(),
    close() {
      return (closing ??= (async () => {
        for (const s of streams) s.end();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await hub.close();
      })());
    },
  };
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  // The page may have gone (or the studio closed) while the route ran.
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}

function page(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}

function asset(res: ServerResponse, dir: string, name: string): void {
  const ext = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|map)$/.exec(name)?.[1];
  if (!ext) return plain(res, 404, 'Not found');
  let data: Buffer;
  try {
    data = readFileSync(join(dir, name));
  } catch {
    return plain(res, 404, 'Not found');
  }
  res.writeHead(200, { 'Content-Type': ASSET_TYPES[ext] });
  res.end(data);
}

async function readJson(req: IncomingMessage): Promise<{ value: Record<string, unknown> } | { error: string; status: number }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return { error: 'The body must be JSON (Content-Type: application/json)', status: 415 };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return { error: `The body is over ${MAX_BODY / 1024 / 1024} MiB`, status: 413 };
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw.trim() === '') return { value: {} };
  try {
    const v: unknown = JSON.parse(raw);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'The body must be a JSON object', status: 400 };
    return { value: v as Record<string, unknown> };
  } catch (err) {
    return { error: `The body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, status: 400 };
  }
}

const OAUTH_CALLBACK = '/oauth/callback';

/** The redirect back from an authorization server: handed to the sign-in that waits for its state, or refused. */
function oauthCallback(res: ServerResponse, hub: StudioHub, url: URL): void {
  const server = hub.auth.callback(url);
  if (!server) return page(res, 400, signInPage('No sign-in of this studio waits for this answer (it was finished, cancelled, or is not this studio’s).'));
  const refused = url.searchParams.get('error');
  return page(
    res,
    200,
    resultPage(
      refused
        ? `The authorization server refused the sign-in for ${server}: ${refused}. The studio shows the steps.`
        : `Signed in for ${server}. You can close this tab: the studio shows each step.`,
    ),
  );
}

function resultPage(text: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>mcpkit studio: sign-in</title></head>
<body>
<h1>mcpkit studio</h1>
<p>${escapeHtml(text)}</p>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function appPage(apiKey: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="mcpkit-studio-key" content="${escapeHtml(apiKey)}">
<title>mcpkit studio</title>
<link rel="stylesheet" href="/assets/studio.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/studio.js"></script>
</body>
</html>
`;
}

function signInPage(why: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>mcpkit studio: not signed in</title></head>
<body>
<h1>mcpkit studio</h1>
<p>${escapeHtml(why)}</p>
<p>The studio answers only the browser that opened its address with the access token, so that other web pages cannot use it.</p>
</body>
</html>
`;
}
