// The one spelling of a name or resource URI behind the gateway. Routing (which backend, which
// URI it is sent) and every access decision (visibility, limits, the call log) read the value
// these functions return, never what the client sent: two spellings of one resource cannot be
// routed alike and judged apart (`mcpgw://h%72/...` reading what a rule on `mcpgw://hr/*` hides).
//
// URIs get RFC 3986 section 6.2.2 normalisation: scheme and host in lower case; percent-encoding
// in one form (triplets of unreserved characters decoded, the others in upper-case hex, and
// characters a URI may not hold literally, such as spaces and non-ASCII, encoded as UTF-8, as the
// IRI-to-URI mapping of RFC 3987 does); dot segments removed. What has no single reading is
// refused: an invalid percent-encoding, a relative reference, and an empty path segment (`//`,
// as in `file:////secret.txt`), which backends resolve differently (a file system collapses it,
// an HTTP server may not).

/** The scheme of gateway resource URIs. */
export const GATEWAY_SCHEME = 'mcpgw';

const HEX = '0123456789ABCDEF';
/** RFC 3986 2.3. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** RFC 3986 2.2: stand for themselves, and keep their meaning (and their encoding, when encoded). */
const RESERVED = ":/?#[]@!$&'()*+,;=";
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
/** RFC 3986 appendix B: scheme, authority, path, query, fragment. */
const PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

const PRINTABLE_ASCII = /^[!-~]*$/;

const encodeByte = (b: number) => `%${HEX[b >> 4]}${HEX[b & 15]}`;
const utf8 = new TextEncoder();

/**
 * Percent-encoding in its one form: unreserved characters literal, reserved ones as given,
 * anything else encoded (UTF-8, upper-case hex). Undefined for a `%` not followed by two hex
 * digits, or a lone surrogate.
 */
export function normalisePercent(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      const byte = Number.parseInt(hex, 16);
      const decoded = String.fromCharCode(byte);
      out += byte < 0x80 && UNRESERVED.test(decoded) ? decoded : encodeByte(byte);
      i += 2;
    } else if (UNRESERVED.test(ch) || RESERVED.includes(ch)) {
      out += ch;
    } else {
      const code = text.codePointAt(i)!;
      const char = String.fromCodePoint(code);
      if (code >= 0xd800 && code <= 0xdfff) return undefined; // a lone surrogate has no UTF-8
      for (const b of utf8.encode(char)) out += encodeByte(b);
      i += char.length - 1;
    }
  }
  return out;
}

/** RFC 3986 5.2.4. */
function removeDotSegments(path: string): string {
  let input = path;
  const out: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      out.pop();
    } else if (input === '/..') {
      input = '/';
      out.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next < 0 ? input : input.slice(0, next);
      out.push(segment);
      input = input.slice(segment.length);
    }
  }
  return out.join('');
}

/** The authority with its host in lower case (user info and port as they are). */
function lowerHost(authority: string): string {
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? '' : authority.slice(0, at + 1);
  const hostPort = authority.slice(at + 1);
  const port = /:[0-9]*$/.exec(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']') + 1) : hostPort)?.[0] ?? '';
  const host = hostPort.slice(0, hostPort.length - port.length);
  // Hex digits of percent-encodings stay upper case.
  return user + host.toLowerCase().replace(/%[0-9a-f]{2}/g, (t) => t.toUpperCase()) + port;
}

/**
 * The canonical form of an absolute URI (a backend's resource URI), or undefined when it has
 * none: not an absolute URI, invalid percent-encoding, or an empty path segment (`//`).
 */
export function canonicalUri(uri: string): string | undefined {
  const normal = normalisePercent(uri);
  if (normal === undefined) return undefined;
  const m = PARTS.exec(normal);
  if (!m) return undefined;
  const [, scheme, authority, rawPath, query, fragment] = m;
  if (scheme === undefined || !SCHEME.test(scheme)) return undefined;
  // Checked before and after dot segments go: `/a//../b` is `/a/b` to RFC 3986 and `/b` to a file system.
  if (rawPath.includes('//')) return undefined;
  const path = removeDotSegments(rawPath);
  if (path.includes('//') || (authority === undefined && path.startsWith('//'))) return undefined;
  return (
    scheme.toLowerCase() +
    ':' +
    (authority === undefined ? '' : `//${lowerHost(authority)}`) +
    path +
    (query === undefined ? '' : `?${query}`) +
    (fragment === undefined ? '' : `#${fragment}`)
  );
}

/** A gateway resource URI, taken apart: the backend, its URI, and the whole in canonical form. */
export interface GatewayResource {
  /** The backend's name in the config (case-sensitive, as backends are looked up). */
  server: string;
  /** The backend's URI, canonical: what the backend is sent. */
  uri: string;
  /** `mcpgw://<server>/<uri>`, canonical: what rules match and the call log names. */
  name: string;
}

/** `mcpgw://<server>/<uri>` in canonical form, or undefined when the backend's URI has none. */
export function gatewayResource(server: string, uri: string): GatewayResource | undefined {
  const inner = canonicalUri(uri);
  return inner === undefined ? undefined : { server, uri: inner, name: `${GATEWAY_SCHEME}://${encodeURIComponent(server)}/${inner}` };
}

/**
 * A gateway URI a client sent, in canonical form: the scheme in any case, the backend's name
 * in any percent-encoding, the backend's URI as `canonicalUri` takes it. Undefined when it is
 * not a gateway URI or has no canonical form.
 */
export function parseGatewayUri(uri: string): GatewayResource | undefined {
  const prefix = `${GATEWAY_SCHEME}://`;
  if (uri.slice(0, prefix.length).toLowerCase() !== prefix) return undefined;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  let server: string;
  try {
    server = decodeURIComponent(rest.slice(0, slash));
  } catch {
    return undefined;
  }
  return gatewayResource(server, rest.slice(slash + 1));
}

/**
 * A tool or prompt name as sent, when it is in the one form names are compared in: Unicode NFC,
 * with no control, format (zero-width, direction marks) or separator characters. Undefined
 * otherwise. Names are compared exactly, case included, by routing and by every rule alike.
 */
export function canonicalName(name: string): string | undefined {
  // Printable ASCII without spaces (nearly every name) is in NFC and has no control, format or
  // separator character: no normalisation to run.
  if (PRINTABLE_ASCII.test(name)) return name;
  return name.normalize('NFC') === name && !/[\p{Cc}\p{Cf}\p{Z}]/u.test(name) ? name : undefined;
}

/**
 * A rule's glob over gateway URIs, spelt as the URIs it is meant to match are: the scheme in
 * lower case and percent-encoding normalised (`*` and `?` are reserved characters, left as
 * they are). A glob spelt otherwise could never match, so the policy refuses it.
 */
export function canonicalGlob(glob: string): string {
  const prefix = `${GATEWAY_SCHEME}:`;
  if (glob.slice(0, prefix.length).toLowerCase() !== prefix) return glob;
  return prefix + (normalisePercent(glob.slice(prefix.length)) ?? glob.slice(prefix.length));
}
