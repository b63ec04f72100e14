/**
 * Proxy mode's per-client consent (the MCP security best practices, "Confused Deputy Problem"):
 * the upstream provider remembers that the user approved *this server*, so it signs them in again
 * without a page; a client that registered itself with an attacker's redirect URI would then get
 * a code for the user from one click on a link. So before the user is sent upstream, the user
 * approves the client here, on a page of this server, and that Allow is what is remembered.
 *
 * What is remembered, and where: the browser carries an opaque random id (cookies.ts); the
 * decisions are kept in the server's store under `consent:<digest(browser id)>:<digest(client id
 * and redirect URI)>`, with the scopes and resources allowed and the upstream subjects that were
 * signed in under it. An Allow covers the same browser, client and redirect URI (an http loopback
 * one on any port), for at most those scopes and resources. Before upstream sign-in only the
 * browser is known; after it, a remembered Allow must also belong to the user who signed in (or
 * be new, and become theirs): another person signing in on the same browser is asked again.
 *
 * The page's form carries a one-use ticket (the pending request, kept server-side and bound to
 * the browser's id) and a CSRF token; both must match, from the same browser, for the decision to
 * count.
 */
import { randomToken } from '../../client/auth/encoding.js';
import { isLoopback } from '../../client/auth/url-policy.js';
import type { Grant } from './grants.js';
import { sameSecret } from './http.js';
import type { AuthorizationParams, ClientRegistrationKind, ConsentDecider } from './options.js';
import { digest, type AuthorizationStore } from './store.js';
import { isClientIdUrl } from './cimd.js';

export interface ConsentSettings {
  decide: ConsentDecider;
  ttlMs: number;
  preRegistered: ReadonlySet<string>;
}

/** How long the consent page's form stays valid. */
export const TICKET_TTL_MS = 10 * 60_000;
/** Upstream subjects remembered per Allow (a shared browser); the oldest goes first. */
const MAX_SUBJECTS = 20;
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;

export const defaultConsent: ConsentDecider = ({ registration }) => (registration === 'pre-registered' ? 'allow' : 'ask');

export function registrationKind(settings: ConsentSettings, clientId: string): ClientRegistrationKind {
  if (settings.preRegistered.has(clientId)) return 'pre-registered';
  return isClientIdUrl(clientId) ? 'metadata-document' : 'dynamic';
}

export function newBrowserId(): string {
  return randomToken(32);
}

/** The browser id from its cookie, when it has the form this server gives them. */
export function validBrowserId(raw: string | undefined): string | undefined {
  return raw !== undefined && BROWSER_ID.test(raw) ? raw : undefined;
}

/** The redirect URI as an Allow covers it: an http loopback one on any port (a native app picks its port at start). */
function redirectKey(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.protocol === 'http:' && isLoopback(u.hostname) ? `http://${u.hostname}${u.pathname}${u.search}` : redirectUri;
}

export async function consentKey(browserId: string, clientId: string, redirectUri: string): Promise<string> {
  return `consent:${await digest(browserId)}:${await digest(`${clientId}\n${redirectKey(redirectUri)}`)}`;
}

interface ConsentRecord {
  scopes: string[];
  resources: string[];
  subjects: string[];
  expiresAt: number;
}

async function read(store: AuthorizationStore, key: string, now: number): Promise<ConsentRecord | undefined> {
  const r = (await store.get(key)) as ConsentRecord | undefined;
  if (!r || typeof r !== 'object' || !Array.isArray(r.scopes) || !Array.isArray(r.resources) || !Array.isArray(r.subjects)) return undefined;
  return r.expiresAt > now ? r : undefined;
}

const covers = (r: ConsentRecord, params: AuthorizationParams) =>
  params.scopes.every((s) => r.scopes.includes(s)) && params.resources.every((x) => r.resources.includes(x));

/** Whether an Allow remembered under `key` covers this request (its user is checked after sign-in, by `bindSubject`). */
export async function isRemembered(store: AuthorizationStore, key: string, params: AuthorizationParams, now: number): Promise<boolean> {
  const r = await read(store, key, now);
  return r !== undefined && covers(r, params);
}

/** Records the user's Allow (adding to what was allowed before), for `ttlMs` from now. */
export async function remember(
  store: AuthorizationStore,
  key: string,
  params: AuthorizationParams,
  ttlMs: number,
  now: number,
  subject?: string,
): Promise<void> {
  const r = await read(store, key, now);
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  const subjects = union(r?.subjects ?? [], subject ? [subject] : []).slice(-MAX_SUBJECTS);
  const record: ConsentRecord = {
    scopes: union(r?.scopes ?? [], params.scopes),
    resources: union(r?.resources ?? [], params.resources),
    subjects,
    expiresAt: now + ttlMs,
  };
  await store.put(key, record, ttlMs);
}

/**
 * After upstream sign-in: true when the Allow under `key` is this user's (given in this very
 * sign-in, not yet bound to anyone, or already theirs), binding it to them; false when it was
 * another user's, or is gone.
 */
export async function bindSubject(store: AuthorizationStore, key: string, subject: string, givenNow: boolean, now: number): Promise<boolean> {
  const r = await read(store, key, now);
  if (!r) return false;
  if (r.subjects.includes(subject)) return true;
  if (!givenNow && r.subjects.length > 0) return false;
  r.subjects = [...r.subjects, subject].slice(-MAX_SUBJECTS);
  await store.put(key, r, r.expiresAt - now);
  return true;
}

/** A consent page waiting for the user's answer. */
export interface Ticket {
  params: AuthorizationParams;
  refresh: boolean;
  /** Digest of the browser id the page was shown to. */
  browser: string;
  /** Digest of the page's CSRF token. */
  csrf: string;
  consentKey: string;
  /** Set when the page is shown after upstream sign-in: the grant an Allow completes. */
  grant?: Grant;
}

export async function issueTicket(
  store: AuthorizationStore,
  t: Omit<Ticket, 'browser' | 'csrf'>,
  browserId: string,
): Promise<{ ticket: string; csrf: string }> {
  const ticket = randomToken(24);
  const csrf = randomToken(24);
  const record: Ticket = { ...t, browser: await digest(browserId), csrf: await digest(csrf) };
  await store.put(`consent-ticket:${await digest(ticket)}`, record, TICKET_TTL_MS);
  return { ticket, csrf };
}

/**
 * The ticket a consent form names, once: only from the browser it was shown to, and only with
 * its CSRF token. A wrong token or browser leaves it in place (a forged post cannot cancel the
 * user's page).
 */
export async function redeemTicket(store: AuthorizationStore, ticket: string, csrf: string, browserId: string | undefined): Promise<Ticket | undefined> {
  if (!browserId) return undefined;
  const key = `consent-ticket:${await digest(ticket)}`;
  const t = (await store.get(key)) as Ticket | undefined;
  if (!t || typeof t !== 'object') return undefined;
  const sameBrowser = sameSecret(await digest(browserId), t.browser);
  const sameCsrf = sameSecret(await digest(csrf), t.csrf);
  if (!sameBrowser || !sameCsrf) return undefined;
  // Taken, not just read: of two posts of one form, one counts.
  return ((await store.take(key)) as Ticket | undefined) ?? undefined;
}
