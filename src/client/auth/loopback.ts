/**
 * Signing in from a CLI or desktop app (RFC 8252): a one-page HTTP server on 127.0.0.1 receives
 * the authorization server's redirect. Node only, unlike the rest of the OAuth client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock, unrefTimer } from '../../engine/clock.js';
import { OAuthFlowError } from './errors.js';
import type { AuthorizationRequest } from './options.js';

export interface LoopbackOptions {
  /** Port on 127.0.0.1. Default 0: any free port (RFC 8252 lets loopback redirect ports vary). */
  port?: number;
  /** Path of the redirect URI. Default `/callback`. */
  path?: string;
  /**
   * Shows the authorization URL to the user. Default: writes it to stderr. Open it in a browser
   * without a shell (the URL comes from a server).
   */
  open?: (url: string, request: AuthorizationRequest) => void | Promise<void>;
  /** How long to wait for the user. Default 5 minutes. */
  timeoutMs?: number;
  /** Where that wait is timed (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
}

export interface LoopbackAuthorization {
  /** `http://127.0.0.1:PORT/callback`: pass as OAuthOptions.redirectUri. */
  redirectUri: string;
  /** Pass as OAuthOptions.authorize. */
  authorize(request: AuthorizationRequest): Promise<string>;
  /** Stops listening. */
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:4em auto;max-width:32em"><h1>${title}</h1><p>${text}</p></body>`;

/** Starts the redirect listener; it does not keep the process alive and answers one sign-in at a time. */
export async function loopbackAuthorization(options: LoopbackOptions = {}): Promise<LoopbackAuthorization> {
  const path = options.path ?? '/callback';
  let pending: { state: string; resolve(url: string): void; reject(err: Error): void } | undefined;
  let port = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    // Only the redirect that answers the open request counts; anything else is not ours.
    if (!pending || url.searchParams.get('state') !== pending.state) {
      res
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(PAGE('Unexpected sign-in response', 'No sign-in was waiting for this response. Start again from the application.'));
      return;
    }
    const done = pending;
    pending = undefined;
    const failed = url.searchParams.get('error');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        failed
          ? PAGE('Sign-in failed', 'The authorization server refused the request. You can close this tab.')
          : PAGE('Signed in', 'You can close this tab and return to the application.'),
      );
    done.resolve(`http://127.0.0.1:${port}${req.url ?? '/'}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.unref();
  port = (server.address() as AddressInfo).port;
  const redirectUri = `http://127.0.0.1:${port}${path}`;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const clock = options.clock ?? systemClock;
  return {
    redirectUri,
    async authorize(request) {
      if (pending) throw new OAuthFlowError('another sign-in is already waiting for the browser');
      let settle!: { resolve(url: string): void; reject(err: Error): void };
      const answer = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
      const timer = clock.setTimeout(() => {
        if (pending === mine) pending = undefined;
        settle.reject(new OAuthFlowError(`no sign-in response arrived at ${redirectUri} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      unrefTimer(timer);
      const mine = {
        state: request.state,
        resolve: (url: string) => {
          clock.clearTimeout(timer);
          settle.resolve(url);
        },
        reject: (err: Error) => {
          clock.clearTimeout(timer);
          settle.reject(err);
        },
      };
      pending = mine;
      // The listener must not let the process exit while the user is signing in.
      server.ref();
      try {
        const show = options.open ?? ((url: string) => void process.stderr.write(`Sign in at ${request.issuer}:\n  ${url}\n`));
        try {
          await show(request.url.href, request);
        } catch (err) {
          // Nobody can sign in now: free the listener for the next attempt, and settle the
          // answer (handled) so its timer neither keeps this one pending nor rejects unhandled.
          if (pending === mine) pending = undefined;
          answer.catch(() => {});
          mine.reject(err as Error);
          throw err;
        }
        return await answer;
      } finally {
        server.unref();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        // A sign-in still waiting can no longer complete: fail it now, not at the timeout.
        const waiting = pending;
        pending = undefined;
        waiting?.reject(new OAuthFlowError('the sign-in listener was closed'));
        server.close(() => resolve());
      }),
  };
}
