// The network under an HTTP target, one layer at a time: the name (DNS), a TCP connection, and
// for https the TLS handshake with the certificate checked the way fetch checks it.
import { lookup } from 'node:dns/promises';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { duration, type Walk } from './walk.js';

/** Where the target's host name leads: the addresses to connect to. */
export async function dnsStep(walk: Walk, url: URL): Promise<string[] | undefined> {
  const since = walk.now();
  const host = hostOf(url);
  if (isIP(host)) {
    walk.pass('dns', since, `${host} is an IP address: nothing to look up`);
    return [host];
  }
  const r = await walk.wait(
    lookup(host, { all: true }).then(
      (a) => a.map((x) => x.address),
      (e: NodeJS.ErrnoException) => e,
    ),
    walk.ctx.timeoutMs,
  );
  if (r === 'aborted') return undefined;
  if (r === 'timeout' || !Array.isArray(r)) {
    const code = r === 'timeout' ? 'timeout' : r.code;
    const why = code === 'ENOTFOUND' ? 'no such host' : code === 'EAI_AGAIN' ? 'the lookup failed for now (no network, or no DNS server answering?)' : code;
    walk.fail(
      'dns',
      since,
      'dns',
      `the host name ${host} does not resolve (${why})`,
      code === 'ENOTFOUND'
        ? 'check the spelling of the host in the URL; a server on this machine is at localhost or 127.0.0.1'
        : 'check the network connection and DNS settings, then try again',
    );
    return undefined;
  }
  walk.pass('dns', since, `${host} → ${r.join(', ')}`);
  return r;
}

/** The host of a URL as the resolver and sockets want it (no IPv6 brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Opens a TCP connection to one of the addresses; records `connect`. The address that took it. */
export async function connectStep(walk: Walk, url: URL, addresses: string[]): Promise<string | undefined> {
  const since = walk.now();
  const port = portOf(url);
  const errors: string[] = [];
  for (const address of addresses) {
    const socket = tcpConnect({ host: address, port });
    const r = await walk.wait(settle(socket, 'connect'), walk.ctx.timeoutMs);
    socket.destroy();
    if (r === 'aborted') return undefined;
    if (r === 'ok') {
      walk.pass('connect', since, `TCP connection to ${address}:${port}`);
      return address;
    }
    errors.push(r === 'timeout' ? 'timeout' : (r.code ?? r.message));
  }
  const where = `${hostOf(url)}:${port}`;
  if (errors.every((e) => e === 'ECONNREFUSED')) {
    walk.fail(
      'connect',
      since,
      'connection-refused',
      `nothing is listening on ${where} (connection refused)`,
      'start the server, or check the port in the URL (mcpkit serve listens on 3000 unless told otherwise)',
    );
  } else {
    walk.fail(
      'connect',
      since,
      'unreachable',
      errors.includes('timeout') ? `no answer from ${where} within ${duration(walk.ctx.timeoutMs)}` : `cannot reach ${where} (${errors.join(', ')})`,
      'check that the host is up and that no firewall or VPN is in the way',
    );
  }
  return undefined;
}

/** The TLS handshake of an https target, certificate checked as fetch would; records `tls`. */
export async function tlsStep(walk: Walk, url: URL, address: string): Promise<boolean> {
  const since = walk.now();
  const host = hostOf(url);
  const socket = tlsConnect({
    host: address,
    port: portOf(url),
    servername: isIP(host) ? undefined : host,
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
  });
  const r = await walk.wait(settle(socket, 'secureConnect'), walk.ctx.timeoutMs);
  try {
    if (r === 'aborted') return false;
    if (r === 'timeout') {
      walk.fail(
        'tls',
        since,
        'tls',
        `the TLS handshake with ${host} did not finish within ${duration(walk.ctx.timeoutMs)}`,
        'check that the port serves HTTPS',
      );
      return false;
    }
    if (r !== 'ok') {
      const plain = /wrong version number|packet length too long|EPROTO|unknown protocol|ECONNRESET/i.test(`${r.code} ${r.message}`);
      const http = new URL(url.href);
      http.protocol = 'http:';
      walk.fail(
        'tls',
        since,
        'tls',
        plain ? `${host}:${portOf(url)} does not speak TLS (${r.message.split('\n')[0]})` : `the TLS handshake failed: ${r.message}`,
        plain ? `the server speaks plain HTTP on this port: did you mean ${http.href}?` : 'check the server certificate and the TLS versions it accepts',
      );
      return false;
    }
    const tls = socket as TLSSocket;
    const cert = tls.getPeerCertificate();
    const cn = cert?.subject?.CN;
    const subject = (Array.isArray(cn) ? cn[0] : cn) ?? '?';
    if (!tls.authorized) {
      const why = String(tls.authorizationError ?? 'not trusted');
      walk.fail('tls', since, 'tls', `the certificate of ${host} is not trusted: ${certProblem(why, subject, cert?.valid_to)}`, certFix(why, host));
      return false;
    }
    walk.pass('tls', since, `${tls.getProtocol() ?? 'TLS'}, certificate for ${subject} valid until ${cert?.valid_to ?? '?'}`);
    return true;
  } finally {
    socket.destroy();
  }
}

/** Whether the port of an http:// URL actually speaks TLS (a TLS server garbles a plain request). */
export async function speaksTls(walk: Walk, url: URL, address: string): Promise<boolean> {
  const socket = tlsConnect({ host: address, port: portOf(url), rejectUnauthorized: false });
  const r = await walk.wait(settle(socket, 'secureConnect'), walk.ctx.slowMs);
  socket.destroy();
  return r === 'ok';
}

function certProblem(code: string, subject: string, validTo: string | undefined): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return `it is self-signed (subject ${subject}; ${code})`;
    case 'CERT_HAS_EXPIRED':
      return `it expired on ${validTo ?? '?'} (${code})`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `its issuer is unknown here; the server may not send its intermediate certificates (${code})`;
    default:
      return /altname|hostname/i.test(code) ? `it is for ${subject}, not this host (${code})` : code;
  }
}

function certFix(code: string, host: string): string {
  if (/SELF_SIGNED|UNABLE_TO/.test(code)) {
    return `give the server a certificate from a trusted CA; for a development certificate, trust its CA with NODE_EXTRA_CA_CERTS=ca.pem (never turn verification off)`;
  }
  if (code === 'CERT_HAS_EXPIRED') return 'renew the certificate';
  return `use the host name the certificate names, or get a certificate that covers ${host}`;
}

type Settled = 'ok' | (Error & { code?: string });

function settle(socket: Socket, event: 'connect' | 'secureConnect'): Promise<Settled> {
  return new Promise((resolve) => {
    socket.once(event, () => resolve('ok'));
    // `on`, not `once`: a second error after the first must not go unhandled.
    socket.on('error', (e: Error & { code?: string }) => resolve(e));
    socket.once('close', () => resolve(Object.assign(new Error('the connection was closed during the handshake'), { code: 'ECONNRESET' })));
  });
}
