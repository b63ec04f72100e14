// mcpkit chat: a terminal host. A model (any OpenAI-compatible endpoint, or Anthropic's) with the
// tools of the servers given, in an interactive chat, or for one question (-p) from a script.
import { Host } from '../../host/host.js';
import type { HostEvent } from '../../host/loop/types.js';
import { ProviderConfigError } from '../../host/providers/index.js';
import { CommandError, parse, UsageError, version } from '../args.js';
import { canAsk } from '../interact.js';
import type { CliIo } from '../io.js';
import { OBSERVABILITY_HELP, startObservability, type Observability } from '../observability.js';
import { StatusLine, truncate } from '../term.js';
import { chatInteraction } from '../chat/ask.js';
import { LineInput } from '../chat/input.js';
import { CHAT_OPTIONS, chatSettings, type ChatSettings } from '../chat/options.js';
import { interactive, oneTurn, readAll, SLASH_HELP, type SessionParts } from '../chat/session.js';
import { ChatView } from '../chat/view.js';

export const CHAT_USAGE = `Usage: mcpkit chat --model NAME [--server TARGET ...] [options]
       mcpkit chat --model NAME [--server TARGET ...] -p "question"

A chat with a language model that can use the tools of MCP servers. The answer streams in as it
comes; each tool call is shown with its server and arguments, its progress as a bar, and its
result (long ones collapsed: /show N prints one whole). Calls that need approval are asked
about (y / n / always for that tool), and a server's questions (elicitation) are asked as a form
or a link to open. Ctrl-C cancels the turn (running calls get notifications/cancelled); Ctrl-C
at the prompt, Ctrl-D or /exit leaves.

Model:
  -m, --model NAME         the model (required), e.g. llama3.2, gpt-4.1-mini, claude-sonnet-4-5
  --base-url URL           the endpoint: any OpenAI-compatible one (Ollama
                           http://localhost:11434/v1, vLLM, LM Studio...); default OpenAI's or Anthropic's
  --provider P             openai (default; OpenAI-compatible endpoints) or anthropic (default
                           for claude-* models when no --base-url is given)
                           The key comes from OPENAI_API_KEY or ANTHROPIC_API_KEY; an endpoint on
                           localhost needs none.
  --system TEXT            the system prompt
  --max-steps N            model turns per message (default 20)
  --context-window N       the model's context in tokens: past 10 % of it (or 64 tools), tool
                           definitions are found by search instead of all sent (default: known
                           from the model's name, else 32768)
  --code-mode              the model gets two tools instead of the servers': one searches a
                           TypeScript API made of every tool, one runs a JavaScript program
                           against it in a sandbox (QuickJS in WebAssembly); only what the
                           program returns reaches the model. Each call it makes is shown and
                           approved as a direct call is. Needs quickjs-emscripten-core and
                           @jitl/quickjs-wasmfile-release-sync installed.

Servers (TARGET: a URL, a quoted command line, or a server name from a config):
  -s, --server TARGET      a server whose tools the model gets (repeatable); NAME=TARGET names
                           it (NAME: letters, digits, _ and -; in CAPITALS before a command it
                           is an environment variable, as in a shell), otherwise it is named
                           after its script, package or host
  --config FILE            an mcpServers config: all its servers, or with --server the ones named
                           (default: ./.mcp.json when there is one and no --server is given)
  -H, --header "K: V"      HTTP header for URL servers (repeatable)
  -e, --env KEY=VALUE      environment variable for command servers (repeatable)
  --root DIR               a directory the servers are told they may work in (the client's
                           roots; repeatable). None by default: servers keep to their own
                           configuration
  --era ERA                auto (default), modern or handshake
  --prefix WHEN            on-clash (default): tool names get their server's name only when two
                           servers offer the same one; always: every tool's; never
  --timeout SECONDS        per tool call (default 60; progress restarts it; 0 waits forever)

Approval:
  --approve MODE           without it: tools marked read-only run, others are asked about;
                           auto: every call runs; ask: every call is asked about; never: none runs
  -y, --yes                approve what would be asked (and servers' sampling requests)

One question (scripts, CI):
  -p, --print QUESTION     one turn: the answer on stdout, tool activity on stderr ("-" reads
                           the question from stdin). Without a terminal, calls that need
                           approval are refused unless --yes, and elicitations are declined.
  --json                   with -p: the answer and every tool call as JSON
  --allow-no-tools         with -p: ask the model even when every server given failed to
                           start (otherwise that is a failure: exit code 1)

Output:
  --verbose                servers' stderr and connection steps too
${OBSERVABILITY_HELP}
Commands at the prompt:
${SLASH_HELP}
Exit codes: 0 answered; 1 the model endpoint failed (unreachable, refused the request, answered
malformed tool calls), or with -p every server given failed to start, with one line on stderr
saying so; 2 usage; 130 cancelled (-p).
`;

