// The `policy` section of a gateway config, as JSON a person writes: its types, and the check
// that turns a mistake into a sentence naming the field (`policy.limits.rules[1].windowMs: ...`)
// at startup, not a surprise at the first call. docs/gateway.md "Policies" describes each field.
import { canonicalGlob } from '../canonical.js';
import { closest } from '../../protocol/suggest.js';

export type ItemKind = 'tool' | 'prompt' | 'resource';

/** Conditions on the caller; every key given must hold (a list: any one of its values). */
export interface CallerMatch {
  /** The caller's id (an API key's `id`, a token's `sub`), or `anonymous`. */
  id?: string | readonly string[];
  /** One of the caller's groups (an API key's `groups`, a token's `groups` claim). */
  group?: string | readonly string[];
  /** One of the caller's OAuth scopes (or an API key's configured `scopes`). */
  scope?: string | readonly string[];
  /** Claims equal to these values (a claim holding a list matches when it contains the value). */
  claim?: Readonly<Record<string, string | number | boolean>>;
  /** true: only callers with no credential; false: only authenticated ones. */
  anonymous?: boolean;
}

export interface ApiKeyEntry {
  /** The caller's id in limits, rules and the call log. Never the key itself. */
  id: string;
  groups?: readonly string[];
  scopes?: readonly string[];
  /** More attributes (tenant, team...), matched by `when.claim`. */
  claims?: Readonly<Record<string, unknown>>;
}

export interface OAuthConfig {
  /** The authorization server's issuer; tokens' `iss` must equal it. */
  issuer: string;
  /** Audience(s) tokens must name. Default: the gateway's own URL (RFC 8707). */
  audience?: string | readonly string[];
  /** The JWK Set URL. Default: discovered from the issuer's metadata. */
  jwksUri?: string;
  /** The gateway endpoint's canonical URL, as clients reach it. */
  resource?: string;
  /** Scopes every request needs. */
  requiredScopes?: readonly string[];
  /** Scopes advertised in the protected resource metadata. */
  scopesSupported?: readonly string[];
}

export interface AuthConfig {
  /**
   * Keyed by a reference to the key, never the key: `env:NAME` (the key is in environment
   * variable NAME) or `sha256:<64 hex digits>` (the key's SHA-256 digest).
   */
  apiKeys?: Readonly<Record<string, ApiKeyEntry>>;
  /** JWT access tokens from an OAuth authorization server (mcpkit's resource-server guard). */
  oauth?: OAuthConfig;
  /** Let callers in without a credential, as `anonymous`. Default false. */
  anonymous?: boolean;
}

export interface VisibilityRule {
  /** Whom the rule is about; absent: everyone. */
  when?: CallerMatch;
  /** Which kinds of item; absent: tools, prompts and resources. */
  kinds?: readonly ItemKind[];
  /**
   * Globs over namespaced names (or canonical resource URIs: docs/gateway.md, "How resource rules
   * match"): `*` any run of characters, `?` one. Case-sensitive, as routing is.
   */
  allow?: readonly string[];
  deny?: readonly string[];
}

export interface VisibilityConfig {
  /** For items no applicable rule names. Default: `deny` if any rule has `allow`, else `allow`. */
  default?: 'allow' | 'deny';
  rules: readonly VisibilityRule[];
}

export interface LimitRule {
  /** Names the counter (in Redis keys and refusals). Default `rule<index>`: name rules you may reorder. */
  name?: string;
  when?: CallerMatch;
  kinds?: readonly ItemKind[];
  /** Globs of the items the rule counts; absent: every item. */
  items?: readonly string[];
  /** One counter per caller (default), per caller and item, or per item shared by every caller (to spare a backend). */
  per?: 'caller' | 'caller-item' | 'item';
  /** Fixed window: at most `limit` calls per `windowMs` (quotas: a day is 86400000). */
  limit?: number;
  windowMs?: number;
  /** Token bucket: bursts up to `capacity`, refilled at `refillPerSecond`. */
  tokenBucket?: { capacity: number; refillPerSecond: number };
}

