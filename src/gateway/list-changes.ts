// A backend's prompt and resource list changes, in either era. A handshake-era server sends
// list_changed on its own; a 2026-07-28 server only on a listen stream, and the pool behind
// mount() and the gateway opens one for tools only.
import type { McpClient } from '../client/client.js';
import type { Subscription } from '../client/listen.js';

export type ListChange = 'prompts' | 'resources';

/**
 * Calls `changed` whenever `client`'s server says its prompts or resources changed, and also
 * after a lost listen stream is re-opened (changes sent meanwhile are not replayed). Returns
 * the listen stream, if one was opened: `acknowledged` settles once changes are followed.
 */
export function followListChanges(client: McpClient, changed: (kind: ListChange) => void): Subscription | undefined {
  client.on('notifications/prompts/list_changed', () => changed('prompts'));
  client.on('notifications/resources/list_changed', () => changed('resources'));
  if (client.era !== 'modern') return undefined;
  const caps = client.serverCapabilities;
  const filter = { promptsListChanged: caps?.prompts?.listChanged === true, resourcesListChanged: caps?.resources?.listChanged === true };
  if (!filter.promptsListChanged && !filter.resourcesListChanged) return undefined;
  try {
    const sub = client.listen(filter, () => {}, {
      onrelisten: () => {
        if (filter.promptsListChanged) changed('prompts');
        if (filter.resourcesListChanged) changed('resources');
      },
    });
    // A server that refuses the stream still has its lists read again on every reconnect.
    sub.acknowledged.catch(() => {});
    return sub;
  } catch {
    return undefined;
  }
}