/** `/tools`: every tool offered, with its server. */
function toolList(host: Host, status: StatusLine): string {
  const s = status.style;
  const tools = host.tools();
  if (tools.length === 0) return s.dim('No tools (add servers with --server TARGET or --config FILE).');
  return tools
    .map((t) => {
      const about = t.tool.description ? `  ${s.dim(truncate(t.tool.description, Math.max(20, status.columns - t.name.length - 30)))}` : '';
      return `${s.bold(t.name)} ${s.dim(`(${t.server} › ${t.tool.name})`)}${about}`;
    })
    .join('\n');
}

/** The first lines of an interactive chat: model, servers and their tools, how to leave. */
function banner(host: Host, settings: ChatSettings, status: StatusLine): string {
  const s = status.style;
  const where = settings.baseUrl ?? (settings.provider === 'anthropic' ? "Anthropic's API" : "OpenAI's API");
  const servers = host.pool.servers().map((i) => {
    if (i.state === 'connected') return `${i.name} ${s.dim(`(${i.tools} tool${i.tools === 1 ? '' : 's'})`)}`;
    return `${i.name} ${s.yellow(`(${i.state})`)}`;
  });
  return [
    `${s.bold('mcpkit chat')} · ${settings.model} ${s.dim(`via ${where}`)}`,
    servers.length > 0 ? `servers: ${servers.join(', ')}` : s.dim('no servers: the model has no tools (--server TARGET adds one)'),
    s.dim('/help for commands · Ctrl-C cancels a turn · Ctrl-D leaves'),
  ].join('\n');
}

/** --log-format json: the turn's tool calls and model steps as log lines. */
function logEvent(obs: Observability, e: HostEvent): void {
  if (!obs.json) return;
  if (e.type === 'tool_call') obs.log('info', 'tool call', { id: e.id, server: e.server, tool: e.tool });
  else if (e.type === 'tool_result')
    obs.log(e.isError ? 'warn' : 'info', 'tool result', { id: e.id, isError: e.isError, durationMs: Math.round(e.durationMs) });
  else if (e.type === 'tool_error') obs.log('warn', 'tool error', { id: e.id, name: e.name, message: e.message });
  else if (e.type === 'code_result')
    obs.log(e.isError ? 'warn' : 'info', 'program', { id: e.id, isError: e.isError, calls: e.calls, durationMs: Math.round(e.durationMs) });
  else if (e.type === 'model_end') obs.log('info', 'model step', { step: e.step, stopReason: e.response.stopReason, usage: e.response.usage });
  else if (e.type === 'server' && (e.event.type === 'failed' || e.event.type === 'closed'))
    obs.log('warn', `server ${e.event.type}`, { server: e.event.server, error: e.event.error?.message });
}

/**
 * -p with servers given and none of them up: the model would answer without the tools the
 * question was meant for, and a script would take that answer for a real one. A failure instead.
 */
