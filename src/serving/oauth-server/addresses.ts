/**
 * Which IP addresses the authorization server may connect to when it fetches a URL a stranger
 * chose (a client ID metadata document): globally reachable unicast only. Everything else
 * (loopback, RFC 1918, link-local, CGNAT, unique-local, multicast, unspecified, documentation,
 * benchmarking and reserved ranges) is inside somebody's network, or nowhere, and is refused.
 * Addresses that carry an IPv4 address inside IPv6 (IPv4-mapped, NAT64, 6to4) are judged by the
 * IPv4 address they lead to: `::ffff:127.0.0.1` is loopback, whatever its spelling.
 */

function parseIPv4(s: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : undefined;
}

/** Eight 16-bit groups, or undefined when `s` is not an IPv6 address (a zone id `%eth0` is dropped). */
function parseIPv6(raw: string): number[] | undefined {
  let s = raw.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) is two groups.
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (tail) {
    const v4 = parseIPv4(tail[1]!);
    if (!v4) return undefined;
    s = `${s.slice(0, -tail[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

function publicIPv4(a: number[]): boolean {
  const [x, y, z] = a as [number, number, number, number];
  if (x === 0 || x === 10 || x === 127 || x >= 224) return false; // "this network", private, loopback, multicast, reserved, broadcast
  if (x === 100 && y >= 64 && y <= 127) return false; // CGNAT (RFC 6598)
  if (x === 169 && y === 254) return false; // link-local (cloud metadata endpoints live here)
  if (x === 172 && y >= 16 && y <= 31) return false;
  if (x === 192 && y === 168) return false;
  if (x === 192 && y === 0 && (z === 0 || z === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (x === 192 && y === 88 && z === 99) return false; // the old 6to4 relay anycast
  if (x === 198 && (y === 18 || y === 19)) return false; // benchmarking
  if (x === 198 && y === 51 && z === 100) return false; // TEST-NET-2
  if (x === 203 && y === 0 && z === 113) return false; // TEST-NET-3
  return true;
}

const embedded = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];

function publicIPv6(g: number[]): boolean {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // IPv4-mapped ::ffff:a.b.c.d and its SIIT form ::ffff:0:a.b.c.d: the connection goes to the IPv4 address.
  if (zeros(0, 5) && g[5] === 0xffff) return publicIPv4(embedded(g[6]!, g[7]!));
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return publicIPv4(embedded(g[6]!, g[7]!));
  // NAT64 (64:ff9b::/96): the translator connects to the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return publicIPv4(embedded(g[6]!, g[7]!));
  // Only global unicast (2000::/3) is reachable on the internet: this refuses ::, ::1, the
  // IPv4-compatible ::/96, fc00::/7, fe80::/10, fec0::/10, ff00::/8, 100::/64, 64:ff9b:1::/48.
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  if (g[0] === 0x2001 && g[1]! < 0x200) return false; // 2001::/23 IETF assignments (Teredo, ORCHID, benchmarking)
  if (g[0] === 0x2001 && g[1] === 0xdb8) return false; // documentation
  if (g[0] === 0x3fff && g[1]! < 0x1000) return false; // documentation (3fff::/20)
  if (g[0] === 0x2002) return publicIPv4(embedded(g[1]!, g[2]!)); // 6to4 leads to its embedded IPv4 address
  return true;
}

/** True only for a globally reachable unicast IP address; false for anything else, host names included. */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4) return publicIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 !== undefined && publicIPv6(v6);
}

/** The IP address a URL host is written as (brackets and zone dropped), or undefined for a name. */
export function ipLiteral(hostname: string): { address: string; family: 4 | 6 } | undefined {
  if (parseIPv4(hostname)) return { address: hostname, family: 4 };
  const bare = hostname.replace(/^\[|\]$/g, '');
  return parseIPv6(bare) ? { address: bare, family: 6 } : undefined;
}
