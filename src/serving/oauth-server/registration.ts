/**
 * Who may register a client and how often (RFC 7591): the initial access token (§3) when the
 * operator requires one, and a per-address rate limit, both settled before the body is read, so
 * that a refused registration costs a header parse. How many registrations are kept and for how
 * long is the client directory's part (clients.ts).
 */
import type { Clock } from '../../engine/clock.js';
import type { HttpRequestView } from '../http/exchange.js';
import { OAuthError, sameSecret } from './http.js';
import type { DynamicRegistrationOptions } from './options.js';

/** The limits the client directory keeps registrations within. */
export interface RegistrationLimits {
  maxClients: number;
  unusedTtlMs: number;
  idleTtlMs: number;
}

/** Addresses a limiter remembers at most; the least recently counted is forgotten first. */
const MAX_ADDRESSES = 10_000;

function fail(message: string): never {
  throw new TypeError(`authorizationServer: dynamicRegistration: ${message}`);
}

function positive(v: number | undefined, fallback: number, what: string, whole = false): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (whole && !Number.isInteger(v)))
    fail(`${what} must be a positive ${whole ? 'whole ' : ''}number`);
  return v;
}

/**
 * The address a registration counts against: IPv4 as it is (an IPv4-mapped IPv6 address too),
 * IPv6 by its /64, which one host is usually given whole and could otherwise cycle through.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Per-address limits as a token bucket of `capacity` refilled over `windowMs`, kept as one
 * number per address (GCRA: the time the bucket would be full again), so the arithmetic is
 * whole milliseconds and the answer exact.
 */
class AddressLimiter {
  private readonly fullAt = new Map<string, number>();
  private readonly interval: number;
  private readonly burst: number;

  constructor(
    capacity: number,
    windowMs: number,
    private readonly clock: Clock,
  ) {
    this.interval = windowMs / capacity;
    this.burst = windowMs - this.interval;
  }

  /** 0 when a request from `key` may go ahead (and is counted), else the milliseconds until one may. */
  take(key: string): number {
    const now = this.clock.now();
    const at = Math.max(this.fullAt.get(key) ?? now, now);
    if (at - now > this.burst) return Math.max(1, Math.ceil(at - now - this.burst));
    // Re-inserted, so that the map's order is least recently counted first.
    this.fullAt.delete(key);
    this.fullAt.set(key, at + this.interval);
    // The least recently counted goes first: most likely refilled already, and never a scan.
    if (this.fullAt.size > MAX_ADDRESSES) this.fullAt.delete(this.fullAt.keys().next().value!);
    return 0;
  }
}

export class RegistrationPolicy {
  readonly limits: RegistrationLimits;
  readonly maxBodyBytes: number;
  readonly maxRedirectUris: number;
  private readonly limiter: AddressLimiter | undefined;
  private readonly keyOf: (req: HttpRequestView) => string;
  private readonly tokenAccepted: ((token: string, req: HttpRequestView) => boolean | Promise<boolean>) | undefined;

  constructor(options: DynamicRegistrationOptions, refreshTtlSec: number, clock: Clock) {
    if (!options || typeof options !== 'object') fail('must be a boolean or an object');
    this.limits = {
      maxClients: positive(options.maxClients, 10_000, 'maxClients', true),
      unusedTtlMs: positive(options.unusedTtlSec, 86_400, 'unusedTtlSec') * 1000,
      idleTtlMs: positive(options.idleTtlSec, refreshTtlSec, 'idleTtlSec') * 1000,
    };
    this.maxBodyBytes = positive(options.maxBodyBytes, 8192, 'maxBodyBytes', true);
    this.maxRedirectUris = positive(options.maxRedirectUris, 10, 'maxRedirectUris', true);
    const rate = options.rateLimit;
    if (rate !== false) {
      if (rate !== undefined && (typeof rate !== 'object' || rate === null)) fail('rateLimit must be false or { requests, windowSec, key }');
      const requests = positive(rate?.requests, 20, 'rateLimit.requests', true);
      this.limiter = new AddressLimiter(requests, positive(rate?.windowSec, 3600, 'rateLimit.windowSec') * 1000, clock);
    }
    const key = rate ? rate.key : undefined;
    if (key !== undefined && typeof key !== 'function') fail('rateLimit.key must be a function of the request');
    this.keyOf = key ? (req) => key(req) ?? '' : (req) => addressKey(req.remoteAddress);
    this.tokenAccepted = tokenCheck(options.initialAccessToken);
  }

  /** Throws the refusal (429, 401) of a registration request, before its body is read. */
  async admit(req: HttpRequestView): Promise<void> {
    const waitMs = this.limiter?.take(this.keyOf(req)) ?? 0;
    if (waitMs > 0) {
      const sec = Math.ceil(waitMs / 1000);
      throw new OAuthError('temporarily_unavailable', `too many registrations from this address; try again in ${sec} s`, 429, { 'retry-after': String(sec) });
    }
    if (!this.tokenAccepted) return;
    const header = req.header('authorization');
    const token = header ? /^bearer +([\x21-\x7E]+) *$/i.exec(header)?.[1] : undefined;
    if (token === undefined) {
      throw new OAuthError('invalid_token', 'registration needs an initial access token (Authorization: Bearer <token>)', 401, {
        'www-authenticate': 'Bearer realm="register"',
      });
    }
    if (!(await this.tokenAccepted(token, req))) {
      throw new OAuthError('invalid_token', 'the initial access token is not valid', 401, {
        'www-authenticate': 'Bearer realm="register", error="invalid_token"',
      });
    }
  }
}

function tokenCheck(
  option: DynamicRegistrationOptions['initialAccessToken'],
): ((token: string, req: HttpRequestView) => boolean | Promise<boolean>) | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'function') return option;
  const list = typeof option === 'string' ? [option] : option;
  if (!Array.isArray(list) || list.length === 0 || !list.every((t) => typeof t === 'string' && t.length >= 16))
    fail('initialAccessToken must be a token of at least 16 characters, a non-empty list of them, or a function');
  // Every one compared, so that the time taken says nothing about which came close.
  return (token) => list.map((t) => sameSecret(token, t)).includes(true);
}
