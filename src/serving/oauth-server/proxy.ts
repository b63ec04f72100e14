/**
 * Proxy mode at this server's end: after the authorization request is verified, the consent step
 * (consent.ts: the user approves this client, here, before anything goes upstream), then the trip
 * to the upstream provider, and its callback. The upstream `state` is bound to the browser that
 * was sent upstream by a cookie set with that redirect: a callback whose state this browser did
 * not start is refused, which stops login CSRF (an attacker's upstream code delivered to the
 * victim's browser) and keeps a consent given in one browser from serving another.
 */
import { pkcePair, randomToken } from '../../client/auth/encoding.js';
import type { HttpRequestView, HttpResponder } from '../http/exchange.js';
import { backWithError, finish } from './client-redirect.js';
import { renderConsentPage } from './consent-page.js';
import { bindSubject, consentKey, isRemembered, issueTicket, newBrowserId, redeemTicket, registrationKind, remember, validBrowserId } from './consent.js';
import type { ServerContext } from './context.js';
import { BROWSER_COOKIE, cookieName, readCookies, setCookie, stateCookie } from './cookies.js';
import { grantOf, type Grant } from './grants.js';
import { NO_STORE, OAuthError, readForm, sameSecret, sendErrorPage, single } from './http.js';
import type { AuthorizationParams, ClientRecord, ClientRegistrationKind } from './options.js';
import { digest } from './store.js';
import { exchangeUpstreamCode } from './upstream.js';

/** How long a user may take at the upstream provider. */
const PENDING_TTL_MS = 10 * 60_000;

interface Pending {
  params: AuthorizationParams;
  verifier: string;
  refresh: boolean;
  /** The user's Allow this sign-in went upstream under; none when the `consent` hook allowed it. */
  consent?: { key: string; given: boolean };
}

function browserOf(issuer: string, req: HttpRequestView): string | undefined {
  return validBrowserId(readCookies(req).get(cookieName(issuer, BROWSER_COOKIE)));
}

/** The authorization endpoint in proxy mode, once the client and the request are verified. */
export async function proxyAuthorize(
  ctx: ServerContext,
  issuer: string,
  req: HttpRequestView,
  res: HttpResponder,
  client: ClientRecord,
  params: AuthorizationParams,
  refresh: boolean,
): Promise<void> {
  const settings = ctx.consent!;
  const registration = registrationKind(settings, client.client_id);
  const choice = await settings.decide({ client, registration, params, request: req });
  if (choice === 'deny') return backWithError(res, issuer, params, new OAuthError('access_denied', 'this application may not sign in here'));
  if (choice === 'allow') return startUpstream(ctx, issuer, res, params, refresh, undefined);
  if (choice !== 'ask') throw new TypeError(`consent() answered ${JSON.stringify(choice)}, not "allow", "deny" or "ask"`);
  const known = browserOf(issuer, req);
  if (known) {
    const key = await consentKey(known, client.client_id, params.redirectUri);
    if (await isRemembered(ctx.store, key, params, ctx.clock.now())) return startUpstream(ctx, issuer, res, params, refresh, { key, given: false });
  }
  return showConsent(ctx, issuer, res, { client, registration, params, refresh, browserId: known ?? newBrowserId() });
}

interface ConsentRequest {
  client: ClientRecord;
  registration: ClientRegistrationKind;
  params: AuthorizationParams;
  refresh: boolean;
  browserId: string;
  /** After upstream sign-in: the grant an Allow completes, and who signed in. */
  grant?: Grant;
  signedInAs?: string;
}

