import type { JsonObject } from '../../jsonrpc/messages.js';
import type { AuthInfo } from '../../engine/transport.js';
import type { ServerPort } from '../../server/server.js';

/** The bus channel of HTTP+SSE forwarding; instances of other versions ignore it. */
const CHANNEL = 'mcpkit/legacy-sse';

/** What the holder of a stream does with a POST forwarded to it: 202 accepted, 404 not its caller's. */
export type Deliver = (sessionId: string, body: unknown, authInfo: AuthInfo | undefined, remoteAddress: string | undefined) => 202 | 404 | undefined;

/**
 * Forwards the POSTs of an HTTP+SSE session over the deployment's message bus to the instance
 * that holds its stream, so a load balancer need not be sticky. Every instance hears every
 * forwarded POST (the bus is one channel); only the holder answers, and a POST that nobody
 * answers within `timeoutMs` is for a session that no longer exists anywhere.
 */
export class LegacySseRelay {
  private readonly pending = new Map<string, (status: number) => void>();
  private readonly stop: () => void;

  constructor(
    private readonly server: ServerPort,
    deliver: Deliver,
    private readonly timeoutMs: number,
  ) {
    this.stop = server.onHostRelay(CHANNEL, (d) => {
      if (d.t === 'post' && typeof d.r === 'string' && typeof d.s === 'string') {
        const auth = isAuthInfo(d.a) ? d.a : undefined;
        const status = deliver(d.s, d.b, auth, typeof d.ra === 'string' ? d.ra : undefined);
        // Silence from everyone but the holder: the forwarder waits for the one answer that matters.
        if (status !== undefined) server.relayHost(CHANNEL, { t: 'ack', r: d.r, st: status });
      } else if (d.t === 'ack' && typeof d.r === 'string' && typeof d.st === 'number') {
        this.pending.get(d.r)?.(d.st);
      }
    });
  }

  /** Whether there is a bus to forward over (without one, an unknown session is simply unknown). */
  get available(): boolean {
    return this.server.bus !== undefined;
  }

  /** The holder's answer (202 or 404), or 404 when no instance answers in time. */
  async forward(sessionId: string, body: unknown, authInfo: AuthInfo | undefined, remoteAddress: string | undefined): Promise<number> {
    const bus = this.server.bus;
    if (bus === undefined) return 404;
    // A forward sent before this instance listens could have its answer missed.
    await bus.ready;
    const r = globalThis.crypto.randomUUID();
    return new Promise<number>((resolve) => {
      const timer = setTimeout(() => settle(404), this.timeoutMs);
      timer.unref?.();
      const settle = (status: number) => {
        clearTimeout(timer);
        this.pending.delete(r);
        resolve(status);
      };
      this.pending.set(r, settle);
      const d: JsonObject = { t: 'post', r, s: sessionId, b: body as JsonObject };
      if (authInfo !== undefined) d.a = JSON.parse(JSON.stringify(authInfo)) as JsonObject;
      if (remoteAddress !== undefined) d.ra = remoteAddress;
      if (!this.server.relayHost(CHANNEL, d)) settle(404);
    });
  }

  close(): void {
    this.stop();
    for (const settle of [...this.pending.values()]) settle(404);
  }
}

function isAuthInfo(v: unknown): v is AuthInfo {
  return typeof v === 'object' && v !== null && typeof (v as { principal?: unknown }).principal === 'string';
}