export interface RedisLimitStore {
  /** `redis://` URL; ioredis (an optional peer) is loaded when the first call is counted. */
  redis: string;
  /** Prefix of every key. Default `mcpkit:gw:limit:`. */
  keyPrefix?: string;
  /** When Redis fails or is slow: `open` admits the call, `closed` refuses it. Default `open`. */
  onError?: 'open' | 'closed';
  /** How long a count may take before it counts as failed. Default 500. */
  timeoutMs?: number;
}

export interface LimitsConfig {
  /** Where counters live. Default `memory` (one process); Redis shares them across instances. */
  store?: 'memory' | RedisLimitStore;
  rules: readonly LimitRule[];
}

export interface CallLogConfig {
  /** `stdout`, `stderr`, or a file path (appended to). */
  to: string;
  /** Call arguments: `false` (default) leaves them out, `keys` logs their names, `true` logs them whole. */
  arguments?: boolean | 'keys';
}

/** The `policy` section of a gateway config. */
export interface PolicyConfig {
  auth?: AuthConfig;
  /** Rules, or `{ default, rules }`. */
  visibility?: VisibilityConfig | readonly VisibilityRule[];
  limits?: LimitsConfig;
  callLog?: CallLogConfig;
}

/** A policy config that cannot work; the message names the field. */
export class PolicyConfigError extends Error {
  override name = 'PolicyConfigError';
}

type Obj = Record<string, unknown>;
const KINDS = new Set(['tool', 'prompt', 'resource']);

function fail(path: string, message: string): never {
  throw new PolicyConfigError(`${path}: ${message}`);
}

function object(v: unknown, path: string, keys: readonly string[]): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, 'must be an object');
  for (const k of Object.keys(v as Obj)) {
    if (keys.includes(k)) continue;
    const near = closest(k, keys);
    fail(path, `unknown field "${k}" (${near === undefined ? '' : `did you mean "${near}"? `}expected ${keys.join(', ')})`);
  }
  return v as Obj;
}

function strings(v: unknown, path: string, allowOne = false): void {
  if (allowOne && typeof v === 'string') return;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s.length === 0)) {
    fail(path, `must be ${allowOne ? 'a string or ' : ''}an array of non-empty strings`);
  }
}

/** Globs over gateway URIs must be spelt as the canonical URIs they are matched against (canonical.ts). */
function globs(v: unknown, path: string): void {
  strings(v, path);
  (v as string[]).forEach((g, i) => {
    const canonical = canonicalGlob(g);
    if (canonical !== g) {
      fail(
        `${path}[${i}]`,
        `"${g}" can never match: resource URIs are matched in canonical form; write "${canonical}" (docs/gateway.md, "How resource rules match")`,
      );
    }
  });
}

function positive(v: unknown, path: string): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(path, `must be a positive number, got ${JSON.stringify(v)}`);
}

function checkMatch(v: unknown, path: string): void {
  const m = object(v, path, ['id', 'group', 'scope', 'claim', 'anonymous']);
  for (const k of ['id', 'group', 'scope'] as const) if (m[k] !== undefined) strings(m[k], `${path}.${k}`, true);
  if (m.claim !== undefined) {
    const c = object(m.claim, `${path}.claim`, Object.keys(m.claim as Obj));
    for (const [k, x] of Object.entries(c)) {
      if (!['string', 'number', 'boolean'].includes(typeof x)) fail(`${path}.claim.${k}`, 'must be a string, number or boolean');
    }
  }
  if (m.anonymous !== undefined && typeof m.anonymous !== 'boolean') fail(`${path}.anonymous`, 'must be true or false');
}

function checkKinds(v: unknown, path: string): void {
  strings(v, path);
  for (const k of v as string[]) if (!KINDS.has(k)) fail(path, `"${k}" is not a kind (tool, prompt, resource)`);
}

