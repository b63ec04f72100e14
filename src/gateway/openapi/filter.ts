// Which operations become tools: by method, path pattern, tag, and operationId/tool name lists.
import { didYouMean } from '../../protocol/suggest.js';
import { OpenApiError } from './errors.js';
import type { OpenApiOperation } from './operations.js';

export interface OperationFilter {
  /** HTTP methods to keep (any case): `['get']` for a read-only toolset. */
  methods?: string[];
  /** A regular expression (or its source) the path must match: `'^/pets'`. */
  path?: RegExp | string;
  /** Keep operations with at least one of these tags. */
  tags?: string[];
  /** Keep only these operations (operationId or tool name). */
  include?: string[];
  /** Leave these out (operationId or tool name); applied after everything else. */
  exclude?: string[];
}

export function filterOperations(ops: OpenApiOperation[], filter: OperationFilter = {}): OpenApiOperation[] {
  let path: RegExp | undefined;
  try {
    path = typeof filter.path === 'string' ? new RegExp(filter.path) : filter.path;
  } catch (err) {
    throw new OpenApiError(`Path filter ${JSON.stringify(filter.path)} is not a valid regular expression: ${(err as Error).message}`);
  }
  const methods = filter.methods?.map((m) => m.toLowerCase());
  const named = (op: OpenApiOperation, list: string[]) => list.includes(op.name) || (op.operationId !== undefined && list.includes(op.operationId));
  const kept = ops.filter(
    (op) =>
      (!methods?.length || methods.includes(op.method)) &&
      (!path || path.test(op.path)) &&
      (!filter.tags?.length || op.tags.some((t) => filter.tags!.includes(t))) &&
      (!filter.include?.length || named(op, filter.include)) &&
      !(filter.exclude?.length && named(op, filter.exclude)),
  );
  // A name in include that matches nothing is a typo the user wants to hear about.
  const unknown = [...(filter.include ?? []), ...(filter.exclude ?? [])].filter((n) => !ops.some((op) => op.name === n || op.operationId === n));
  if (unknown.length > 0) {
    const names = ops.flatMap((op) => (op.operationId === undefined || op.operationId === op.name ? [op.name] : [op.name, op.operationId]));
    const said = unknown.map((n) => `"${n}"${didYouMean(n, names).replace(/^ \((.*)\)$/, ' ($1)')}`);
    throw new OpenApiError(`No operation named ${said.join(', ')} in the spec (give operationIds or tool names)`);
  }
  return kept;
}
