// mcpkit/node: what needs Node itself for HTTP: the node:http adapter, `serve()`, and the
// loopback redirect for signing in from a command-line client.

export {
  serve,
  toNodeHandler,
  type ServeOptions,
  type RunningServer,
  type NodeRequestListener,
} from '../serving/node.js';
export { skillDirectory } from '../serving/skills-dir.js';
export { loopbackAuthorization, type LoopbackOptions, type LoopbackAuthorization } from '../client/auth/loopback.js';
export { OAuthFlowError } from '../client/auth/errors.js';
export { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
