// The two ways `mcpkit chat` runs a conversation: the interactive loop (a prompt, turns streamed,
// slash commands, Ctrl-C cancelling the turn and Ctrl-C or EOF at the prompt leaving), and one
// turn for scripts (-p), printed as text or as JSON.
import { CommandError } from '../args.js';
import type { CliIo } from '../io.js';
import type { StatusLine } from '../term.js';
import { EndOfInput, type LineInput } from './input.js';
import type { ChatView } from './view.js';
import type { Answer, HostEvent } from '../../host/loop/types.js';

/** What chat needs of the host library's Conversation. */
export interface ChatConversation {
  send(text: string, options: { signal?: AbortSignal; onEvent?: (event: HostEvent) => void }): Promise<Answer>;
}

export interface SessionParts {
  io: CliIo;
  status: StatusLine;
  view: ChatView;
  /** A new conversation (empty history): at start and on /clear. */
  conversation(): ChatConversation;
  /** The /tools listing. */
  tools(): string;
}

/** Whether an error is a cancelled turn (the signal's abort, however a layer rethrew it). */
export function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof Error && err.name === 'AbortError');
}

/** A turn's failure as one line (ModelError messages already say what and where). */
export function failureLine(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return /^cannot reach /.test(message) ? `${message} (is the model server running? --base-url says where it is)` : message;
}

/** Ctrl-C while a turn runs cancels it; a second one quits at once. */
class Turns {
  current: AbortController | undefined;
  constructor(private readonly io: CliIo) {}
  /** True when a turn was there to cancel. */
  interrupt(): boolean {
    const turn = this.current;
    if (turn === undefined) return false;
    if (turn.signal.aborted) this.io.exitNow(130);
    else turn.abort(Object.assign(new Error('cancelled (Ctrl-C)'), { name: 'AbortError' }));
    return true;
  }
}

export const SLASH_HELP = `  /show N    the whole result of tool call N
  /tools     the tools the model is offered
  /clear     start a new conversation
  /exit      leave (also Ctrl-D, or Ctrl-C at the prompt)
`;

/** The interactive loop; resolves to the exit code (1 when the last turn failed). */
export async function interactive(parts: SessionParts, input: LineInput, banner: string): Promise<number> {
  const { io, status, view } = parts;
  const s = status.style;
  const turns = new Turns(io);
  const onInterrupt = () => {
    if (turns.interrupt()) status.print(s.yellow('Cancelling (Ctrl-C again quits at once)…'));
    else input.close();
  };
  input.onInterrupt(onInterrupt);
  const unsubscribe = io.onSignal((signal) => {
    if (signal === 'SIGINT') return onInterrupt();
    turns.interrupt();
    input.close();
  });
  let chat = parts.conversation();
  let failed = false;
  status.print(banner);
  try {
    for (;;) {
      let line: string;
      try {
        line = (await input.question(s.bold(s.green('you› ')))).trim();
      } catch (err) {
        if (err instanceof EndOfInput) break;
        throw err;
      }
      if (line === '') continue;
      if (line.startsWith('/')) {
        const [cmd, arg] = line.split(/\s+/, 2);
        if (cmd === '/exit' || cmd === '/quit') break;
        if (cmd === '/clear') {
          chat = parts.conversation();
          status.print(s.dim('New conversation.'));
        } else if (cmd === '/tools') status.print(parts.tools());
        else if (cmd === '/show') {
          const call = view.full(Number(arg ?? view.calls.length));
          status.print(call ? `${s.bold(`[${call.n}] ${call.label}`)}\n${call.text ?? s.dim('(no result yet)')}` : s.red(`no tool call ${arg ?? ''}`.trim()));
        } else status.print(`${cmd === '/help' ? '' : `${s.red(`unknown command ${cmd}`)}\n`}${SLASH_HELP.trimEnd()}`);
        continue;
      }
      const turn = (turns.current = new AbortController());
      try {
        await chat.send(line, { signal: turn.signal, onEvent: (e) => view.handle(e) });
        failed = false;
      } catch (err) {
        view.handle({ type: 'model_end', step: -1, response: { text: '', toolCalls: [], stopReason: 'other' } });
        status.clear();
        if (isAbort(err, turn.signal)) status.print(s.yellow('Cancelled.'));
        else {
          failed = true;
          status.print(`${s.red('✖')} ${failureLine(err)}`);
        }
      } finally {
        turns.current = undefined;
      }
    }
  } finally {
    unsubscribe();
    input.close();
  }
  return failed ? 1 : 0;
}

/** One turn (-p): the answer on stdout (or the JSON of the whole turn); tool activity on stderr. */
export async function oneTurn(parts: SessionParts, question: string, json: boolean, input?: LineInput): Promise<number> {
  const { io, status, view } = parts;
  const turns = new Turns(io);
  const onInterrupt = () => {
    if (turns.interrupt()) status.print(status.style.yellow('Cancelling (Ctrl-C again quits at once)…'));
  };
  // A terminal being read for approvals takes Ctrl-C as a key, not as a signal.
  input?.onInterrupt(onInterrupt);
  const unsubscribe = io.onSignal(onInterrupt);
  const turn = (turns.current = new AbortController());
  try {
    const answer = await parts.conversation().send(question, { signal: turn.signal, onEvent: (e) => view.handle(e) });
    if (json) {
      const toolCalls = answer.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        server: c.server,
        tool: c.tool,
        arguments: c.arguments,
        result: c.result,
        error: c.error,
      }));
      io.stdout.write(
        `${JSON.stringify({ answer: answer.text, stopReason: answer.stopReason, steps: answer.steps, toolCalls, usage: answer.usage }, null, 2)}\n`,
      );
    } else io.stdout.write(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
    return 0;
  } catch (err) {
    status.clear();
    if (isAbort(err, turn.signal)) {
      status.print(status.style.yellow('Cancelled.'));
      return 130;
    }
    if (json) io.stdout.write(`${JSON.stringify({ error: { message: failureLine(err) } }, null, 2)}\n`);
    throw new CommandError(failureLine(err), { cause: err });
  } finally {
    turns.current = undefined;
    unsubscribe();
  }
}

/** All of stdin, for `-p -`. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}
