export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
  type ReconnectOptions,
} from './streamable.js';
export { SseClientTransport, type SseClientTransportOptions } from './sse-legacy.js';
export { connectHttp, type ConnectHttpResult, type ConnectHttpTransportOptions } from '../../../client/connect-http.js';
export { HttpStatusError, SessionExpiredError, type HeadersOption } from './http-common.js';
export type { ProbeAnswer } from './modern-post.js';