function checkAuth(v: unknown, path: string): void {
  const a = object(v, path, ['apiKeys', 'oauth', 'anonymous']);
  if (a.apiKeys !== undefined) {
    const keys = object(a.apiKeys, `${path}.apiKeys`, Object.keys(a.apiKeys as Obj));
    const ids = new Set<string>();
    for (const [ref, entry] of Object.entries(keys)) {
      // The reference is checked without echoing it: a pasted raw key must not reach a log.
      if (!/^env:[A-Za-z_][A-Za-z0-9_]*$/.test(ref) && !/^sha256:[0-9a-fA-F]{64}$/.test(ref)) {
        fail(
          `${path}.apiKeys`,
          'each key must be named "env:VARIABLE" or "sha256:<64 hex digits>" (a raw key is refused, so that no secret sits in the config)',
        );
      }
      const e = object(entry, `${path}.apiKeys[${ref.startsWith('env:') ? ref : 'sha256:…'}]`, ['id', 'groups', 'scopes', 'claims']);
      if (typeof e.id !== 'string' || e.id.length === 0) fail(`${path}.apiKeys[${e.id ?? '?'}].id`, 'must be a non-empty string');
      if (e.id === 'anonymous') fail(`${path}.apiKeys[${e.id}].id`, '"anonymous" is reserved for callers without a credential');
      if (ids.has(e.id)) fail(`${path}.apiKeys`, `two keys have the id "${e.id}"`);
      ids.add(e.id);
      if (e.groups !== undefined) strings(e.groups, `${path}.apiKeys[${e.id}].groups`);
      if (e.scopes !== undefined) strings(e.scopes, `${path}.apiKeys[${e.id}].scopes`);
      if (e.claims !== undefined) object(e.claims, `${path}.apiKeys[${e.id}].claims`, Object.keys(e.claims as Obj));
    }
  }
  if (a.oauth !== undefined) {
    const o = object(a.oauth, `${path}.oauth`, ['issuer', 'audience', 'jwksUri', 'resource', 'requiredScopes', 'scopesSupported']);
    if (typeof o.issuer !== 'string' || o.issuer.length === 0) fail(`${path}.oauth.issuer`, 'must be the issuer URL');
    if (o.audience !== undefined) strings(o.audience, `${path}.oauth.audience`, true);
    for (const k of ['jwksUri', 'resource'] as const) if (o[k] !== undefined && typeof o[k] !== 'string') fail(`${path}.oauth.${k}`, 'must be a URL');
    for (const k of ['requiredScopes', 'scopesSupported'] as const) if (o[k] !== undefined) strings(o[k], `${path}.oauth.${k}`);
  }
  if (a.anonymous !== undefined && typeof a.anonymous !== 'boolean') fail(`${path}.anonymous`, 'must be true or false');
}

function checkVisibility(v: unknown, path: string): void {
  const section = Array.isArray(v) ? { rules: v } : object(v, path, ['default', 'rules']);
  if (section.default !== undefined && section.default !== 'allow' && section.default !== 'deny') fail(`${path}.default`, 'must be "allow" or "deny"');
  if (!Array.isArray(section.rules)) fail(`${path}.rules`, 'must be an array of rules');
  (section.rules as unknown[]).forEach((r, i) => {
    const p = `${path}.rules[${i}]`;
    const rule = object(r, p, ['when', 'kinds', 'allow', 'deny']);
    if (rule.when !== undefined) checkMatch(rule.when, `${p}.when`);
    if (rule.kinds !== undefined) checkKinds(rule.kinds, `${p}.kinds`);
    if (rule.allow !== undefined) globs(rule.allow, `${p}.allow`);
    if (rule.deny !== undefined) globs(rule.deny, `${p}.deny`);
    if (rule.allow === undefined && rule.deny === undefined) fail(p, 'needs "allow" or "deny" (a list of name globs)');
  });
}

