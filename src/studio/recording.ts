// A recorded session: the timeline's messages (both ways, with their era, timing and the HTTP
// exchanges of the transport), the servers as they were, and each server's capability set (its
// tools, prompts, resources and templates) when the recording was made. Saved as one JSON file
// from the page and loaded back into it. Pure (no Node, no DOM): the studio writes recordings
// (record.ts), the page reads, replays and diffs them (ui/sessions.tsx, diff.ts).
import type { TargetView, TimelineEntry } from './api-types.js';

export const RECORDING_FORMAT = 'mcpkit-studio-recording';
export const RECORDING_VERSION = 1;

/** A server's capability set: what each of its lists held. A list left out was not listed. */
export interface Catalog {
  tools?: Array<Record<string, unknown>>;
  prompts?: Array<Record<string, unknown>>;
  resources?: Array<Record<string, unknown>>;
  templates?: Array<Record<string, unknown>>;
  /** Lists that failed, by list: the server's error. */
  errors?: Record<string, string>;
}

/** A capability set the studio kept: at a connection, a tools change, on request, in a recording. */
export interface CatalogSnapshot {
  id: string;
  server: string;
  /** Epoch ms. */
  at: number;
  /** Why it was taken: `connected`, `tools changed`, `taken by you`, `recording`. */
  reason: string;
  catalog: Catalog;
}

export interface RecordedServer {
  name: string;
  target?: TargetView;
  era?: 'modern' | 'handshake';
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  capabilities?: Record<string, unknown>;
  instructions?: string;
  /** Its capability set when the recording was made (connected servers only). */
  catalog?: Catalog;
}

export interface Recording {
  format: typeof RECORDING_FORMAT;
  version: number;
  /** ISO 8601. */
  recordedAt: string;
  /** The mcpkit version that made it. */
  studio: string;
  servers: RecordedServer[];
  /** Timeline entries in order, each with its whole message. */
  entries: TimelineEntry[];
}

/** A file's content as a recording, or a sentence saying why it is not one. */
export function readRecording(text: string): Recording | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const r = v as Partial<Recording> | null;
  if (!r || typeof r !== 'object' || r.format !== RECORDING_FORMAT) return { error: `not a studio recording (no "format": "${RECORDING_FORMAT}")` };
  if (typeof r.version !== 'number' || r.version > RECORDING_VERSION)
    return { error: `recording version ${String(r.version)}: this studio reads version ${RECORDING_VERSION} (a newer mcpkit made it)` };
  if (!Array.isArray(r.entries) || !Array.isArray(r.servers)) return { error: 'a recording needs "servers" and "entries" lists' };
  for (const [i, e] of r.entries.entries()) {
    if (!e || typeof e !== 'object' || typeof e.server !== 'string' || (e.dir !== 'in' && e.dir !== 'out') || typeof e.kind !== 'string')
      return { error: `entry ${i} is not a timeline entry (server, dir, kind)` };
  }
  return r as Recording;
}

/** The answer a request got: its result, or its error. */
export type Answer = { result: unknown } | { error: { code?: number; message: string; data?: unknown } };

/** One client→server request of a recording, as replay sends it. */
export interface PlannedCall {
  seq: number;
  server: string;
  method: string;
  /** The params without what the connection adds by itself (the 2026-07-28 envelope, a progress token). */
  params: Record<string, unknown> | undefined;
  /** What the recorded server answered (the last round's answer, for a call with input rounds). */
  recorded: Answer | undefined;
  /** Why it is not sent again, when it is not. */
  skip?: string;
}

/** Requests replay leaves out: the connection makes its own, or they are not calls. */
const NOT_REPLAYED: Record<string, string> = {
  initialize: 'the handshake: the live connection made its own',
  'server/discover': 'discovery: the live connection made its own',
  'subscriptions/listen': 'a long-lived stream, not a call',
  'resources/subscribe': 'subscriptions are made in the Resources panel',
  'resources/unsubscribe': 'subscriptions are made in the Resources panel',
};

