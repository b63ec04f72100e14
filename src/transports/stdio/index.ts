export { StdioServerTransport, type StdioServerTransportOptions } from './server.js';
export {
  StdioClientTransport,
  DEFAULT_INHERITED_ENV_VARS,
  defaultEnvironment,
  type StdioClientTransportOptions,
} from './client.js';
export { LineReader, DEFAULT_MAX_LINE_LENGTH, type LineReaderOptions } from './line-reader.js';
export { serveStdio, type ServeStdioOptions } from '../../hosting/stdio.js';
