// mcpkit/stdio: stdio servers and clients (Node: process streams, child processes). Its
// `connect` spawns a server from a command line.

export { serveStdio, type ServeStdioOptions } from '../serving/stdio.js';
export { StdioServerTransport, type StdioServerTransportOptions } from '../transports/stdio/server.js';
export { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
export { DEFAULT_INHERITED_ENV_VARS, defaultEnvironment } from '../transports/stdio/process.js';
export { LineReader, DEFAULT_MAX_LINE_LENGTH, type LineReaderOptions } from '../transports/stdio/line-reader.js';
export { connectStdio as connect, type StdioTarget } from '../client/connect-stdio.js';
export { ServerExitedError } from '../client/era.js';
export { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
