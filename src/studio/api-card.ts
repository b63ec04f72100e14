// The API of the server card view: the card of an HTTP server fetched (its exchanges go to the
// timeline like the connection's), compared with the live connection by the client's own check
// (identity, remote, protocol versions, and capabilities or tool names where the card has them),
// and, when the card lists tools, prompts or resources (earlier drafts did), those lists diffed
// against the live ones: added, removed, and changed with their schema changes.
import { checkServerCard, fetchServerCard, type FetchedServerCard } from '../client/server-card.js';
import { StudioRequestError } from './confirm.js';
import { catalogDiff, type CatalogDiff } from './diff.js';
import { tracedFetch } from './http-trace.js';
import type { StudioHub } from './hub.js';
import { liveCatalog } from './record.js';
import type { Catalog } from './recording.js';
import { route, S, type Route } from './api-route.js';

type Obj = Record<string, unknown>;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The lists a card carries, as a capability set (a tool named by a bare string is `{ name }`). */
export function cardCatalog(card: FetchedServerCard): Catalog {
  const out: Catalog = {};
  const raw = card as unknown as Obj;
  const list = (v: unknown, key: string): Obj[] | undefined =>
    Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? { [key]: x } : (x as Obj))).filter((x) => x && typeof x === 'object') : undefined;
  const tools = list(raw.tools, 'name');
  const prompts = list(raw.prompts, 'name');
  const resources = list(raw.resources, 'uri');
  if (tools) out.tools = tools;
  if (prompts) out.prompts = prompts;
  if (resources) out.resources = resources;
  return out;
}

export function cardRoutes(hub: StudioHub): Route[] {
  return [
    route('POST', `${S}/card`, async (c) => {
      const name = c.params[0];
      if (!hub.has(name)) throw new StudioRequestError(404, `No server is named "${name}"`);
      const target = hub.view(name)?.target;
      if (target?.kind !== 'http')
        throw new StudioRequestError(409, `Server "${name}" is not reached over HTTP: a server card is served next to an HTTP endpoint`);
      const url = target.text;
      let card: FetchedServerCard;
      try {
        card = await fetchServerCard(url, { fetch: tracedFetch(name, hub.timeline, hub.clock), signal: c.signal });
      } catch (err) {
        return { url, error: message(err) };
      }
      const client = hub.client(name);
      if (!client) return { url, card, error: `Server "${name}" is not connected: the card cannot be compared with it` };
      try {
        const check = await checkServerCard(client, card, { url, signal: c.signal });
        const listed = cardCatalog(card);
        let lists: CatalogDiff | undefined;
        if (Object.keys(listed).length > 0) {
          const live = await liveCatalog(client, c.signal);
          // Only the lists the card carries are compared.
          const wanted: Catalog = {};
          for (const k of Object.keys(listed) as Array<keyof Catalog>) if (k !== 'errors') wanted[k] = live[k] ?? [];
          lists = catalogDiff(listed, wanted as Catalog);
        }
        return { url, card, check, ...(lists ? { lists } : {}) };
      } catch (err) {
        return { url, card, error: `The comparison failed: ${message(err)}` };
      }
    }),
  ];
}
