export { McpClient, type ClientOptions, type SamplingHandler, type ElicitationHandler, type ReinitializeEvent } from './client.js';
export type { SessionState } from './reconnect.js';
export type { CallOptions } from './calls.js';
export type { HandshakeOutcome } from './handshake.js';
export type { ConnectOutcome } from './modern.js';
export type { Era, EraOption } from './era.js';
export type { Subscription, ListenNotification, ListenOptions, RelistenOptions } from './listen.js';
export { connect, type StdioTarget, type HttpTarget } from './connect.js';
