import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestEnvelope } from './handshake.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel } from './types.js';
import { MODERN_VERSIONS } from './versions.js';

/** Reserved `_meta` keys of the 2026-07-28 per-request envelope. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Methods the stateless era removed: a modern request for them is -32601. */
export const REMOVED_IN_MODERN: ReadonlySet<string> = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** Methods whose complete results carry `ttlMs` and `cacheScope` (SEP-2549). */
export const CACHEABLE: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Methods that may answer `input_required` (SEP-2322). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

export interface ModernEnvelope extends RequestEnvelope {
  era: 'modern';
  logLevel?: LoggingLevel;
}

/**
 * Reads and checks the per-request envelope. Missing required keys are -32602; a version this
 * server does not speak is -32022 with the versions it does.
 */
export function readEnvelope(params: JsonObject | undefined, supported: readonly string[] = MODERN_VERSIONS): ModernEnvelope {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: the request has no _meta; 2026-07-28 requests must carry "${META.protocolVersion}" and "${META.clientCapabilities}"`,
    );
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: _meta["${META.protocolVersion}"] is required`);
  }
  if (!supported.includes(version)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version "${version}"`, { supported: [...supported], requested: version });
  }
  const caps = meta[META.clientCapabilities];
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps)) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: _meta["${META.clientCapabilities}"] (an object) is required`);
  }
  const env: ModernEnvelope = { era: 'modern', protocolVersion: version, clientCapabilities: caps as ClientCapabilities };
  const info = meta[META.clientInfo];
  if (info && typeof info === 'object') env.clientInfo = info as Implementation;
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level)) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: _meta["${META.logLevel}"] must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    env.logLevel = level as LoggingLevel;
  }
  return env;
}

/** The error for a capability the request needed but did not declare. */
export function missingCapability(required: ClientCapabilities, what: string): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what}`, { requiredCapabilities: required });
}