function noServerUp(host: Host, json: boolean, io: CliIo): void {
  const given = host.pool.servers().filter((s) => s.state !== 'closed');
  if (given.length === 0 || given.some((s) => s.state === 'connected')) return;
  // The first line of each reason: the servers' own stderr was shown as it came.
  const why = given.map((s) => `${s.name}: ${(s.error?.message ?? s.state).split('\n')[0]!.replace(/; its stderr:.*$/, '')}`).join('; ');
  const line = `no server could be started, so the model would have no tools (${why}); --allow-no-tools asks it anyway`;
  if (json) io.stdout.write(`${JSON.stringify({ error: { message: line } }, null, 2)}\n`);
  throw new CommandError(line);
}

export async function chatCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('chat', argv, CHAT_OPTIONS);
  if (values.help === true) {
    io.stdout.write(CHAT_USAGE);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`chat: unexpected "${positionals[0]}" (a question goes after -p, a server after --server)`);
  }
  const settings = chatSettings(values, io.cwd, io.env.HOME || undefined);
  const print = settings.print !== undefined;
  const question = settings.print === '-' ? await readAll(io.stdin) : settings.print;
  if (print && !question) throw new UsageError('chat: -p needs a question');
  const status = new StatusLine(io.stderr, io.env);
  for (const note of settings.notes) status.print(`mcpkit chat: ${note}`);
  // Interactive: stdin answers everything (a terminal, or a script piping its answers). One
  // turn: questions only go to a person at a terminal, and stdin is theirs unless -p - read it.
  const obs = await startObservability(values, 'mcpkit-chat', io);
  const input = !print || (canAsk(io) && settings.print !== '-') ? new LineInput(io) : undefined;
  const view = new ChatView({
    out: io.stdout,
    status,
    stream: !print,
    model: settings.model,
    verbose: settings.verbose,
    quiet: print && obs.json,
    hint: print ? () => (settings.json ? 'the JSON has it all' : '--json has it all') : (n) => `/show ${n} prints it all`,
  });
  let host: Host;
  try {
    // With telemetry on: the loop's spans, and client spans whose context reaches the servers.
    const observer = await obs.hostObserver();
    host = new Host({
      ...(observer ? { observer } : {}),
      servers: settings.servers,
      config: settings.config,
      prefix: settings.prefix,
      era: settings.era,
      cwd: io.cwd,
      env: io.env,
      // Tracing on: stdio servers get the trace configuration, so the trace goes on through them.
      stdioEnv: obs.childEnv(),
      roots: settings.roots,
      clientInfo: { name: 'mcpkit-chat', version: version() },
      model: { provider: settings.provider, model: settings.model, baseUrl: settings.baseUrl, env: io.env },
      system: settings.system,
      approval: settings.approval,
      interaction: chatInteraction({ input, status, yes: settings.yes }),
      maxSteps: settings.maxSteps,
      ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
      ...(settings.codeMode ? { codeMode: true } : {}),
      toolTimeoutMs: settings.toolTimeoutMs, // 0: none (the engine waits)
      // Server events reach every running turn too; shown once, from here.
      onEvent: (e) => {
        if (e.type === 'server') view.handle(e);
        logEvent(obs, e);
      },
    });
  } catch (err) {
    input?.close();
    await obs.shutdown();
    if (err instanceof ProviderConfigError) throw new UsageError(err.message);
    throw err;
  }
  const parts: SessionParts = {
    io,
    status,
    view,
    conversation: () => {
      const chat = host.conversation();
      return {
        send: (text, options) => chat.send(text, { signal: options.signal, onEvent: (e) => e.type !== 'server' && options.onEvent?.(e) }),
      };
    },
    tools: () => toolList(host, status),
  };
  try {
    await host.start();
    if (print && !settings.allowNoTools) noServerUp(host, settings.json, io);
    if (print) return await oneTurn(parts, question!, settings.json, input);
    return await interactive(parts, input!, banner(host, settings, status));
  } finally {
    input?.close();
    await host.close();
    await obs.shutdown();
  }
}
