/**
 * Which URLs an OAuth client will fetch or show to a user. Discovery documents come from the
 * MCP server and its authorization server, so a hostile server could point the client at
 * internal addresses (SSRF) or at `javascript:`/`file:` URLs; the MCP spec asks clients to allow
 * only https (http for loopback during development) and to keep away from private ranges.
 */
import { OAuthFlowError } from './errors.js';

export interface UrlPolicyOptions {
  /** Allow plain http to any host. Default: http only to loopback, and only when the MCP server itself is on loopback. */
  allowHttp?: boolean;
  /** Allow loopback and private-network hosts even when the MCP server is not on one. Default false. */
  allowPrivateNetwork?: boolean;
}

function ipv4(host: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : undefined;
}

/**
 * A host name as compared here: lower case, no IPv6 brackets, no trailing root dot
 * ("localhost." is localhost), and an IPv4-mapped or -compatible IPv6 address as its IPv4 form
 * (the URL parser writes `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`, which must not pass for public).
 */
function normalHost(host: string): string {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const m = /^::(?:ffff:(?:0:)?)?(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/.exec(h);
  if (!m) return h;
  if (m[3]) return m[3];
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function isLoopback(host: string): boolean {
  const h = normalHost(host);
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  const v4 = ipv4(h);
  return v4 !== undefined && v4[0] === 127;
}

/** Loopback, RFC 1918, link-local, CGNAT and IPv6 unique-local / link-local literals. */
export function isPrivate(host: string): boolean {
  if (isLoopback(host)) return true;
  const h = normalHost(host);
  const v4 = ipv4(h);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return (
      a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)
    );
  }
  return h.includes(':') && (h === '::' || /^f[cd]/.test(h) || /^fe[89ab]/.test(h));
}

/** A checker bound to one MCP server URL: throws OAuthFlowError for a URL the client must not use. */
export function urlPolicy(serverUrl: string, options: UrlPolicyOptions = {}): (url: string, what: string) => URL {
  const server = new URL(serverUrl);
  const serverLocal = isPrivate(server.hostname);
  return (raw, what) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new OAuthFlowError(`the ${what} ${JSON.stringify(raw)} is not a valid URL`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      throw new OAuthFlowError(`the ${what} ${raw} uses ${u.protocol}; only https (or http on loopback) is allowed`);
    if (u.protocol === 'http:' && !options.allowHttp && !(isLoopback(u.hostname) && isLoopback(server.hostname))) {
      throw new OAuthFlowError(`the ${what} ${raw} is plain http; only https is allowed (http only on loopback, for development)`);
    }
    if (!serverLocal && !options.allowPrivateNetwork && isPrivate(u.hostname)) {
      throw new OAuthFlowError(
        `the ${what} ${raw} points at a loopback or private address while the MCP server ${server.origin} is public; refused (allowPrivateNetwork to permit it)`,
      );
    }
    return u;
  };
}