const ENVELOPE = 'io.modelcontextprotocol/';

/** The params with the envelope keys and progress token taken out of `_meta` (the live client adds its own). */
export function withoutEnvelope(params: unknown): Record<string, unknown> | undefined {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const { _meta, ...rest } = params as Record<string, unknown>;
  if (_meta && typeof _meta === 'object' && !Array.isArray(_meta)) {
    const kept = Object.fromEntries(Object.entries(_meta).filter(([k]) => !k.startsWith(ENVELOPE) && k !== 'progressToken'));
    if (Object.keys(kept).length > 0) return { ...rest, _meta: kept };
  }
  return rest;
}

type Msg = {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message: string; data?: unknown };
};

function msgOf(e: TimelineEntry): Msg {
  return (e.message ?? {}) as Msg;
}

/** A later round of a 2026-07-28 call that asked for input: it carries the answers or the state. */
function isContinuation(params: Record<string, unknown> | undefined): boolean {
  return !!params && (params.inputResponses !== undefined || params.requestState !== undefined);
}

/**
 * What the server answered the request at `index`: its response, or when that asked for input
 * (an `input_required` result), the answer to the round that finished the call.
 */
export function recordedAnswer(entries: readonly TimelineEntry[], index: number): Answer | undefined {
  let req = entries[index];
  let at = index;
  for (let round = 0; round < 16; round++) {
    const id = msgOf(req).id;
    const resIndex = entries.findIndex(
      (e, i) => i > at && e.server === req.server && e.dir === 'in' && (e.kind === 'response' || e.kind === 'error') && msgOf(e).id === id,
    );
    if (resIndex < 0) return undefined;
    const res = msgOf(entries[resIndex]);
    if (res.error) return { error: res.error };
    const result = res.result ?? {};
    if (result.resultType !== 'input_required') return { result };
    // The next round: the same method, carrying this answer's requestState or the input responses.
    const state = result.requestState;
    const next = entries.findIndex(
      (e, i) =>
        i > resIndex &&
        e.server === req.server &&
        e.dir === 'out' &&
        e.kind === 'request' &&
        e.method === req.method &&
        isContinuation(msgOf(e).params) &&
        (state === undefined || msgOf(e).params?.requestState === state),
    );
    if (next < 0) return { result };
    req = entries[next];
    at = next;
  }
  return undefined;
}

/** The client→server requests of `server` in a recording, in order, each with its recorded answer. */
export function replayPlan(recording: Pick<Recording, 'entries'>, server: string): PlannedCall[] {
  const out: PlannedCall[] = [];
  recording.entries.forEach((e, i) => {
    if (e.server !== server || e.dir !== 'out' || e.kind !== 'request' || !e.method) return;
    const params = msgOf(e).params;
    if (isContinuation(params)) return;
    const call: PlannedCall = { seq: e.seq, server, method: e.method, params: withoutEnvelope(params), recorded: recordedAnswer(recording.entries, i) };
    const skip = NOT_REPLAYED[e.method];
    if (skip) call.skip = skip;
    out.push(call);
  });
  return out;
}

/** What a call is about, to pair calls of two sessions: the tool, prompt or resource it names. */
export function callKey(c: Pick<PlannedCall, 'method' | 'params'>): string {
  const p = c.params ?? {};
  const ref = p.ref as { name?: unknown; uri?: unknown } | undefined;
  const what = p.name ?? p.uri ?? ref?.name ?? ref?.uri;
  return what === undefined ? c.method : `${c.method} ${String(what)}`;
}

/** The servers a recording has messages of, in order of appearance (its server list first). */
export function recordedServers(recording: Pick<Recording, 'servers' | 'entries'>): string[] {
  const names = new Set(recording.servers.map((s) => s.name));
  for (const e of recording.entries) names.add(e.server);
  return [...names];
}
