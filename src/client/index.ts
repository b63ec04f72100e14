export { McpClient, type ClientOptions, type SamplingHandler, type ElicitationHandler } from './client.js';
export type { CallOptions } from './calls.js';
export type { HandshakeOutcome } from './handshake.js';
export { connect, type StdioTarget, type HttpTarget } from './connect.js';
