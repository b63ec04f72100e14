// Resource subscriptions a relay holds on its backends for its clients. A backend is subscribed
// to a URI while at least one client is (a handshake-era session that sent resources/subscribe,
// or a 2026-07-28 listen stream that asked for it), unsubscribed when the last one lets go, and
// subscribed again when it reconnects (a new connection starts with none). A handshake-era
// backend is sent resources/subscribe; a 2026-07-28 one, which has no such method, is held on a
// listen stream of its own for that URI. Either way its updates reach the lane's `on` listener.
import type { McpClient } from '../../client/client.js';
import type { Subscription } from '../../client/listen.js';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';

interface Held {
  readonly server: string;
  readonly uri: string;
  readonly holders: Set<object>;
  /** The listen stream holding it on a 2026-07-28 backend. */
  stream?: Subscription;
}

export class UpstreamSubscriptions {
  private readonly held = new Map<string, Held>();

  constructor(private readonly clientOf: (server: string) => McpClient | undefined) {}

  /** Whether a backend URI is held (its updates are passed on). */
  holds(server: string, uri: string): boolean {
    return this.held.has(key(server, uri));
  }

  /**
   * `holder` (a session, a listen stream) subscribes to a backend URI. Rejects, holding nothing,
   * when the backend is not connected or refuses.
   */
  async hold(server: string, uri: string, holder: object): Promise<void> {
    const k = key(server, uri);
    const had = this.held.get(k);
    if (had) {
      had.holders.add(holder);
      return;
    }
    const client = this.clientOf(server);
    if (!client) throw new McpError(ErrorCode.InternalError, `Server "${server}" is not connected`);
    if (!client.serverCapabilities?.resources?.subscribe)
      throw new McpError(ErrorCode.MethodNotFound, `Server "${server}" does not offer resource subscriptions`);
    const entry: Held = { server, uri, holders: new Set([holder]) };
    this.held.set(k, entry);
    try {
      await this.subscribe(client, entry);
    } catch (err) {
      if (this.held.get(k) === entry) this.held.delete(k);
      throw err;
    }
  }

  /** `holder` lets go of a backend URI; the last one to do so unsubscribes the backend. */
  release(server: string, uri: string, holder: object): void {
    const k = key(server, uri);
    const h = this.held.get(k);
    if (!h?.holders.delete(holder) || h.holders.size > 0) return;
    this.held.delete(k);
    if (h.stream) h.stream.close().catch(() => {});
    else
      this.clientOf(server)
        ?.unsubscribeResource(uri)
        .catch(() => {});
  }

  /** Every subscription of `holder` ends (its session closed). */
  releaseAll(holder: object): void {
    for (const h of [...this.held.values()]) if (h.holders.has(holder)) this.release(h.server, h.uri, holder);
  }

  /** A backend (re)connected: what clients hold on it is subscribed on the new connection. */
  renew(server: string): void {
    const client = this.clientOf(server);
    if (!client?.serverCapabilities?.resources?.subscribe) return;
    for (const h of this.held.values()) if (h.server === server) this.subscribe(client, h).catch(() => {});
  }

  private async subscribe(client: McpClient, h: Held): Promise<void> {
    if (client.era !== 'modern') {
      h.stream = undefined;
      await client.subscribeResource(h.uri);
      return;
    }
    h.stream?.close().catch(() => {});
    const stream = client.listen({ resourceSubscriptions: [h.uri] });
    h.stream = stream;
    const acknowledged = await stream.acknowledged;
    if (!acknowledged.resourceSubscriptions?.includes(h.uri)) {
      stream.close().catch(() => {});
      throw new McpError(ErrorCode.InvalidParams, `Server "${h.server}" does not offer updates of ${h.uri}`);
    }
  }
}

function key(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}
