// The two-tool mode, for specs too large to list as tools (GitHub's has ~1000 operations; a
// client given that many tools is slow and its model confused): `list_endpoints` searches the
// operations and shows their input schemas, `call_endpoint` calls one by name.
import { compileSchema, type CompiledSchema } from '../../schema/compile.js';
import type { CallToolResult } from '../../protocol/params.js';
import type { McpServer } from '../../server/mcp-server.js';
import type { OperationCaller } from './caller.js';
import type { OpenApiOperation } from './operations.js';

const LIST_INPUT = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Words to look for in the name, path, summary, description and tags (all must match; any case)' },
    tag: { type: 'string', description: 'Only endpoints with this tag' },
    method: { type: 'string', description: 'Only this HTTP method (GET, POST...)' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many endpoints to return (default 10)' },
    offset: { type: 'integer', minimum: 0, default: 0, description: 'Skip this many matches (the next page)' },
    schemas: { type: 'boolean', default: true, description: 'Include each endpoint\'s input schema (the shape of call_endpoint\'s "arguments")' },
  },
} as const;

const CALL_INPUT = {
  type: 'object',
  properties: {
    operation: { type: 'string', description: "The endpoint's name, as list_endpoints shows it" },
    arguments: { type: 'object', description: 'Its arguments, matching the input schema list_endpoints shows' },
  },
  required: ['operation'],
} as const;

/** Registers list_endpoints and call_endpoint for `ops` on `server`. */
export function registerEndpointTools(server: McpServer, ops: OpenApiOperation[], caller: OperationCaller, title: string, prefix = ''): string[] {
  const byName = new Map(ops.map((op) => [op.name, op]));
  const byId = new Map(ops.flatMap((op) => (op.operationId ? [[op.operationId, op] as const] : [])));
  const compiled = new Map<string, CompiledSchema>();
  const listName = `${prefix}list_endpoints`;
  const callName = `${prefix}call_endpoint`;
  server.tool(
    listName,
    {
      title: `Search the ${title} endpoints`,
      description: `Searches the ${ops.length} endpoint${ops.length === 1 ? '' : 's'} of ${title}; call one with ${callName}.`,
      input: LIST_INPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => {
      const words = String(args.query ?? '')
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean);
      const method = typeof args.method === 'string' ? args.method.toLowerCase() : undefined;
      const tag = typeof args.tag === 'string' ? args.tag.toLowerCase() : undefined;
      const matches = ops.filter((op) => {
        if (method && op.method !== method) return false;
        if (tag && !op.tags.some((t) => t.toLowerCase() === tag)) return false;
        const hay = [op.name, op.operationId, op.method, op.path, op.summary, op.description, ...op.tags].join(' ').toLowerCase();
        return words.every((w) => hay.includes(w));
      });
      const offset = typeof args.offset === 'number' ? args.offset : 0;
      const limit = typeof args.limit === 'number' ? args.limit : 10;
      const page = matches.slice(offset, offset + limit);
      const endpoints = page.map((op) => ({
        operation: op.name,
        method: op.method.toUpperCase(),
        path: op.path,
        ...(op.summary ? { summary: op.summary } : {}),
        ...(op.tags.length ? { tags: op.tags } : {}),
        ...(op.deprecated ? { deprecated: true } : {}),
        ...(args.schemas === false ? {} : { inputSchema: op.inputSchema() }),
      }));
      const result: Record<string, unknown> = { total: matches.length, endpoints };
      if (offset + limit < matches.length) result.nextOffset = offset + limit;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  server.tool(
    callName,
    {
      title: `Call a ${title} endpoint`,
      description: `Calls one endpoint of ${title} by the name ${listName} gives it, with its arguments.`,
      input: CALL_INPUT,
      annotations: { openWorldHint: true },
    },
    async (args, ctx): Promise<CallToolResult> => {
      const name = String(args.operation);
      const op = byName.get(name) ?? byId.get(name);
      if (!op) return { isError: true, content: [{ type: 'text', text: `No endpoint named "${name}": find it with ${listName}` }] };
      let schema = compiled.get(op.name);
      if (!schema) compiled.set(op.name, (schema = compileSchema(op.inputSchema())));
      const checked = await schema.validate((args.arguments as Record<string, unknown> | undefined) ?? {});
      if (!checked.ok) return { isError: true, content: [{ type: 'text', text: `Arguments for ${op.name}: ${checked.message}` }] };
      return caller.call(op, checked.value as Record<string, unknown>, ctx);
    },
  );
  return [listName, callName];
}
