// Keeping secrets out of a diagnosis. Whatever the user gave us to reach the server (header
// values, environment values, the password of a URL, key-like query parameters and arguments)
// may come back in what the server says (an echoed header in a 404 page, a token on stderr):
// every string of the report is scrubbed of those values before it is returned.
import type { Diagnosis } from './types.js';

const MASK = '[redacted]';
/** Query parameters and flags whose values are credentials. */
const SECRET_NAME = /(key|token|secret|password|passwd|auth|credential|signature|sig|session)/i;
/** Values too short to be a secret are not scrubbed (they would mangle the text). */
const MIN_SECRET = 4;

/** The secret values of a target's headers, environment and URL. */
export function secretsOf(parts: { headers?: Record<string, string>; env?: Record<string, string>; url?: string; args?: string[] }): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (v && v.length >= MIN_SECRET) out.add(v);
  };
  for (const v of Object.values(parts.headers ?? {})) {
    add(v);
    // "Bearer abc": the token alone may be echoed too.
    const m = /^\S+\s+(.+)$/.exec(v);
    add(m?.[1]);
  }
  for (const v of Object.values(parts.env ?? {})) add(v);
  if (parts.url && URL.canParse(parts.url)) {
    const u = new URL(parts.url);
    add(decodeURIComponent(u.password));
    for (const [k, v] of u.searchParams) if (SECRET_NAME.test(k)) add(v);
  }
  const args = parts.args ?? [];
  args.forEach((a, i) => {
    const eq = /^--?([\w-]+)=(.+)$/.exec(a);
    if (eq && SECRET_NAME.test(eq[1])) add(eq[2]);
    else if (/^--?[\w-]+$/.test(a) && SECRET_NAME.test(a) && i + 1 < args.length) add(args[i + 1]);
  });
  return [...out].sort((a, b) => b.length - a.length);
}

/** A URL as shown: no password, key-like query values masked. */
export function showUrl(raw: string): string {
  if (!URL.canParse(raw)) return raw;
  const u = new URL(raw);
  if (u.password) u.password = 'redacted';
  for (const k of [...u.searchParams.keys()]) if (SECRET_NAME.test(k)) u.searchParams.set(k, 'redacted');
  return u.href;
}

/** `text` with every secret replaced. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(MASK);
  return out;
}

/** The diagnosis with every string scrubbed (a copy). */
export function scrubDiagnosis(d: Diagnosis, secrets: readonly string[]): Diagnosis {
  if (secrets.length === 0) return d;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(d) as Diagnosis;
}
