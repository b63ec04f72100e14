export { McpClient, type ClientOptions, type SamplingHandler, type ElicitationHandler, type ReinitializeEvent } from './client.js';
export type { SessionState } from './reconnect.js';
export type { CallOptions } from './calls.js';
export type { HandshakeOutcome } from './handshake.js';
export { connect, type StdioTarget, type HttpTarget } from './connect.js';
