// mcpkit complete TARGET REF ARGUMENT [VALUE]: what a server suggests for a prompt or resource
// template argument (completion/complete), one value a line so a shell can use them.
import type { CompleteParams } from '../../protocol/params.js';
import { flag, parseArguments, strs, UsageError } from '../args.js';
import { CLIENT_HELP } from '../connection.js';
import type { ClientCommand } from '../run-client.js';

/**
 * `prompt:NAME` or `resource:URI_TEMPLATE` (the spec's `ref/prompt` / `ref/resource` spelling
 * works too). Without a prefix a URI (it has `://` or `{`) is a resource template, anything else
 * a prompt name: the prefix is only needed for a prompt whose name looks like a URI.
 */
export function parseRef(raw: string): CompleteParams['ref'] {
  const m = /^(?:ref\/)?(prompt|resource):(.*)$/s.exec(raw);
  if (m) {
    if (m[2] === '') throw new UsageError(`complete: REF "${raw}" names no ${m[1]}`);
    return m[1] === 'prompt' ? { type: 'ref/prompt', name: m[2] } : { type: 'ref/resource', uri: m[2] };
  }
  if (raw === '') throw new UsageError('complete: REF is empty');
  return /:\/\/|\{/.test(raw) ? { type: 'ref/resource', uri: raw } : { type: 'ref/prompt', name: raw };
}

export const completeCommand: ClientCommand = {
  name: 'complete',
  minArgs: 3,
  maxArgs: 4,
  options: { context: { type: 'string', multiple: true } },
  usage: `Usage: mcpkit complete TARGET REF ARGUMENT [VALUE] [options]

Asks the server to complete an argument (completion/complete) and prints the suggestions, one
a line. REF is prompt:NAME or resource:URI_TEMPLATE (a bare URI template or prompt name works
too); VALUE is what has been typed so far (default: nothing).

  mcpkit complete URL prompt:plan_day city S
  mcpkit complete URL 'resource:docs://mcpkit/{id}' id res

Options:
  --context NAME=VALUE   an argument already filled in, for servers whose suggestions depend
                         on it (repeatable; 2025-06-18 and later)

${CLIENT_HELP}`,
  async run(conn, [rawRef, argument, value = ''], values) {
    const ref = parseRef(rawRef);
    const params: CompleteParams = { ref, argument: { name: argument, value } };
    const context = strs(values, 'context');
    if (context.length > 0) {
      const given = parseArguments(context, { stringsOnly: true });
      params.context = { arguments: Object.fromEntries(Object.entries(given).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) };
    }
    const r = await conn.client.complete(params);
    if (flag(values, 'json')) {
      conn.io.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      return 0;
    }
    const { values: found, total, hasMore } = r.completion;
    if (found.length > 0) conn.io.stdout.write(`${found.join('\n')}\n`);
    // The count goes to stderr: stdout stays a plain list for `| fzf`, `$(...)` and the like.
    const s = conn.status.style;
    const what = ref.type === 'ref/prompt' ? `prompt "${ref.name}"` : `resource template ${ref.uri}`;
    if (found.length === 0) conn.status.print(s.dim(`No completions for ${argument}="${value}" of ${what}.`));
    else if (hasMore || (total !== undefined && total > found.length)) {
      conn.status.print(
        s.dim(`${found.length} shown${total !== undefined ? ` of ${total}` : ''}; the server has more: type more of the value to narrow them.`),
      );
    }
    return 0;
  },
};
