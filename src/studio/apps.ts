// MCP App views (`io.modelcontextprotocol/ui`, SEP-1865) as the studio renders them. The page asks
// for a tool's `ui://` resource; the studio reads and checks it (client/apps.ts), keeps the HTML
// under a fresh random id, and the page points a sandboxed iframe (`allow-scripts allow-forms`,
// never `allow-same-origin`) at `/apps/view/<id>`. That document is served once, with a
// Content-Security-Policy of its own built from the resource's `_meta.ui.csp` (the spec's
// restrictive default when it declares nothing), so:
//   - the view has an opaque origin: it cannot read the studio's page, cookies or storage, and its
//     requests to the studio carry neither the cookie's site nor the API key (the gate refuses them);
//   - what it may load or reach is what it declared, nothing else (a declared "origin" that is not
//     one, such as `https://x; script-src *`, is dropped, never pasted into the policy);
//   - it is served only as a frame of the studio's page (`frame-ancestors`, `Sec-Fetch-Dest`), to
//     the signed-in browser, once.
// The view speaks to the page over postMessage (ui/app-bridge.ts); its tool calls reach the server
// only after the person approved each one in the page.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../engine/clock.js';
import type { AppResourceUi } from '../protocol/apps.js';
import type { AppViewInfo } from './api-types.js';
import { hasSessionCookie, type Gate } from './security.js';

/** How long an opened view waits for its iframe to load it. */
export const VIEW_WINDOW_MS = 60_000;
/** Views waiting to be loaded, at most (older ones are dropped). */
const MAX_WAITING = 16;

/**
 * A CSP source for a declared domain: a scheme (http, https, ws, wss), a host (with an optional
 * leading `*.`), an optional port or `:*`, and an optional path. Nothing that could end a
 * directive or add a keyword (`;`, `,`, quotes, spaces) gets through.
 */
const SOURCE =
  /^(?:https?|wss?):\/\/(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(?:\d{1,5}|\*))?(?:\/[A-Za-z0-9._~%/-]*)?$/i;

/** The declared domains that are real CSP sources, and the ones left out (with why). */
function sources(list: readonly string[] | undefined, what: string, ignored: string[]): string[] {
  const out: string[] = [];
  for (const d of list ?? []) {
    if (typeof d === 'string' && d.length <= 300 && SOURCE.test(d)) out.push(d);
    else ignored.push(`${what}: ${JSON.stringify(d).slice(0, 120)} is not an origin (scheme://host[:port])`);
  }
  return out;
}

/**
 * The policy of a view's document, from its `_meta.ui`: the spec's construction (resource domains
 * for scripts, styles, images, fonts and media; connect, frame and base-uri domains) with nothing
 * of the studio's own origin ('self' is left out: the studio is not the app's server), plus
 * `object-src 'none'`, `form-action 'none'` and `frame-ancestors` naming the studio's page.
 */
export function viewCsp(ui: AppResourceUi, ancestor: string): { policy: string; ignored: string[] } {
  const ignored: string[] = [];
  const res = sources(ui.csp?.resourceDomains, 'resourceDomains', ignored);
  const connect = sources(ui.csp?.connectDomains, 'connectDomains', ignored);
  const frames = sources(ui.csp?.frameDomains, 'frameDomains', ignored);
  const bases = sources(ui.csp?.baseUriDomains, 'baseUriDomains', ignored);
  const list = (xs: string[], none = "'none'") => (xs.length > 0 ? xs.join(' ') : none);
  const withRes = (base: string) => [base, ...res].join(' ');
  const policy = [
    "default-src 'none'",
    `script-src ${withRes("'unsafe-inline'")}`,
    `style-src ${withRes("'unsafe-inline'")}`,
    `img-src ${withRes('data: blob:')}`,
    `font-src ${withRes('data:')}`,
    `media-src ${withRes('data: blob:')}`,
    `connect-src ${list(connect)}`,
    `frame-src ${list(frames)}`,
    `base-uri ${list(bases)}`,
    "object-src 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestor}`,
  ].join('; ');
  return { policy, ignored };
}

/** The iframe's `allow` attribute (Permission Policy) for the permissions a view asks for. */
export function viewAllow(ui: AppResourceUi): string {
  const p = ui.permissions ?? {};
  const out: string[] = [];
  if (p.camera) out.push('camera');
  if (p.microphone) out.push('microphone');
  if (p.geolocation) out.push('geolocation');
  if (p.clipboardWrite) out.push('clipboard-write');
  return out.join('; ');
}

interface Waiting {
  html: string;
  ui: AppResourceUi;
  expires: number;
}

/** Views read and checked, each waiting for the one load of its iframe. */
export class AppViews {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly clock: Clock) {}

  /** Keeps a checked resource for its iframe; returns what the page shows about it. */
  add(server: string, resource: { uri: string; html: string; ui: AppResourceUi; fingerprint: string }, ancestor: string): AppViewInfo {
    this.sweep();
    while (this.waiting.size >= MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value as string);
    const id = randomBytes(24).toString('base64url');
    this.waiting.set(id, { html: resource.html, ui: resource.ui, expires: this.clock.now() + VIEW_WINDOW_MS });
    const { policy, ignored } = viewCsp(resource.ui, ancestor);
    return {
      id,
      server,
      uri: resource.uri,
      ui: resource.ui as Record<string, unknown>,
      fingerprint: resource.fingerprint,
      csp: policy,
      ignored,
      allow: viewAllow(resource.ui),
      bytes: Buffer.byteLength(resource.html),
    };
  }

  /** The view for its iframe's one load (then forgotten), or undefined. */
  take(id: string): Waiting | undefined {
    this.sweep();
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    return w;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [id, w] of this.waiting) if (w.expires <= now) this.waiting.delete(id);
  }
}

/** The path of a view's document; the id is 24 random bytes, base64url. */
export const VIEW_PATH = /^\/apps\/view\/([A-Za-z0-9_-]{32})$/;

/**
 * Answers `GET /apps/view/<id>`: the view's HTML with its own policy, once, to the signed-in
 * browser, as a frame (a top-level visit or another site's request is refused).
 */
export function serveAppView(req: IncomingMessage, res: ServerResponse, gate: Gate, views: AppViews, host: string, id: string): void {
  const refuse = (status: number, why: string) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`${why}\n`);
  };
  if (req.method !== 'GET') return refuse(405, 'Method not allowed');
  if (!hasSessionCookie(req, gate)) return refuse(401, 'Not signed in to this studio');
  const dest = req.headers['sec-fetch-dest'];
  if (dest !== undefined && dest !== 'iframe') return refuse(403, "Forbidden: a view is served only as a frame of the studio's page");
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return refuse(403, `Forbidden: a request from another site (${String(site)})`);
  const view = views.take(id);
  if (!view) return refuse(404, 'No such view: each is served once, within a minute of being opened');
  res.removeHeader('X-Frame-Options');
  res.setHeader('Content-Security-Policy', viewCsp(view.ui, `http://${host}`).policy);
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(view.html);
}
