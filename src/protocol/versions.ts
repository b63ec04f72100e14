/** Protocol revisions this toolkit speaks, and what changed between them. */

export const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type HandshakeVersion = (typeof HANDSHAKE_VERSIONS)[number];
export type ProtocolVersion = HandshakeVersion | (typeof MODERN_VERSIONS)[number];

export const LATEST_HANDSHAKE_VERSION: HandshakeVersion = '2025-11-25';
/** The only handshake revision with (experimental) core tasks. */
export const CORE_TASKS_VERSION: HandshakeVersion = '2025-11-25';
/** What a legacy HTTP server assumes when the MCP-Protocol-Version header is absent. */
export const DEFAULT_HTTP_VERSION: HandshakeVersion = '2025-03-26';

export function isHandshakeVersion(v: unknown): v is HandshakeVersion {
  return typeof v === 'string' && (HANDSHAKE_VERSIONS as readonly string[]).includes(v);
}

/**
 * Server side of initialize: echo the client's version when we speak it, otherwise offer our
 * latest (the spec's SHOULD, and what every SDK in the field does) and let the client decide.
 */
export function negotiateVersion(requested: unknown, supported: readonly string[]): string {
  if (typeof requested === 'string' && supported.includes(requested)) return requested;
  return supported[0];
}

/** Revision features the engine and dispatcher branch on. Dates compare as strings. */
export const features = {
  batching: (v: string) => v === '2025-03-26',
  structuredOutput: (v: string) => v >= '2025-06-18',
  elicitation: (v: string) => v >= '2025-06-18',
  urlElicitation: (v: string) => v >= '2025-11-25',
  samplingTools: (v: string) => v >= '2025-11-25',
  icons: (v: string) => v >= '2025-11-25',
  titles: (v: string) => v >= '2025-06-18',
  completionsCapability: (v: string) => v >= '2025-03-26',
  progressMessage: (v: string) => v >= '2025-03-26',
  /** SSE streams start with a priming event (an id to resume from) and may be resumed. */
  resumableStreams: (v: string) => v >= '2025-11-25',
  /** Experimental core tasks (SEP-1686): this revision only; 2026-07-28 made them an extension. */
  coreTasks: (v: string) => v === CORE_TASKS_VERSION,
  modern: (v: string) => v >= '2026-07-28',
} as const;
