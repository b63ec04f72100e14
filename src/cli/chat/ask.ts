// What `mcpkit chat` asks the user while a turn runs: approval of a tool call (yes, no, or always
// for that tool), an elicitation form or link from a server, and a server's use of the model
// (sampling). Without anyone to ask (-p with no terminal), each gets a safe answer and a line
// that says why.
import type { CreateMessageParams, ElicitParams, ElicitResult } from '../../protocol/params.js';
import { fillElicitation } from '../interact.js';
import type { StatusLine } from '../term.js';
import { truncate } from '../term.js';
import { EndOfInput, type LineInput } from './input.js';

/** A tool call waiting for the user's approval (the host's approval request). */
export interface ApprovalQuestion {
  name: string;
  server: string;
  tool: string;
  arguments: unknown;
  reason?: string;
}

export interface AskOptions {
  /** Where questions are answered; undefined when nobody can answer (-p without a terminal). */
  input: LineInput | undefined;
  status: StatusLine;
  /** --yes: approve what would be asked. */
  yes: boolean;
}

/** The host's `interaction`: how the user approves and answers, through one line reader. */
export interface ChatInteraction {
  /** None when nobody can be asked (no terminal, no --yes). */
  approve?(request: ApprovalQuestion, signal: AbortSignal): Promise<boolean>;
  elicit(request: { server: string; params: ElicitParams }, signal: AbortSignal): Promise<ElicitResult>;
  approveSampling(request: { server: string; params: CreateMessageParams }, signal: AbortSignal): Promise<boolean>;
}

/** `server › tool {"a":1}` on one line. */
export function callLabel(server: string, tool: string, args: unknown, width = 160): string {
  const json = args === undefined ? '' : JSON.stringify(args);
  const shown = json === '{}' || json === '' ? '' : ` ${truncate(json, Math.max(20, width - server.length - tool.length - 4))}`;
  return `${server} › ${tool}${shown}`;
}

/** A y/n/a answer: `true`, `false`, `'always'`, or undefined for anything else. */
export function parseApproval(raw: string): boolean | 'always' | undefined {
  const a = raw.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return true;
  if (a === 'n' || a === 'no' || a === '') return false;
  if (a === 'a' || a === 'always') return 'always';
  return undefined;
}

/**
 * Without a terminal (and without --yes) there is nobody to ask: no `approve` then, so the loop
 * tells the model just that (a call that needs approval, and no way to ask), not that the user
 * said no.
 */
export function chatInteraction(o: AskOptions): ChatInteraction {
  const asks = chatAsks(o);
  if (o.input !== undefined || o.yes) return asks;
  const { approve: _nobody, ...rest } = asks;
  return rest;
}

function chatAsks(o: AskOptions): Required<ChatInteraction> {
  const { status, input } = o;
  const s = status.style;
  const write = (text: string) => status.print(text.replace(/\n$/, ''));
  /** Tools the user said "always" to, by model-facing name, for this session. */
  const always = new Set<string>();

  return {
    async approve(request, signal) {
      const label = callLabel(request.server, request.tool, request.arguments);
      if (always.has(request.name) || o.yes) return true;
      // chatInteraction gives no approve() without a terminal: the view says so (approval by nobody).
      if (input === undefined) return false;
      status.clear();
      // The policy's words for a tool without annotations say little to a person at a prompt.
      const reason = request.reason === 'default policy' ? 'not marked read-only' : request.reason;
      const why = reason ? s.dim(` (${reason})`) : '';
      for (;;) {
        let raw: string;
        try {
          raw = await input.question(`${s.yellow('?')} Run ${s.bold(label)}${why}? ${s.dim('[y]es / [N]o / [a]lways for this tool')} `, signal);
        } catch (err) {
          if (err instanceof EndOfInput) return false;
          throw err;
        }
        const answer = parseApproval(raw);
        if (answer === undefined) continue;
        if (answer === 'always') always.add(request.name);
        return answer !== false;
      }
    },

    async elicit({ server, params }, signal) {
      if (input === undefined) {
        const message = (params as { message?: string }).message ?? '';
        status.print(`${s.yellow('!')} ${server} asked for input ("${message}") but there is no terminal to ask: declined.`);
        return { action: 'decline' };
      }
      status.clear();
      try {
        return await fillElicitation(params, (text) => input.question(text, signal), write, s, server);
      } catch (err) {
        if (err instanceof EndOfInput) return { action: 'cancel' };
        throw err;
      }
    },

    async approveSampling({ server, params }, signal) {
      if (o.yes) return true;
      if (input === undefined) {
        status.print(`${s.yellow('!')} ${server} asked to use the model (sampling): refused, there is no terminal to ask (--yes allows it)`);
        return false;
      }
      status.clear();
      const first = params.messages.at(-1);
      const blocks = first === undefined ? [] : Array.isArray(first.content) ? first.content : [first.content];
      const text = blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
      status.print(`${s.yellow('?')} ${s.bold(server)} asks to use the model (sampling, up to ${params.maxTokens} tokens): ${s.dim(truncate(text, 120))}`);
      for (;;) {
        let raw: string;
        try {
          raw = await input.question(`  Allow? ${s.dim('[y]es / [N]o')} `, signal);
        } catch (err) {
          if (err instanceof EndOfInput) return false;
          throw err;
        }
        const answer = parseApproval(raw);
        if (answer === true || answer === false) return answer;
      }
    },
  };
}
