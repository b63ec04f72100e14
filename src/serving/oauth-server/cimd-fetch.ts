/**
 * The network half of client ID metadata documents: one GET of a URL a stranger chose, made so
 * that it cannot reach inside the network. The host name is resolved once, every answer must be
 * a public address (one private answer among public ones is refused: the resolver's order is not
 * ours to trust), and the connection goes to the address that was checked: the HTTP client gets
 * a `lookup` that returns it, never a second resolution that a rebinding DNS server could answer
 * with 127.0.0.1. Host header and TLS name (SNI, certificate check) stay the URL's host name.
 * Redirects are refused, the body is capped, and one deadline on the server's clock covers the
 * whole exchange (resolution, connection, headers, body).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { GuardedAnswer, GuardedGetOptions, HostLookup } from './cimd-get.js';
import { ipLiteral, isPublicAddress } from './addresses.js';

export type { HostLookup } from './cimd-get.js';

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A `lookup` for node:net that answers `address` whatever it is asked: the connection goes where the check looked. */
function pinned(address: string, family: number): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * GETs `url`; rejects with an Error whose message is the detail (for the server's log, never for
 * the client: it would tell open ports from closed ones).
 */
export function guardedGet(url: URL, o: GuardedGetOptions): Promise<GuardedAnswer> {
  const lookup = o.lookup ?? systemLookup;
  return new Promise<GuardedAnswer>((resolve, reject) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    const finish = (error: Error | undefined, answer?: GuardedAnswer) => {
      if (settled) return;
      settled = true;
      o.clock.clearTimeout(timer);
      if (error) {
        res?.destroy();
        req?.destroy();
        reject(error);
      } else resolve(answer!);
    };
    // Armed before anything else, so a slow resolver is bounded too.
    const timer = o.clock.setTimeout(() => finish(new Error(`no complete answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    const host = url.hostname;
    const literal = ipLiteral(host);
    // Through a then, so that a resolver that throws instead of rejecting is a failure like any other.
    Promise.resolve()
      .then(() => (literal ? [literal] : lookup(host)))
      .then((answers) => {
        if (settled) return;
        if (!Array.isArray(answers) || answers.length === 0) throw new Error(`${host} has no address`);
        if (!o.allowPrivate) {
          const inside = answers.find((a) => !isPublicAddress(a.address));
          if (inside) throw new Error(`${host} resolves to ${inside.address}, which is not a public address`);
        }
        const target = answers[0]!;
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        req = send(
          {
            hostname: literal ? literal.address : host,
            port: url.port || undefined,
            path: `${url.pathname}${url.search}`,
            method: 'GET',
            headers: { accept: 'application/json', 'user-agent': 'mcpkit-authorization-server' },
            // A fresh connection: a pooled one may lead somewhere another check looked at.
            agent: false,
            lookup: pinned(target.address, target.family === 6 ? 6 : 4),
          },
          (answer) => {
            res = answer;
            if (answer.statusCode !== 200) {
              const s = answer.statusCode ?? 0;
              return finish(new Error(`answered HTTP ${s}${s >= 300 && s < 400 ? ' (redirects are not followed)' : ''}`));
            }
            if (Number(answer.headers['content-length'] ?? 0) > o.maxBytes) return finish(new Error(`is larger than ${o.maxBytes} bytes`));
            const chunks: Buffer[] = [];
            let size = 0;
            answer.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > o.maxBytes) finish(new Error(`is larger than ${o.maxBytes} bytes`));
              else chunks.push(chunk);
            });
            answer.on('end', () => finish(undefined, { text: Buffer.concat(chunks).toString('utf8'), cacheControl: answer.headers['cache-control'] }));
            answer.on('error', (e) => finish(e));
            answer.on('close', () => {
              if (!answer.complete) finish(new Error('the connection closed before the end of the document'));
            });
          },
        );
        req.on('error', (e) => finish(e));
        req.end();
      })
      .catch((e: unknown) => finish(e instanceof Error ? e : new Error(String(e))));
  });
}
