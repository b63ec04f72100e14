// The API of recordings and capability sets: make a recording (the page downloads it), the sets
// the studio kept, and a server's set listed now. Replaying a recording goes through the one-message
// replay route of api.ts, call by call, so the page shows each answer as it comes.
import { StudioRequestError } from './confirm.js';
import type { StudioHub } from './hub.js';
import { buildRecording, liveCatalog } from './record.js';
import { route, S, type Route } from './api-route.js';

export function sessionRoutes(hub: StudioHub): Route[] {
  return [
    route('POST', '/api/recording', async (c) => {
      const after = c.body.after === undefined ? 0 : Number(c.body.after);
      if (!Number.isInteger(after) || after < 0) throw new StudioRequestError(400, 'after must be a timeline sequence number (0: from the start)');
      const servers = c.body.servers;
      if (servers !== undefined && (!Array.isArray(servers) || servers.some((s) => typeof s !== 'string')))
        throw new StudioRequestError(400, 'servers must be a list of server names');
      return buildRecording(
        {
          version: hub.options.version,
          entries: (n) => hub.timeline.since(n, Number.MAX_SAFE_INTEGER),
          lastSeq: hub.timeline.lastSeq,
          views: () => hub.state().servers,
          client: (name) => hub.client(name),
        },
        { after, servers: servers as string[] | undefined, signal: c.signal },
      );
    }),
    route('GET', '/api/snapshots', async () => hub.snapshots.list()),
    route('POST', `${S}/snapshot`, async (c) => {
      const name = c.params[0];
      if (!hub.has(name)) throw new StudioRequestError(404, `No server is named "${name}"`);
      const client = hub.client(name);
      if (!client) throw new StudioRequestError(409, `Server "${name}" is not connected`);
      return hub.snapshots.keep(name, 'taken by you', await liveCatalog(client, c.signal));
    }),
  ];
}
