// The OAuth sign-in of one HTTP server, written down step by step for the page: the server's 401
// and its challenge, the protected resource metadata, the authorization server metadata, the
// client (pre-registered, a client ID metadata document, or registered dynamically), PKCE, the
// authorization in the browser and the redirect back, the token, each refresh, and the request
// sent again with the token. Each step that is an HTTP exchange carries it, masked: tokens,
// codes, verifiers, secrets and assertions are never shown, only their length and a short
// fingerprint (so a refreshed token is seen to be new); a JWT access token's claims are shown.
import { createHash } from 'node:crypto';
import type { Clock } from '../engine/clock.js';

export type StepKind =
  | 'challenge'
  | 'resource-metadata'
  | 'server-metadata'
  | 'client'
  | 'registration'
  | 'authorization'
  | 'callback'
  | 'token'
  | 'refresh'
  | 'authorized'
  | 'signed-out'
  | 'other';

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: unknown;
  durationMs?: number;
  error?: string;
}

export interface OAuthStep {
  n: number;
  kind: StepKind;
  title: string;
  /** What happened, for a person. */
  detail: string;
  at: number;
  status: 'ok' | 'failed' | 'waiting' | 'info';
  exchange?: Exchange;
  /** The values that matter in this step (client_id, scope, code_challenge_method...). */
  facts?: Record<string, string>;
  /** The authorization step: the URL to open in the browser. */
  url?: string;
}

export interface OAuthView {
  server: string;
  /** The server is reached over HTTP and its requests go through the sign-in. */
  enabled: boolean;
  steps: OAuthStep[];
  /** A sign-in waits for the browser: the URL to open. */
  waiting?: { url: string; issuer: string };
  signedIn: boolean;
  issuer?: string;
  /** How the client is known to the authorization server. */
  registration?: 'pre-registered' | 'client ID metadata document' | 'dynamic registration';
  /** The redirect URI the authorization server sends the browser back to (the studio's own). */
  redirectUri?: string;
}

/** Form and JSON fields whose values are secrets. */
const SECRET_FIELDS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'code_verifier',
  'client_secret',
  'client_assertion',
  'assertion',
  'registration_access_token',
  'subject_token',
  'password',
]);
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'dpop', 'x-api-key']);

/** A secret as shown: its length and the first characters of its SHA-256 (to tell two apart). */
export function maskSecret(value: string): string {
  return `•••• (${value.length} characters, sha256 ${createHash('sha256').update(value).digest('hex').slice(0, 8)})`;
}

export function maskHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = SECRET_HEADERS.has(k) ? `${/^(\w+)\s+\S/.exec(v)?.[1] ?? ''} ${maskSecret(v.replace(/^\w+\s+/, ''))}`.trim() : v;
  });
  return out;
}

function maskValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskValue);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELDS.has(k) && typeof x === 'string' ? maskSecret(x) : maskValue(x)]));
  }
  return v;
}

/** A request or response body as shown: form fields and JSON with the secrets masked. */
export function maskBody(text: string | undefined, type: string | null): unknown {
  if (text === undefined || text === '') return undefined;
  if ((type ?? '').includes('application/x-www-form-urlencoded') || /^[\w.%-]+=/.test(text)) {
    const form = new URLSearchParams(text);
    return Object.fromEntries([...form.entries()].map(([k, v]) => [k, SECRET_FIELDS.has(k) ? maskSecret(v) : v]));
  }
  try {
    return maskValue(JSON.parse(text));
  } catch {
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  }
}

/** A JWT's header and claims (no signature): what an access token says, which the user may need to see. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const dec = (p: string) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    return { header: dec(parts[0]), claims: dec(parts[1]) };
  } catch {
    return undefined;
  }
}

export class StepLog {
  readonly steps: OAuthStep[] = [];
  private n = 0;

  constructor(
    private readonly clock: Clock,
    private readonly changed: () => void,
  ) {}

  add(step: Omit<OAuthStep, 'n' | 'at'>): OAuthStep {
    const s: OAuthStep = { n: ++this.n, at: this.clock.now(), ...step };
    this.steps.push(s);
    // A sign-in that goes on and on (a server refusing every token) must not fill the memory.
    if (this.steps.length > 200) this.steps.splice(0, this.steps.length - 200);
    this.changed();
    return s;
  }

  update(step: OAuthStep, change: Partial<OAuthStep>): void {
    Object.assign(step, change);
    this.changed();
  }

  last(kind: StepKind): OAuthStep | undefined {
    return this.steps.findLast((s) => s.kind === kind);
  }
}
