/**
 * The consent page of proxy mode: server-rendered HTML, with every value the client chose (its
 * name, id, redirect URI) escaped and its name marked as the client's own claim; no script at all,
 * a Content-Security-Policy that allows nothing but the page's own style, and no framing
 * (`frame-ancestors 'none'`, X-Frame-Options), so the Allow button cannot be clickjacked. The
 * form posts to `<issuer>/consent` with the ticket and CSRF token of consent.ts.
 */
import { randomToken } from '../../client/auth/encoding.js';
import type { HeaderMap } from '../http/exchange.js';
import { NO_STORE } from './http.js';
import type { AuthorizationParams, ClientRecord, ClientRegistrationKind } from './options.js';

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Control and bidi-override characters would let a name rearrange what the user reads: removed, and the name cut short. */
function shown(s: string, max = 80): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** The host the user's browser and the code will be sent to: the origin's host, or a native app's scheme. */
export function redirectHost(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.host || u.protocol;
}

const KIND: Record<ClientRegistrationKind, string> = {
  'pre-registered': 'configured on this server',
  dynamic: 'registered itself with this server',
  'metadata-document': 'described by its own metadata document',
};

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}' +
  'h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}' +
  '.warn{background:#fff4e5;border-left:4px solid #e8a33d;padding:.6rem .8rem}button{font-size:1rem;padding:.5rem 1.4rem;margin-right:.8rem}';

export interface ConsentPage {
  issuer: string;
  client: ClientRecord;
  registration: ClientRegistrationKind;
  params: AuthorizationParams;
  upstreamName: string;
  /** The scope this server asks of the upstream provider (what it may do with the user's account there). */
  upstreamScope?: string;
  ticket: string;
  csrf: string;
  /** After upstream sign-in: who is signed in now. */
  signedInAs?: string;
}

/** The page and its headers (the caller adds the browser cookie). */
export function renderConsentPage(p: ConsentPage): { headers: HeaderMap; body: string } {
  const nonce = randomToken(16);
  const name = typeof p.client.client_name === 'string' ? shown(p.client.client_name) : '';
  const who = name ? `<b>${html(name)}</b>` : 'An application';
  const list = (items: string[]) => (items.length ? items.map((s) => `<code>${html(shown(s, 200))}</code>`).join(' ') : 'none named');
  const rows: [string, string][] = [
    ['Name', name ? `${html(name)} <small>(as the application calls itself)</small>` : '<i>none given</i>'],
    ['Client ID', `<code>${html(shown(p.client.client_id, 200))}</code> <small>(${KIND[p.registration]})</small>`],
    ['Sends you back to', `<b>${html(shown(redirectHost(p.params.redirectUri), 120))}</b><br><small>${html(shown(p.params.redirectUri, 300))}</small>`],
    ['Access asked for', list(p.params.scopes)],
    ['For', list(p.params.resources)],
  ];
  if (p.upstreamScope) rows.push([`Asked of ${html(p.upstreamName)}`, list(p.upstreamScope.split(' ').filter(Boolean))]);
  if (p.signedInAs) rows.push(['Signed in as', html(shown(p.signedInAs))]);
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow access?</title><style nonce="${nonce}">${STYLE}</style></head>
<body><h1>Allow ${who} to sign you in?</h1>
<p>${who} wants to sign you in with ${html(p.upstreamName)} and act for you with the access below.</p>
<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
<p class="warn">Allow only if you started this sign-in yourself, from this application. If you followed a link you did not expect, choose Deny.</p>
<form method="post" action="${html(p.issuer)}/consent">
<input type="hidden" name="ticket" value="${html(p.ticket)}"><input type="hidden" name="csrf_token" value="${html(p.csrf)}">
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
  return {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...NO_STORE,
      // No form-action: browsers check it against the redirects that follow the post too (to the
      // provider, to the client), and nothing on this page can add a form.
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // same-origin, not no-referrer: with no-referrer the form's own post would say `Origin: null`.
      'referrer-policy': 'same-origin',
    },
    body,
  };
}