async function showConsent(ctx: ServerContext, issuer: string, res: HttpResponder, o: ConsentRequest): Promise<void> {
  const key = await consentKey(o.browserId, o.client.client_id, o.params.redirectUri);
  const ticket = await issueTicket(ctx.store, { params: o.params, refresh: o.refresh, consentKey: key, grant: o.grant }, o.browserId);
  const page = renderConsentPage({
    issuer,
    client: o.client,
    registration: o.registration,
    params: o.params,
    upstreamName: ctx.upstream!.name,
    upstreamScope: ctx.upstream!.scope,
    ticket: ticket.ticket,
    csrf: ticket.csrf,
    signedInAs: o.signedInAs,
  });
  // Set again with every page, so the browser's id lives as long as the Allow it may lead to.
  const cookie = setCookie(issuer, BROWSER_COOKIE, o.browserId, ctx.consent!.ttlMs / 1000);
  res.send(200, { ...page.headers, 'set-cookie': cookie }, page.body);
}

/** `POST <issuer>/consent`: the user's answer on the consent page. */
export async function consentEndpoint(ctx: ServerContext, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
  const refuse = (why: string, status = 403) => sendErrorPage(res, new OAuthError('access_denied', why, status));
  // Defence in depth beside the CSRF token: a browser says where a post comes from.
  const origin = req.header('origin');
  const site = req.header('sec-fetch-site');
  if ((origin !== undefined && origin !== new URL(issuer).origin) || (site !== undefined && site !== 'same-origin' && site !== 'none'))
    return refuse('this consent form was posted from another site');
  let ticket: string | undefined;
  let csrf: string | undefined;
  let decision: string | undefined;
  try {
    const form = await readForm(req);
    ticket = single(form, 'ticket');
    csrf = single(form, 'csrf_token');
    decision = single(form, 'decision');
  } catch (err) {
    if (err instanceof OAuthError) return sendErrorPage(res, err);
    throw err;
  }
  if (!ticket || !csrf || (decision !== 'allow' && decision !== 'deny')) return refuse('the consent form is incomplete; start again from the application', 400);
  const t = await redeemTicket(ctx.store, ticket, csrf, browserOf(issuer, req));
  if (!t)
    return refuse(
      'this consent form has expired, was already answered, or was not shown in this browser (cookies must be enabled); start again from the application',
    );
  if (decision === 'deny') return backWithError(res, issuer, t.params, new OAuthError('access_denied', 'the user did not allow this application'));
  await remember(ctx.store, t.consentKey, t.params, ctx.consent!.ttlMs, ctx.clock.now(), t.grant?.subject);
  if (t.grant) return finish(ctx, issuer, res, t.params, grantOf(t.grant), t.refresh);
  return startUpstream(ctx, issuer, res, t.params, t.refresh, { key: t.consentKey, given: true });
}

/** Remembers the request and sends the user to the upstream provider, with the state bound to this browser by a cookie. */
async function startUpstream(
  ctx: ServerContext,
  issuer: string,
  res: HttpResponder,
  params: AuthorizationParams,
  refresh: boolean,
  consent: Pending['consent'],
): Promise<void> {
  const up = ctx.upstream!;
  let endpoint: string;
  try {
    endpoint = (await up.endpoints(ctx.fetch)).authorizationEndpoint;
  } catch (err) {
    ctx.onError(new Error(`authorizationServer: ${up.name} is unreachable: ${(err as Error).message}`, { cause: err }));
    return backWithError(res, issuer, params, new OAuthError('temporarily_unavailable', `sign-in with ${up.name} is unavailable`));
  }
  const pkce = await pkcePair();
  const state = randomToken(24);
  const pending: Pending = { params, verifier: pkce.verifier, refresh };
  if (consent) pending.consent = consent;
  await ctx.store.put(`pending:${await digest(state)}`, pending, PENDING_TTL_MS);
  const u = new URL(endpoint);
  const p = u.searchParams;
  p.set('response_type', 'code');
  p.set('client_id', up.clientId);
  p.set('redirect_uri', `${issuer}/callback`);
  p.set('state', state);
  p.set('code_challenge', pkce.challenge);
  p.set('code_challenge_method', 'S256');
  if (up.scope) p.set('scope', up.scope);
  for (const [k, v] of Object.entries(up.authorizationParams ?? {})) p.set(k, v);
  res.send(302, { location: u.href, ...NO_STORE, 'set-cookie': setCookie(issuer, stateCookie(state), state, PENDING_TTL_MS / 1000) });
}

