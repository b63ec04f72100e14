// mcpkit doctor TARGET: every step of connecting to a server, which one fails, why, and the fix.
import { flag, parse, UsageError } from '../args.js';
import { DOCTOR_HELP, DOCTOR_OPTIONS, renderDiagnosis, runDoctor } from '../doctor.js';
import type { CliIo } from '../io.js';
import { StatusLine, styleFor } from '../term.js';

const USAGE = `Usage: mcpkit doctor TARGET [options]

Walks the connection to a server step by step and says which step fails, why, and what to do.
A command: starting it, its stdout (only JSON-RPC belongs there), the era probe
(server/discover), initialize, the first list call. A URL: DNS, TCP, TLS, the CORS preflight
(with --origin), the first POST (404, 405, 406, 415, redirects, pages and APIs that are not
MCP), authorization on a 401 (resource metadata, authorization server, registration), the
protocol and the first list call.
TARGET is a URL, a quoted command line ("node server.js") or a server name from a config file.

Target options:
  --config FILE          mcpServers config to find server names in
  -H, --header "K: V"    HTTP header for URL targets (repeatable); values never appear in the report
  -e, --env KEY=VALUE    environment variable for command targets (repeatable)
${DOCTOR_HELP}  --timeout SECONDS      how long a step may wait for an answer (default 30; 0: no limit)
Output options:
  --json                 the diagnosis as JSON: { ok, target, transport, steps, failure, server }

Exit code 0 when every step works, 1 when one fails (2 when TARGET names nothing usable).
`;

const OPTIONS = {
  config: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  env: { type: 'string', multiple: true, short: 'e' },
  timeout: { type: 'string' },
  'redirect-port': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  ...DOCTOR_OPTIONS,
} as const;

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('doctor', argv, OPTIONS);
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('doctor: give one TARGET\nUsage: mcpkit doctor TARGET [options]');
  const status = new StatusLine(io.stderr, io.env);
  status.begin('doctor', 'diagnosing…');
  const d = await runDoctor(positionals[0], values, io);
  status.end(d.ok);
  if (flag(values, 'json')) io.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
  else io.stdout.write(`${renderDiagnosis(d, styleFor(io.stdout, io.env))}\n`);
  // A TARGET that names nothing usable is a mistake in the command line, as for every command.
  return d.ok ? 0 : d.failure?.code === 'invalid-target' ? 2 : 1;
}
