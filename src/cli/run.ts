// The `mcpkit` command as a function: run(argv, io) resolves to the exit code and never exits
// the process, so it can run in-process (tests, embedding). main.ts is the shim for the binary.
import { CommandError, isUsageError, ShownError, UsageError, version } from './args.js';
import { bridgeCommand } from './commands/bridge.js';
import { cardCommand } from './commands/card.js';
import { chatCommand } from './commands/chat.js';
import { callCommand, promptCommand, readCommand } from './commands/call.js';
import { completeCommand } from './commands/complete.js';
import { doctorCommand } from './commands/doctor.js';
import { inspectCommand } from './commands/inspect.js';
import { installCommand } from './commands/install.js';
import { listCommand } from './commands/list.js';
import { serveCommand } from './commands/serve.js';
import { gatewayCommand } from './commands/gateway.js';
import { skillCommand, skillsCommand } from './commands/skills.js';
import { studioCommand } from './commands/studio.js';
import type { CliIo } from './io.js';
import { hasConformanceServer } from './module.js';
import { closest } from '../protocol/suggest.js';
import { runClientCommand, type ClientCommand } from './run-client.js';

// `serve conformance` only where it works: a source checkout (the package does not ship it).
const help = () => `mcpkit: the Model Context Protocol toolkit

Serve:
  mcpkit serve                         the demo server at http://127.0.0.1:3000/mcp (+ /sse)
  mcpkit serve MODULE                  the server MODULE (.js/.ts) exports; --watch reloads it
  mcpkit serve --stdio [MODULE]        the same over stdin/stdout
${hasConformanceServer() ? '  mcpkit serve conformance             the conformance fixture server (source checkout)\n' : ''}  mcpkit serve --skills DIR            the skills in DIR (folders with a SKILL.md)
  mcpkit serve --openapi SPEC          a REST API's operations as tools (OpenAPI 3.x, Swagger 2.0)
  mcpkit gateway --config FILE         every server of an mcpServers config behind one endpoint

Talk to a server (TARGET: a URL, a quoted command line, or a server name from a config):
  mcpkit tools TARGET                  list tools (also: resources, templates, prompts)
  mcpkit call TARGET TOOL [ARGS]       call a tool: '{"n":5}' or n=5 message=hi
  mcpkit read TARGET URI               read a resource
  mcpkit prompt TARGET NAME [ARGS]     get a prompt
  mcpkit complete TARGET REF ARG [V]   completions: REF is prompt:NAME or resource:URI_TEMPLATE
  mcpkit skills TARGET                 list skills; mcpkit skill TARGET URI prints one, verified
  mcpkit inspect TARGET                era, protocol version, server info, capabilities, counts, latency
  mcpkit doctor TARGET                 every step of connecting, which one fails, why, and the fix
  ... --json                           machine-readable output
  ... --trace                          show the wire exchange on stderr (--trace-file F: JSON lines)
  ... --era auto|modern|handshake      protocol era (default auto: 2026-07-28 if the server speaks it)

Look and play (a web studio: forms from schemas, elicitation, sampling, the protocol timeline):
  mcpkit studio [TARGET...]            opens it in the browser; --config FILE for every server of a config

Bridge:
  mcpkit bridge --stdio-to-http URL    a stdio server that forwards to a remote HTTP server
  mcpkit bridge --http -- COMMAND      a stdio server exposed over HTTP

Publish:
  mcpkit card MODULE [--url URL]       the Server Card of a server module (docs/discovery.md)
  mcpkit card MODULE --server-json --name io.github.you/name --package NPM-NAME
                                       a server.json for the MCP Registry

Chat with a model that uses the servers' tools (a terminal host):
  mcpkit chat --model NAME --server TARGET [--base-url URL]   interactive; -p "question" for one answer
                                       (OpenAI-compatible endpoints such as Ollama, or --provider anthropic)

Add a server to a host (absolute paths; merges into the host's config, with a backup):
  mcpkit install claude|cursor|vscode|claude-code TARGET   TARGET: a module, a command line or a URL
  mcpkit install mcp-json TARGET       print the mcpServers entry

Examples:
  mcpkit serve
  mcpkit tools http://127.0.0.1:3000/mcp
  mcpkit call http://127.0.0.1:3000/mcp count '{"n":5}'
  mcpkit call "node server.js" echo message=hi
  mcpkit complete http://127.0.0.1:3000/mcp prompt:plan_day city S
  mcpkit install claude server.ts
  mcpkit chat --base-url http://localhost:11434/v1 --model llama3.2 --server "node server.js"

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
  skills: skillsCommand,
  skill: skillCommand,
};

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [cmd, ...rest] = argv;
  // `mcpkit help COMMAND` is `mcpkit COMMAND --help`.
  if (cmd === 'help' && rest.length > 0) return dispatch([rest[0], '--help'], io);
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.stdout.write(help());
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  if (cmd === 'serve') return serveCommand(rest, io);
  if (cmd === 'bridge') return bridgeCommand(rest, io);
  if (cmd === 'gateway') return gatewayCommand(rest, io);
  if (cmd === 'install') return installCommand(rest, io);
  if (cmd === 'card') return cardCommand(rest, io);
  if (cmd === 'doctor') return doctorCommand(rest, io);
  if (cmd === 'chat') return chatCommand(rest, io);
  if (cmd === 'studio') return studioCommand(rest, io);
  const client = CLIENT_COMMANDS[cmd];
  if (client) return runClientCommand(client, rest, io);
  const commands = ['serve', 'bridge', 'gateway', 'install', 'card', 'chat', 'help', 'version', ...Object.keys(CLIENT_COMMANDS)];
  const near = closest(cmd.replace(/^-+/, ''), commands);
  if (near !== undefined) throw new UsageError(`unknown command "${cmd}": did you mean "mcpkit ${near}"? (mcpkit --help lists every command)`);
  throw new UsageError(`unknown command "${cmd}"; see mcpkit --help`);
}

/**
 * Runs `mcpkit ARGV` against `io`; resolves to the exit code (2 for usage errors). Long-running
 * commands (serve, bridge --http) resolve when `io` signals SIGINT/SIGTERM.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (isUsageError(err)) {
      io.stderr.write(`mcpkit: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ShownError) return err.exitCode;
    io.stderr.write(`mcpkit: ${failureText(err, !!io.env.DEBUG)}\n`);
    return 1;
  }
}

/**
 * An unexpected failure as one line that says what happened and what to do; the stack trace only
 * when DEBUG is set (a user of the command has no use for frames).
 */
function failureText(err: unknown, debug: boolean): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof CommandError) return debug && err.cause instanceof Error ? `${err.message}\n${err.cause.stack}` : err.message;
  if (debug) return err.stack ?? err.message;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  const where = e.address !== undefined ? `${e.address}${e.port !== undefined ? `:${e.port}` : ''}` : 'the address';
  if (e.code === 'EADDRINUSE') return `${where} is already in use: choose another port with --port, or stop the program listening there`;
  if (e.code === 'EACCES' && e.syscall === 'listen')
    return `not allowed to listen on ${where} (ports below 1024 need privileges): choose another port with --port`;
  if (e.code === 'EADDRNOTAVAIL') return `${where} is not an address of this machine: check --host`;
  return `${err.message} (DEBUG=1 shows where it happened)`;
}
