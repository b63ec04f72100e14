// The MCP part of a diagnosis, the same over every transport: what the doctor sends
// (server/discover with the 2026-07-28 envelope, initialize at the latest handshake revision),
// how it reads the answers (which era, which version, a well-formed result), and the first list
// call. Transports hand in answers; this file records the steps.
import type { JsonObject, JsonRpcErrorObject } from '../../jsonrpc/messages.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import { META } from '../../protocol/modern.js';
import { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS } from '../../protocol/versions.js';
import type { DoctorCode } from './types.js';
import { quote, type Walk } from './walk.js';

export const DOCTOR_INFO = { name: 'mcpkit-doctor', version: '1.0.0' };
const SPOKEN = [...MODERN_VERSIONS, ...HANDSHAKE_VERSIONS];
const SPOKEN_TEXT = SPOKEN.join(', ');

/** A JSON-RPC answer to one of the doctor's requests, with how long it took. */
export type Answer = { kind: 'result'; result: JsonObject; ms: number } | { kind: 'error'; error: JsonRpcErrorObject; ms: number };

/** A request that got no usable answer, already explained by the transport. */
export interface Failed {
  kind: 'failed';
  code: DoctorCode;
  detail: string;
  fix: string;
}

export type Outcome = Answer | Failed;

/** `params` with the 2026-07-28 per-request envelope in `_meta`. */
export function modernParams(params: JsonObject = {}): JsonObject {
  return {
    ...params,
    _meta: {
      [META.protocolVersion]: MODERN_VERSIONS[0],
      [META.clientCapabilities]: {},
      [META.clientInfo]: DOCTOR_INFO,
    },
  };
}

export function initializeParams(): JsonObject {
  return { protocolVersion: LATEST_HANDSHAKE_VERSION, capabilities: {}, clientInfo: DOCTOR_INFO };
}

/** "error -32601 Method not found". */
export function errorText(e: JsonRpcErrorObject): string {
  return `error ${e.code} ${quote(String(e.message ?? ''), 120)}`;
}

/** What the server/discover answer says about the era. */
export type EraVerdict = { era: 'modern'; result: JsonObject } | { era: 'handshake' } | { era: 'none' };

/**
 * Records the `discover` step. A DiscoverResult listing a revision we speak is the 2026-07-28
 * era; one listing none is a version mismatch (a failed step, era 'none'); any other error is a
 * handshake-era server (the step passes: that is how such servers answer).
 */
export function discoverStep(walk: Walk, since: number, a: Answer): EraVerdict {
  if (a.kind === 'result') {
    const versions = a.result.supportedVersions;
    if (a.result.capabilities && typeof a.result.capabilities === 'object' && Array.isArray(versions)) {
      const ours = MODERN_VERSIONS.filter((v) => versions.includes(v));
      if (ours.length > 0) {
        walk.pass('discover', since, `the server speaks the 2026-07-28 era (server/discover lists ${versions.join(', ')})`);
        return { era: 'modern', result: a.result };
      }
      if (versions.some((v) => (HANDSHAKE_VERSIONS as readonly unknown[]).includes(v))) {
        walk.pass('discover', since, `server/discover lists only handshake revisions (${versions.join(', ')}): initialize follows`);
        return { era: 'handshake' };
      }
      walk.fail(
        'discover',
        since,
        'version-mismatch',
        `the server speaks protocol ${versions.join(', ') || '(none listed)'}, none of which mcpkit speaks (${SPOKEN_TEXT})`,
        'update mcpkit if the server is newer, or configure the server to also accept one of the revisions above',
      );
      return { era: 'none' };
    }
    walk.pass('discover', since, 'server/discover answered without a DiscoverResult: treated as a handshake-era server');
    return { era: 'handshake' };
  }
  const e = a.error;
  if (e.code === ErrorCode.UnsupportedProtocolVersion) {
    const supported = (e.data as { supported?: unknown } | undefined)?.supported;
    const list = Array.isArray(supported) ? supported.map(String) : [];
    walk.fail(
      'discover',
      since,
      'version-mismatch',
      `the server refused protocol ${MODERN_VERSIONS[0]} (${errorText(e)}); it speaks ${list.join(', ') || 'revisions it did not name'}`,
      `mcpkit speaks ${SPOKEN_TEXT}: update mcpkit if the server is newer, or configure the server to accept one of these`,
    );
    return { era: 'none' };
  }
  const known = e.code === ErrorCode.MethodNotFound ? 'it does not know the method' : `it answered ${errorText(e)}`;
  walk.pass('discover', since, `no 2026-07-28 era (${known}): a handshake-era server, initialize follows`);
  return { era: 'handshake' };
}

/** What the handshake settled, for the list step. */
export interface Settled {
  era: 'modern' | 'handshake';
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo?: { name?: string; version?: string };
}