/** A name to show for who signed in upstream. */
function displayName(subject: string, claims: Record<string, unknown> | undefined): string {
  for (const k of ['email', 'login', 'preferred_username', 'name']) if (typeof claims?.[k] === 'string' && claims[k]) return claims[k] as string;
  return subject;
}

/** `GET <issuer>/callback`: the upstream provider sends the user back here. */
export async function callbackEndpoint(ctx: ServerContext, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
  const up = ctx.upstream!;
  const q = new URLSearchParams(req.query);
  const state = q.getAll('state').length === 1 ? q.get('state') : null;
  const unknown = () => sendErrorPage(res, new OAuthError('invalid_request', 'this sign-in is unknown or has expired; start again from the application'));
  if (!state) return unknown();
  // Checked before the pending sign-in is taken: a forged callback cannot spend the user's.
  const bound = readCookies(req).get(cookieName(issuer, stateCookie(state)));
  if (bound === undefined || !sameSecret(bound, state))
    return sendErrorPage(
      res,
      new OAuthError('invalid_request', 'this sign-in was not started in this browser (or the browser blocked its cookie); start again from the application'),
    );
  const pending = (await ctx.store.take(`pending:${await digest(state)}`)) as Pending | undefined;
  if (!pending) return unknown();
  const clear = { 'set-cookie': setCookie(issuer, stateCookie(state), '', 0) };
  const { params } = pending;
  const upstreamError = q.get('error');
  if (upstreamError) {
    const detail = q.get('error_description');
    const err = new OAuthError('access_denied', `${up.name} refused the sign-in (${upstreamError}${detail ? `: ${detail}` : ''})`);
    return backWithError(res, issuer, params, err, clear);
  }
  const code = q.get('code');
  if (!code) return backWithError(res, issuer, params, new OAuthError('server_error', `${up.name} sent no authorization code`), clear);
  let admitted: { subject: string; claims?: Record<string, unknown> } | undefined;
  try {
    const tokens = await exchangeUpstreamCode(up, ctx.fetch, code, `${issuer}/callback`, pending.verifier);
    const identity = await up.identify(tokens, ctx.fetch);
    admitted = up.admit ? await up.admit(identity) : { subject: identity.subject, claims: identity.claims };
  } catch (err) {
    ctx.onError(new Error(`authorizationServer: sign-in through ${up.name} failed: ${(err as Error).message}`, { cause: err }));
    return backWithError(res, issuer, params, new OAuthError('server_error', `sign-in through ${up.name} failed`), clear);
  }
  if (!admitted) return backWithError(res, issuer, params, new OAuthError('access_denied', `this ${up.name} account is not allowed here`), clear);
  const grant: Grant = {
    clientId: params.clientId,
    subject: admitted.subject,
    scopes: params.scopes,
    resources: params.resources,
    authTime: Math.floor(ctx.clock.now() / 1000),
  };
  if (admitted.claims) grant.claims = admitted.claims;
  const c = pending.consent;
  if (c && !(await bindSubject(ctx.store, c.key, admitted.subject, c.given, ctx.clock.now()))) {
    // The Allow this browser remembered was another user's: this one is asked too.
    const browserId = browserOf(issuer, req);
    const client = await ctx.clients.find(params.clientId).catch(() => undefined);
    if (!browserId || !client)
      return backWithError(res, issuer, params, new OAuthError('access_denied', 'this application needs your consent; start again'), clear);
    const registration = registrationKind(ctx.consent!, client.client_id);
    return showConsent(ctx, issuer, res, {
      client,
      registration,
      params,
      refresh: pending.refresh,
      browserId,
      grant: grantOf(grant),
      signedInAs: displayName(admitted.subject, admitted.claims),
    });
  }
  return finish(ctx, issuer, res, params, grantOf(grant), pending.refresh, clear);
}
