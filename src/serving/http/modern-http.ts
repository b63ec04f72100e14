import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage } from '../../jsonrpc/messages.js';
import { argumentAt, decodeHeaderValue, headerParamsOf, nameParamOf, type HeaderParam } from '../../protocol/headers.js';
import { META } from '../../protocol/modern.js';
import type { HttpRequestView } from './exchange.js';

function mismatch(what: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${what}`);
}

const paramCache = new WeakMap<object, HeaderParam[] | string>();

/** Compares one mirrored argument with its header; the body stays the source of truth. */
function sameValue(p: HeaderParam, arg: unknown, header: string): boolean {
  if (p.type === 'integer') return typeof arg === 'number' && Number(header) === arg && /^-?\d+$/.test(header);
  if (p.type === 'boolean') return typeof arg === 'boolean' && header === String(arg);
  return typeof arg === 'string' && header === arg;
}

/**
 * Checks the routing headers against the body (SEP-2243). Returns the -32020 error to send, or
 * undefined. A body without the envelope is left to the envelope reader (-32602).
 */
export function checkModernHeaders(req: HttpRequestView, message: JsonRpcMessage, inputSchemaOf: (tool: string) => object | undefined): McpError | undefined {
  if (!('method' in message)) return new McpError(ErrorCode.InvalidRequest, 'Invalid request: clients do not send responses in protocol version 2026-07-28');
  const params = message.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const bodyVersion = meta?.[META.protocolVersion];
  if (typeof bodyVersion !== 'string') return undefined;
  const headerVersion = req.header('mcp-protocol-version');
  if (headerVersion === undefined) return mismatch('the MCP-Protocol-Version header is required');
  if (headerVersion.trim() !== bodyVersion) return mismatch(`MCP-Protocol-Version "${headerVersion}" differs from _meta version "${bodyVersion}"`);
  if (!('id' in message)) return undefined; // notifications carry no routing headers
  const method = req.header('mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is required');
  if (method.trim() !== message.method) return mismatch(`Mcp-Method "${method}" differs from the body's method "${message.method}"`);
  const nameKey = nameParamOf(message.method);
  if (nameKey) {
    const raw = req.header('mcp-name');
    if (raw === undefined) return mismatch('the Mcp-Name header is required for this method');
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined || decoded !== String(params?.[nameKey] ?? '')) return mismatch(`Mcp-Name does not match params.${nameKey}`);
  }
  if (message.method === 'tools/call' && typeof params?.name === 'string') {
    const schema = inputSchemaOf(params.name);
    if (schema) return checkParamHeaders(req, schema, params);
  }
  return undefined;
}

function checkParamHeaders(req: HttpRequestView, schema: object, params: JsonObject): McpError | undefined {
  let defs = paramCache.get(schema);
  if (defs === undefined) paramCache.set(schema, (defs = headerParamsOf(schema)));
  if (typeof defs === 'string') return undefined; // an invalid annotation is the tool author's problem, not the caller's
  for (const p of defs) {
    const arg = argumentAt(params.arguments, p.path);
    const raw = req.header(`mcp-param-${p.header.toLowerCase()}`);
    if (arg === undefined || arg === null) {
      if (raw !== undefined && decodeHeaderValue(raw) === undefined) return mismatch(`Mcp-Param-${p.header} has invalid characters`);
      continue;
    }
    if (raw === undefined) return mismatch(`argument "${p.path.join('.')}" needs the Mcp-Param-${p.header} header`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch(`Mcp-Param-${p.header} is not a valid header value`);
    if (!sameValue(p, arg, decoded)) return mismatch(`Mcp-Param-${p.header} does not match argument "${p.path.join('.')}"`);
  }
  return undefined;
}

/** HTTP status for a JSON-RPC error answered in the 2026-07-28 era. */
export function modernStatusFor(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === ErrorCode.InvalidParams ||
    code === ErrorCode.InvalidRequest ||
    code === ErrorCode.ParseError ||
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.MissingRequiredClientCapability ||
    code === ErrorCode.UnsupportedProtocolVersion
  ) {
    return 400;
  }
  return 200;
}
