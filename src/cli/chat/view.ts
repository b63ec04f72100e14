// How `mcpkit chat` shows a turn: the answer streamed on stdout as it comes, and on stderr (above
// the progress bar) each tool call with its server and arguments, its progress, and its result,
// collapsed when long (the whole of it kept for /show).
import type { CallToolResult } from '../../protocol/params.js';
import { renderCallResult } from '../render.js';
import { truncate, visibleLength, type StatusLine } from '../term.js';
import type { CliWritable } from '../io.js';
import { callLabel } from './ask.js';
import type { HostEvent } from '../../host/loop/types.js';

export interface ViewOptions {
  /** Where the answer goes (stdout). */
  out: CliWritable;
  /** stderr, with the progress bar. */
  status: StatusLine;
  /** Stream the answer as it comes (interactive); otherwise the caller prints it at the end. */
  stream: boolean;
  /** Server stderr and connection steps too. */
  verbose: boolean;
  /** Show nothing (-p with --log-format json: stderr is for the JSON lines). */
  quiet?: boolean;
  /** The model's name, on the spinner while it thinks. */
  model?: string;
  /** Lines of a result shown before it is collapsed. Default 8. */
  maxLines?: number;
  /** What to say about a collapsed result, given its number (`/show 3 prints it all`). */
  hint?: (n: number) => string;
}

/** A tool call as the user saw it, numbered for /show. */
export interface ShownCall {
  n: number;
  id: string;
  label: string;
  tool: string;
  /** The whole result as text (rendered), once it came. */
  text?: string;
  isError?: boolean;
}

/** The result's text cut to `maxLines` lines of at most `width` columns, and how many lines were left out. */
export function collapse(text: string, maxLines: number, width: number): { shown: string; hidden: number } {
  const lines = text.replace(/\n$/, '').split('\n');
  const cut = lines.length > maxLines ? lines.slice(0, maxLines - 1) : lines;
  const shown = cut.map((l) => (visibleLength(l) > width ? truncate(l, width) : l)).join('\n');
  return { shown, hidden: lines.length - cut.length };
}

export class ChatView {
  /** Every tool call of the session, in order. */
  readonly calls: ShownCall[] = [];
  private readonly byId = new Map<string, ShownCall>();
  /** The call whose progress the bar shows. */
  private barFor: string | undefined;
  /** Whether stdout is at the start of a line (the answer streams without a final newline). */
  private atLineStart = true;
  private readonly maxLines: number;
  /** The model's spinner is up. */
  private thinking = false;

  constructor(private readonly o: ViewOptions) {
    this.maxLines = o.maxLines ?? 8;
  }

  private get s() {
    return this.o.status.style;
  }

  private width(): number {
    return this.o.status.columns - 4;
  }

  /** Ends a streamed answer's line before anything is printed below it. */
  private breakLine(): void {
    if (this.atLineStart) return;
    this.o.out.write('\n');
    this.atLineStart = true;
  }

  private print(text: string): void {
    this.breakLine();
    this.o.status.print(text);
  }

