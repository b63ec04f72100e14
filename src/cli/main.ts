#!/usr/bin/env node
// The `mcpkit` command: serve a server (the demo, a module, over HTTP or stdio), talk to any
// server (list, call, read, prompt, inspect, with --trace), and bridge stdio and HTTP.
import { ShownError, UsageError, version } from './args.js';
import { bridgeCommand } from './commands/bridge.js';
import { callCommand, promptCommand, readCommand } from './commands/call.js';
import { completeCommand } from './commands/complete.js';
import { inspectCommand } from './commands/inspect.js';
import { listCommand } from './commands/list.js';
import { serveCommand } from './commands/serve.js';
import { runClientCommand, type ClientCommand } from './run-client.js';

const HELP = `mcpkit: the Model Context Protocol toolkit

Serve:
  mcpkit serve                         the demo server at http://127.0.0.1:3000/mcp (+ /sse)
  mcpkit serve MODULE                  the server MODULE (.js/.ts) exports; --watch reloads it
  mcpkit serve --stdio [MODULE]        the same over stdin/stdout
  mcpkit serve conformance             the conformance fixture server

Talk to a server (TARGET: a URL, a quoted command line, or a server name from a config):
  mcpkit tools TARGET                  list tools (also: resources, templates, prompts)
  mcpkit call TARGET TOOL [ARGS]       call a tool: '{"n":5}' or n=5 message=hi
  mcpkit read TARGET URI               read a resource
  mcpkit prompt TARGET NAME [ARGS]     get a prompt
  mcpkit complete TARGET REF ARG [V]   completions: REF is prompt:NAME or resource:URI_TEMPLATE
  mcpkit inspect TARGET                era, protocol version, server info, capabilities, counts, latency
  ... --json                           machine-readable output
  ... --trace                          show the wire exchange on stderr (--trace-file F: JSON lines)
  ... --era auto|modern|handshake      protocol era (default auto: 2026-07-28 if the server speaks it)

Bridge:
  mcpkit bridge --stdio-to-http URL    a stdio server that forwards to a remote HTTP server
  mcpkit bridge --http -- COMMAND      a stdio server exposed over HTTP

Examples:
  mcpkit serve
  mcpkit tools http://127.0.0.1:3000/mcp
  mcpkit call http://127.0.0.1:3000/mcp count '{"n":5}'
  mcpkit call "node server.js" echo message=hi
  mcpkit complete http://127.0.0.1:3000/mcp prompt:plan_day city S

mcpkit COMMAND --help shows a command's options.  mcpkit --version prints the version.
`;

const CLIENT_COMMANDS: Record<string, ClientCommand> = {
  tools: listCommand('tools'),
  resources: listCommand('resources'),
  templates: listCommand('templates'),
  prompts: listCommand('prompts'),
  call: callCommand,
  read: readCommand,
  prompt: promptCommand,
  complete: completeCommand,
  inspect: inspectCommand,
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (cmd === 'serve') return serveCommand(rest);
  if (cmd === 'bridge') return bridgeCommand(rest);
  const client = CLIENT_COMMANDS[cmd];
  if (client) return runClientCommand(client, rest);
  throw new UsageError(`unknown command "${cmd}"; see mcpkit --help`);
}

/** Exits once stdout has been flushed (a pipe reader must get every byte). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

// `mcpkit tools URL --json | head`: a reader that goes away early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

try {
  exit(await main(process.argv.slice(2)));
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`mcpkit: ${err.message}\n`);
    exit(2);
  } else if (err instanceof ShownError) {
    exit(err.exitCode);
  } else {
    process.stderr.write(`mcpkit: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exit(1);
  }
}
