// Shared by the proxy-mode tests (not a test file itself): an upstream identity provider on
// node:http that, like GitHub or Google for a returning user, approves at once without a page
// (OpenID Connect discovery and userinfo, and GitHub's paths; PKCE and the client secret
// checked), and a browser that keeps cookies and follows redirects by hand.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeIdp {
  origin: string;
  /** Upstream authorization requests seen. */
  authorizations: URLSearchParams[];
  /** Token requests seen. */
  tokenRequests: URLSearchParams[];
  /** What the "user" does at the provider: approve at once (a returning user), or refuse. */
  outcome: 'approve' | 'refuse';
  /** Who is signed in at the provider. */
  user: { sub: string; email: string };
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString()));
    req.on('end', () => resolve(s));
  });

export async function startIdp(): Promise<FakeIdp> {
  const codes = new Map<string, { challenge: string; redirectUri: string; user: FakeIdp['user'] }>();
  const tokens = new Map<string, FakeIdp['user']>();
  let n = 0;
  const idp: FakeIdp = {
    origin: '',
    authorizations: [],
    tokenRequests: [],
    outcome: 'approve',
    user: { sub: 'idp-user-42', email: 'ada@example.test' },
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, idp.origin);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration')
      return json(200, {
        issuer: idp.origin,
        authorization_endpoint: `${idp.origin}/authorize`,
        token_endpoint: `${idp.origin}/token`,
        userinfo_endpoint: `${idp.origin}/userinfo`,
      });
    if (url.pathname === '/authorize' || url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      idp.authorizations.push(q);
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('state', q.get('state')!);
      if (idp.outcome === 'refuse') back.searchParams.set('error', 'access_denied');
      else {
        const code = `up-code-${++n}`;
        codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, user: idp.user });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' || url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      idp.tokenRequests.push(form);
      const c = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const pkceOk =
        c &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === c.challenge;
      if (!c || !pkceOk || c.redirectUri !== form.get('redirect_uri') || form.get('client_secret') !== 'upstream-secret')
        return json(url.pathname === '/token' ? 400 : 200, { error: 'bad_verification_code' });
      const at = `up-at-${++n}`;
      tokens.set(at, c.user);
      return json(200, { access_token: at, token_type: 'bearer' });
    }
    const who = tokens.get(req.headers.authorization?.replace(/^Bearer /, '') ?? '');
    if (url.pathname === '/userinfo' && who) return json(200, { sub: who.sub, email: who.email });
    if (url.pathname === '/user' && who) return json(200, { id: 4242, login: 'octo-ada', name: 'Ada' });
    json(404, { error: 'not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  idp.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return idp;
}

export interface Hop {
  url: string;
  status: number;
  location?: URL;
  body: string;
  headers: Headers;
}

/**
 * A user's browser: sends its cookies with every request and keeps what Set-Cookie says (by
 * name, host-wide: like a real browser, it does not separate loopback ports), follows nothing by
 * itself.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  async go(url: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Hop> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const r = await fetch(url, { method: init.form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    for (const line of r.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1).trim());
    }
    const loc = r.headers.get('location');
    return { url, status: r.status, location: loc ? new URL(loc) : undefined, body: await r.text(), headers: r.headers };
  }

  /**
   * Follows redirects from `url` until one leads to an address starting with one of `stopAt`
   * (not requested: the client's redirect URI), or a response that is not a redirect (a page, an
   * error). Returns every hop's target and the last response.
   */
  async follow(url: string, stopAt: readonly string[]): Promise<{ hops: URL[]; last: Hop; stopped?: URL }> {
    const hops: URL[] = [];
    let next = url;
    for (let i = 0; i < 8; i++) {
      const r = await this.go(next);
      if (r.status !== 302 || !r.location) return { hops, last: r };
      hops.push(r.location);
      if (stopAt.some((p) => r.location!.href.startsWith(p))) return { hops, last: r, stopped: r.location };
      next = r.location.href;
    }
    assert.fail(`too many redirects from ${url}`);
  }

  /** Answers a consent page by submitting its form, as clicking Allow or Deny would. */
  async answer(page: Hop, decision: 'allow' | 'deny', tamper: Record<string, string> = {}): Promise<Hop> {
    const f = consentForm(page);
    return this.go(f.action, { form: { ticket: f.ticket, csrf_token: f.csrf, decision, ...tamper } });
  }
}

const fromHtml = (s: string) => s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));

/** The consent page's form: where it posts and its hidden fields. */
export function consentForm(page: Hop): { action: string; ticket: string; csrf: string } {
  assert.equal(page.status, 200, `expected the consent page, got ${page.status}: ${page.body}`);
  const action = /<form method="post" action="([^"]+)">/.exec(page.body)?.[1];
  const ticket = /name="ticket" value="([^"]+)"/.exec(page.body)?.[1];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(action && ticket && csrf, `no consent form in: ${page.body}`);
  return { action: fromHtml(action), ticket: fromHtml(ticket), csrf: fromHtml(csrf) };
}
