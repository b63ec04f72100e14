// What may stand in an HTTP/1.1 header, as the client writes and reads heads (./h1.ts,
// ./node-exchange.ts): names are tokens (RFC 9110 §5.1), values are refused as fetch refuses them.
// Read character by character, not by regular expression: the same few names and values go by on
// every request, and a call into a regular expression costs more than the reading.

/** 1 for the characters of a token (RFC 9110 tchar), 2 for upper-case letters, 0 for the rest (ASCII). */
export const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') TCHAR[c.charCodeAt(0)] = 2;

/**
 * Header names and values found sendable: a transport sends the same few on every request, and
 * a set's lookup is cheaper than reading them again (bounded: past that, each is read).
 */
const tokens = new Set<string>();
const values = new Set<string>();

function remember(set: Set<string>, s: string): void {
  if (set.size < 256 && s.length <= 128) set.add(s);
}

/** A header name fetch would send: a token (RFC 9110). */
export function isToken(name: string): boolean {
  if (tokens.has(name)) return true;
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || TCHAR[c] === 0) return false;
  }
  remember(tokens, name);
  return true;
}

/** A header value fetch refuses to send: a control character other than tab, or one past latin1. */
export function isBadValue(value: string): boolean {
  if (values.has(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 ? c !== 9 : c === 0x7f || c > 0xff) return true;
  }
  remember(values, value);
  return false;
}