function checkLimits(v: unknown, path: string): void {
  const l = object(v, path, ['store', 'rules']);
  if (l.store !== undefined && l.store !== 'memory') {
    const s = object(l.store, `${path}.store`, ['redis', 'keyPrefix', 'onError', 'timeoutMs']);
    if (typeof s.redis !== 'string' || !/^rediss?:\/\//.test(s.redis)) fail(`${path}.store.redis`, 'must be a redis:// or rediss:// URL');
    if (s.keyPrefix !== undefined && (typeof s.keyPrefix !== 'string' || s.keyPrefix.length === 0))
      fail(`${path}.store.keyPrefix`, 'must be a non-empty string');
    if (s.onError !== undefined && s.onError !== 'open' && s.onError !== 'closed') fail(`${path}.store.onError`, 'must be "open" or "closed"');
    if (s.timeoutMs !== undefined) positive(s.timeoutMs, `${path}.store.timeoutMs`);
  }
  if (!Array.isArray(l.rules)) fail(`${path}.rules`, 'must be an array of rules');
  const names = new Set<string>();
  (l.rules as unknown[]).forEach((r, i) => {
    const p = `${path}.rules[${i}]`;
    const rule = object(r, p, ['name', 'when', 'kinds', 'items', 'per', 'limit', 'windowMs', 'tokenBucket']);
    const name = rule.name ?? `rule${i}`;
    if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) fail(`${p}.name`, 'must be 1-64 letters, digits, "_", "." or "-"');
    if (names.has(name)) fail(`${p}.name`, `"${name}" names two rules`);
    names.add(name);
    if (rule.when !== undefined) checkMatch(rule.when, `${p}.when`);
    if (rule.kinds !== undefined) checkKinds(rule.kinds, `${p}.kinds`);
    if (rule.items !== undefined) globs(rule.items, `${p}.items`);
    if (rule.per !== undefined && !['caller', 'caller-item', 'item'].includes(rule.per as string))
      fail(`${p}.per`, 'must be "caller", "caller-item" or "item"');
    const window = rule.limit !== undefined || rule.windowMs !== undefined;
    if (window === (rule.tokenBucket !== undefined)) fail(p, 'needs either "limit" with "windowMs" (a fixed window) or "tokenBucket", not both');
    if (window) {
      if (!Number.isInteger(rule.limit) || (rule.limit as number) < 0) fail(`${p}.limit`, 'must be a whole number of calls (0 or more)');
      positive(rule.windowMs, `${p}.windowMs`);
    } else {
      const b = object(rule.tokenBucket, `${p}.tokenBucket`, ['capacity', 'refillPerSecond']);
      positive(b.capacity, `${p}.tokenBucket.capacity`);
      positive(b.refillPerSecond, `${p}.tokenBucket.refillPerSecond`);
    }
  });
}

/** Checks a parsed policy section; returns it typed, or throws PolicyConfigError naming the field. */
export function checkPolicyConfig(v: unknown, path = 'policy'): PolicyConfig {
  const c = object(v, path, ['auth', 'visibility', 'limits', 'callLog']);
  if (c.auth !== undefined) checkAuth(c.auth, `${path}.auth`);
  if (c.visibility !== undefined) checkVisibility(c.visibility, `${path}.visibility`);
  if (c.limits !== undefined) checkLimits(c.limits, `${path}.limits`);
  if (c.callLog !== undefined) {
    const l = object(c.callLog, `${path}.callLog`, ['to', 'arguments']);
    if (typeof l.to !== 'string' || l.to.length === 0) fail(`${path}.callLog.to`, 'must be "stdout", "stderr" or a file path');
    if (l.arguments !== undefined && typeof l.arguments !== 'boolean' && l.arguments !== 'keys')
      fail(`${path}.callLog.arguments`, 'must be true, false or "keys"');
  }
  return v as PolicyConfig;
}