/** The DiscoverResult as Settled. */
export function settledModern(result: JsonObject): Settled {
  const info = (result.serverInfo ?? (result._meta as JsonObject | undefined)?.[META.serverInfo]) as Settled['serverInfo'];
  return { era: 'modern', protocolVersion: MODERN_VERSIONS[0], capabilities: result.capabilities as Record<string, unknown>, serverInfo: info };
}

/** Records the `initialize` step; the settled handshake when the answer is one a client can use. */
export function initializeStep(walk: Walk, since: number, a: Answer): Settled | undefined {
  if (a.kind === 'error') {
    const e = a.error;
    const supported = (e.data as { supported?: unknown } | undefined)?.supported;
    if (/version/i.test(String(e.message)) || Array.isArray(supported)) {
      walk.fail(
        'initialize',
        since,
        'version-mismatch',
        `the server refused protocol ${LATEST_HANDSHAKE_VERSION} (${errorText(e)})${Array.isArray(supported) ? `; it speaks ${supported.join(', ')}` : ''}`,
        `mcpkit speaks ${SPOKEN_TEXT}: configure the server to accept one of these (SDKs accept every revision they know unless told otherwise)`,
      );
      return undefined;
    }
    if (e.code === ErrorCode.MethodNotFound) {
      walk.fail(
        'initialize',
        since,
        'not-mcp',
        `the server knows neither server/discover nor initialize (${errorText(e)}): it speaks JSON-RPC, but not MCP`,
        'check that this is an MCP server (and, for a server that takes a subcommand or flag to speak MCP, that it was given)',
      );
      return undefined;
    }
    walk.fail(
      'initialize',
      since,
      'invalid-response',
      `the server answered initialize with ${errorText(e)}`,
      'this is the server refusing the handshake itself: its message (and its log) says why',
    );
    return undefined;
  }
  const r = a.result;
  const version = r.protocolVersion;
  if (typeof version !== 'string' || !(HANDSHAKE_VERSIONS as readonly string[]).includes(version)) {
    const modern = typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);
    walk.fail(
      'initialize',
      since,
      modern ? 'era-mismatch' : 'version-mismatch',
      modern
        ? `the server answered initialize with protocol ${version}, a revision that has no initialize`
        : `the server answered initialize with protocol ${JSON.stringify(version)}, which mcpkit does not speak (it speaks ${SPOKEN_TEXT})`,
      modern
        ? 'the server mixes the eras: a 2026-07-28 server answers server/discover and refuses initialize; a handshake-era one answers initialize with a 2024-2025 revision'
        : `answer initialize with one of ${HANDSHAKE_VERSIONS.join(', ')} (the client's own, ${LATEST_HANDSHAKE_VERSION}, when the server speaks it); update mcpkit if the server is newer`,
    );
    return undefined;
  }
  if (!r.capabilities || typeof r.capabilities !== 'object' || !r.serverInfo || typeof r.serverInfo !== 'object') {
    walk.fail(
      'initialize',
      since,
      'invalid-response',
      `the initialize result has no ${!r.capabilities || typeof r.capabilities !== 'object' ? '"capabilities"' : '"serverInfo"'} object`,
      'an InitializeResult needs protocolVersion, capabilities and serverInfo (name, version)',
    );
    return undefined;
  }
  const info = r.serverInfo as Settled['serverInfo'];
  walk.pass('initialize', since, `protocol ${version}, server ${info?.name ?? '?'} ${info?.version ?? ''}`.trim());
  return { era: 'handshake', protocolVersion: version, capabilities: r.capabilities as Record<string, unknown>, serverInfo: info };
}

/** The first list call the capabilities allow: tools, else resources, else prompts. */
export function listMethod(caps: Record<string, unknown>): { method: string; key: string } | undefined {
  if (caps.tools) return { method: 'tools/list', key: 'tools' };
  if (caps.resources) return { method: 'resources/list', key: 'resources' };
  if (caps.prompts) return { method: 'prompts/list', key: 'prompts' };
  return undefined;
}

/** Records the `list` step from the answer to `listMethod`'s request. */
export function listStep(walk: Walk, since: number, list: { method: string; key: string }, a: Outcome): void {
  if (a.kind === 'failed') {
    walk.fail('list', since, a.code, a.detail, a.fix);
    return;
  }
  if (a.kind === 'error') {
    walk.fail(
      'list',
      since,
      'list-failed',
      `${list.method} answered ${errorText(a.error)}`,
      `the server declared ${list.key} but could not list them: its log should say why`,
    );
    return;
  }
  const items = a.result[list.key];
  if (!Array.isArray(items)) {
    walk.fail('list', since, 'invalid-response', `the ${list.method} result has no "${list.key}" array`, `a ${list.method} result is { ${list.key}: [...] }`);
    return;
  }
  const names = items.map((t) => (t && typeof t === 'object' ? String((t as { name?: unknown }).name ?? '?') : '?'));
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
  walk.pass('list', since, `${list.method}: ${items.length} ${items.length === 1 ? list.key.slice(0, -1) : list.key}${items.length ? ` (${shown})` : ''}`);
}