  handle(event: HostEvent): void {
    if (this.o.quiet) return;
    const s = this.s;
    switch (event.type) {
      case 'model_start':
        // Until the first token (a local model may take a while): a spinner on a terminal.
        if (this.barFor === undefined) this.o.status.begin(this.o.model ?? 'model', 'thinking…');
        this.thinking = true;
        return;
      case 'text':
        if (!this.o.stream || event.delta === '') return;
        this.stopThinking();
        this.o.out.write(event.delta);
        this.atLineStart = event.delta.endsWith('\n');
        return;
      case 'model_end':
        this.stopThinking();
        this.breakLine();
        return;
      case 'tool_call': {
        const call: ShownCall = {
          n: this.calls.length + 1,
          id: event.id,
          tool: event.tool,
          label: callLabel(event.server, event.tool, event.arguments, this.width()),
        };
        this.calls.push(call);
        this.byId.set(event.id, call);
        this.print(`${s.cyan('→')} ${s.dim(`[${call.n}]`)} ${s.bold(call.label)}`);
        return;
      }
      case 'approval': {
        if (event.approved) return;
        if (event.by === 'nobody') {
          const label = this.byId.get(event.id)?.label ?? event.name;
          this.print(`${s.yellow('!')} ${label}: refused, it needs approval and there is no terminal to ask (--yes approves such calls)`);
        } else this.print(`${s.red('✖')} ${event.name}: ${event.by === 'user' ? 'not approved' : 'not allowed by the approval policy'}`);
        return;
      }
      case 'tool_progress': {
        const call = this.byId.get(event.id);
        this.stopThinking();
        if (this.barFor !== event.id) {
          this.o.status.begin(call ? `[${call.n}] ${call.tool}` : event.id);
          this.barFor = event.id;
        }
        this.o.status.progress({ progress: event.progress, total: event.total, message: event.message });
        return;
      }
      case 'tool_result':
        this.result(event.id, event.name, event.result, event.isError, event.truncated, event.durationMs);
        return;
      case 'tool_error': {
        this.endBar(event.id);
        const call = this.byId.get(event.id);
        if (call) {
          call.text = event.message;
          call.isError = true;
        }
        this.print(`${s.red('✖')} ${call ? s.dim(`[${call.n}] `) : ''}${event.name}: ${event.message}`);
        return;
      }
      case 'code_run': {
        // The program, as the model wrote it, before any of its calls is shown or asked about.
        const { shown, hidden } = collapse(event.code, Math.max(this.maxLines, 12), this.width());
        const more = hidden > 0 ? `\n  ${s.dim(`… ${hidden} more line${hidden === 1 ? '' : 's'}`)}` : '';
        this.print(`${s.cyan('→')} ${s.bold('program')}\n${s.dim(shown.replace(/^/gm, '  '))}${more}`);
        return;
      }
      case 'code_result': {
        const mark = event.isError ? s.red('✖') : s.green('✔');
        const calls = `${event.calls} call${event.calls === 1 ? '' : 's'}`;
        const { shown, hidden } = collapse(event.text, this.maxLines, this.width());
        const more = hidden > 0 ? `\n  ${s.dim(`… ${hidden} more line${hidden === 1 ? '' : 's'}`)}` : '';
        this.print(`${mark} program ${s.dim(`${calls}, ${(event.durationMs / 1000).toFixed(1)}s`)}\n${shown.replace(/^/gm, '  ')}${more}`);
        return;
      }
      case 'sampling':
        this.print(s.dim(`  ${event.server} used the model (sampling)`));
        return;
      case 'server':
        this.server(event.event);
        return;
      default:
        return;
    }
  }

  private stopThinking(): void {
    if (!this.thinking) return;
    this.thinking = false;
    if (this.barFor === undefined) this.o.status.clear();
  }

  /** The bar goes when its call ends: the result line below says how it ended. */
  private endBar(id: string): void {
    if (this.barFor !== id) return;
    this.o.status.clear();
    this.barFor = undefined;
  }

  private result(id: string, name: string, result: CallToolResult, isError: boolean, truncated: boolean, durationMs: number): void {
    const s = this.s;
    this.endBar(id);
    const call = this.byId.get(id);
    const text = renderCallResult(result).replace(/\n$/, '');
    if (call) {
      call.text = text;
      call.isError = isError;
    }
    const mark = isError ? s.red('✖') : s.green('✔');
    const took = s.dim(`${(durationMs / 1000).toFixed(1)}s`);
    const cut = truncated ? s.dim(' (cut for the model: its head and tail were sent)') : '';
    const head = `${mark} ${call ? s.dim(`[${call.n}] `) : ''}${name}${isError ? s.red(' returned an error') : ''} ${took}${cut}`;
    const { shown, hidden } = collapse(text, this.maxLines, this.width());
    const body = shown === '' ? '' : `\n${shown.replace(/^/gm, '  ')}`;
    const more = hidden > 0 ? `\n  ${s.dim(`… ${hidden} more line${hidden === 1 ? '' : 's'}${call && this.o.hint ? `: ${this.o.hint(call.n)}` : ''}`)}` : '';
    this.print(`${head}${body}${more}`);
  }

  private server(e: Extract<HostEvent, { type: 'server' }>['event']): void {
    const s = this.s;
    switch (e.type) {
      case 'failed':
        this.print(
          `${s.yellow('!')} ${e.server}: ${e.error.message}${e.retryInMs !== undefined ? s.dim(` (trying again in ${Math.round(e.retryInMs / 1000)}s)`) : ''}`,
        );
        return;
      case 'closed':
        this.print(`${s.yellow('!')} ${e.server} went away${e.error ? `: ${e.error.message}` : ''}`);
        return;
      case 'connected':
        if (this.o.verbose)
          this.print(
            s.dim(`  ${e.server} connected (${e.era}${e.protocolVersion ? ` ${e.protocolVersion}` : ''}, ${e.tools} tool${e.tools === 1 ? '' : 's'})`),
          );
        return;
      case 'stderr':
        if (this.o.verbose) this.print(s.dim(`${e.server} │ ${e.line}`));
        return;
      case 'error':
        if (this.o.verbose) this.print(s.dim(`${e.server}: ${e.error.message}`));
        return;
      default:
        return;
    }
  }

  /** The whole text of call `n`, for /show. */
  full(n: number): ShownCall | undefined {
    return this.calls[n - 1];
  }
}
