// A relay in front of one server (what both `mcpkit bridge` directions are): a low-level Server
// with that server's identity, instructions and capabilities, whose handlers forward through the
// relay core (relay/relay.ts) over one lane holding the server's client. Names and URIs pass as
// the server wrote them; its questions (elicitation, sampling, roots) go to the client whose call
// it works for, and are refused when that cannot be told (routing.ts); roots it asks for outside
// any call go to the client that last showed it has some.
//
// The caller makes the client (a stdio child, an HTTP connection with its fallback and session
// recovery), giving it `clientHandlers()`, then `open`s the bridge on it.
import type { McpClient } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import { Server, type ServerOptions } from '../server/server.js';
import { allowAllPolicy } from './allow-all.js';
import type { RouterWords } from './routing.js';
import { Lane } from './relay/lane.js';
import { verbatim } from './relay/naming.js';
import type { Reword } from './relay/forward.js';
import { installRelay, type Relay } from './relay/relay.js';

export interface BridgeOptions {
  /** The server's name in refusals and errors (`stdio server`). */
  name: string;
  /** How a question the bridge cannot route is refused. */
  words?: RouterWords;
  /** Words a failure of a forwarded request otherwise (the server exited). */
  reword?: Reword;
  /** Options of the Server in front (limits, the 2026-07-28 era...). */
  server?: Omit<ServerOptions, 'name' | 'version' | 'title' | 'capabilities' | 'instructions'>;
}

export class Bridge {
  readonly lane: Lane;
  private relay: Relay | undefined;
  private front: Server | undefined;

  constructor(private readonly options: BridgeOptions) {
    this.lane = new Lane({
      owner: 'bridge',
      naming: verbatim(options.name),
      // The bridge adds no timeout of its own: its clients have theirs.
      pool: { servers: [], requestTimeoutMs: 0 },
      words: options.words,
      roots: { fallback: (signal) => this.askRoots(signal) },
      changed: (kind) => this.front?.broadcast(`notifications/${kind}/list_changed`),
      updated: (uri) => this.front?.broadcast('notifications/resources/updated', { uri }),
    });
  }

  /** What the server's client answers its questions with: whatever the bridge's own client says. */
  clientHandlers(): Pick<ClientOptions, 'elicitation' | 'sampling' | 'roots'> {
    return this.lane.clientHandlers(this.options.name);
  }

  /** Puts the Server in front of `client` (connected, made with `clientHandlers()`). */
  async open(client: McpClient): Promise<Server> {
    const info = client.serverInfo ?? { name: 'bridged-server', version: '0.0.0' };
    const server = new Server({ ...this.options.server, ...info, instructions: client.instructions, capabilities: client.serverCapabilities ?? {} });
    this.front = server;
    this.relay = installRelay(server, {
      naming: verbatim(this.options.name),
      policy: allowAllPolicy(),
      lanes: () => [this.lane],
      roots: true,
      reword: this.options.reword,
    });
    await this.lane.add({ name: this.options.name, client });
    return server;
  }

  /** Resolves once no forwarded request is in flight and the answers given have been sent. */
  async answered(): Promise<void> {
    await this.lane.router.idle();
    // The handlers have settled; their answers go out once the promise chains behind them run.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  async close(): Promise<void> {
    await this.front?.close();
    await this.lane.close();
  }

  private askRoots(signal: AbortSignal) {
    if (!this.relay) throw new Error('the bridge is not open');
    return this.relay.askRoots(signal);
  }
}
