export { Peer, type PeerHandlers, type PeerOptions, type ProgressInfo, type RequestOptions } from './peer.js';
export { InboundRequest } from './inbound.js';
export { compose, type MessageMiddleware, type Next } from './middleware.js';
