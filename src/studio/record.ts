// The studio's side of recordings and capability sets: a recording of the timeline (recording.ts
// says what one holds), a server's capability set listed live, and the sets kept over time so that
// the page can diff a server before and after a change (each connection and each tools change is
// kept, from the lists the pool makes anyway; a full set is listed on request and with recordings).
import { randomUUID } from 'node:crypto';
import type { McpClient } from '../client/client.js';
import type { Clock } from '../engine/clock.js';
import type { PoolEvent } from '../pool/pool-types.js';
import type { ServerPool } from '../pool/pool.js';
import type { ServerView, TimelineEntry } from './api-types.js';
import { jsonDiff } from './diff.js';
import { RECORDING_FORMAT, RECORDING_VERSION, type Catalog, type CatalogSnapshot, type RecordedServer, type Recording } from './recording.js';

/** Sets kept per server (the oldest go first). */
const KEPT = 12;

type Obj = Record<string, unknown>;

/** A server's capability set, listed now: each list its capabilities announce. */
export async function liveCatalog(client: McpClient, signal?: AbortSignal): Promise<Catalog> {
  const caps = client.serverCapabilities ?? {};
  const out: Catalog = {};
  const errors: Record<string, string> = {};
  const list = async (kind: keyof Omit<Catalog, 'errors'>, run: () => Promise<unknown[]>) => {
    try {
      out[kind] = (await run()) as Obj[];
    } catch (err) {
      errors[kind] = err instanceof Error ? err.message : String(err);
    }
  };
  if (caps.tools) await list('tools', () => client.listAllTools({ signal }));
  if (caps.prompts) await list('prompts', () => client.listAllPrompts({ signal }));
  if (caps.resources) {
    await list('resources', () => client.listAllResources({ signal }));
    await list('templates', () => client.listAllResourceTemplates({ signal }));
  }
  if (Object.keys(errors).length > 0) out.errors = errors;
  return out;
}

/** The capability sets the studio kept, per server. */
export class Snapshots {
  private readonly byServer = new Map<string, CatalogSnapshot[]>();

  constructor(
    private readonly pool: () => ServerPool,
    private readonly clock: Clock,
  ) {}

  /** Every set kept, oldest first. */
  list(server?: string): CatalogSnapshot[] {
    if (server !== undefined) return [...(this.byServer.get(server) ?? [])];
    return [...this.byServer.values()].flat().sort((a, b) => a.at - b.at);
  }

  /** Keeps a set, unless it is the same as the server's last one (then that one is returned). */
  keep(server: string, reason: string, catalog: Catalog): CatalogSnapshot {
    const kept = this.byServer.get(server) ?? [];
    const last = kept.at(-1);
    if (last && last.reason !== 'taken by you' && reason !== 'taken by you' && jsonDiff(last.catalog, catalog).length === 0) return last;
    const s: CatalogSnapshot = { id: randomUUID(), server, at: this.clock.now(), reason, catalog };
    kept.push(s);
    if (kept.length > KEPT) kept.splice(0, kept.length - KEPT);
    this.byServer.set(server, kept);
    return s;
  }

  /** A connection or a tools change: the tools as the pool just listed them (no request of ours). */
  onPoolEvent(e: PoolEvent): void {
    if (e.type !== 'connected' && e.type !== 'toolsChanged') return;
    const pool = this.pool();
    // The pool also reports a change when a server goes away: that is no new set of tools.
    if (pool.server(e.server)?.state !== 'connected') return;
    const listed = pool.catalog(e.server)?.tools;
    if (!listed) return;
    const tools = listed.map((t) => t as unknown as Obj);
    this.keep(e.server, e.type === 'connected' ? 'connected' : 'tools changed', { tools });
  }

  forget(server: string): void {
    this.byServer.delete(server);
  }
}

export interface RecordingSource {
  version: string;
  entries(after: number): TimelineEntry[];
  lastSeq: number;
  views(): ServerView[];
  client(name: string): McpClient | undefined;
}

/**
 * A recording of the timeline after `after` (up to now), of `servers` (default all), with each
 * connected server's capability set listed as the recording ends.
 */
export async function buildRecording(src: RecordingSource, o: { after?: number; servers?: string[]; signal?: AbortSignal } = {}): Promise<Recording> {
  const until = src.lastSeq;
  const only = o.servers && o.servers.length > 0 ? new Set(o.servers) : undefined;
  const entries = src.entries(o.after ?? 0).filter((e) => e.seq <= until && (!only || only.has(e.server)));
  const servers: RecordedServer[] = [];
  for (const v of src.views()) {
    if (only && !only.has(v.name)) continue;
    const s: RecordedServer = { name: v.name };
    if (v.target) s.target = v.target;
    if (v.era) s.era = v.era;
    if (v.protocolVersion) s.protocolVersion = v.protocolVersion;
    if (v.serverInfo) s.serverInfo = v.serverInfo;
    if (v.capabilities) s.capabilities = v.capabilities;
    if (v.instructions) s.instructions = v.instructions;
    const client = v.state === 'connected' ? src.client(v.name) : undefined;
    if (client) s.catalog = await liveCatalog(client, o.signal);
    servers.push(s);
  }
  return { format: RECORDING_FORMAT, version: RECORDING_VERSION, recordedAt: new Date().toISOString(), studio: src.version, servers, entries };
}
