// The user's side of `mcpkit chat`: one line reader over stdin for everything asked (the chat
// prompt, approvals, elicitation forms). One reader, not one per question: with stdin piped (a
// script answering), a reader that is closed takes the lines it had buffered with it.
import { createInterface, type Interface } from 'node:readline';
import type { CliIo } from '../io.js';

/** Thrown by {@link LineInput.question} when stdin has ended (Ctrl-D, end of a pipe). */
export class EndOfInput extends Error {
  constructor() {
    super('end of input');
    this.name = 'EndOfInput';
  }
}

export class LineInput {
  private readonly rl: Interface;
  private readonly lines: AsyncIterator<string>;
  /** A read a question gave up on (Ctrl-C): the line it gets belongs to the next question. */
  private pending: Promise<IteratorResult<string>> | undefined;
  /** Input ended, or close() was called (then whatever stdin still holds is left unread). */
  private closed = false;
  /** Whether the user types at a terminal (line editing, Ctrl-C arrives as a key). */
  readonly terminal: boolean;

  constructor(private readonly io: CliIo) {
    this.terminal = !!io.stdin.isTTY && !!io.stderr.isTTY;
    this.rl = createInterface({ input: io.stdin, output: io.stderr, terminal: this.terminal, historySize: this.terminal ? 100 : 0 });
    this.lines = this.rl[Symbol.asyncIterator]();
  }

  /**
   * Shows `prompt` and resolves to the next line; rejects with EndOfInput at the end of stdin,
   * and with the signal's reason when `signal` aborts first (the line then goes to the next question).
   */
  async question(prompt: string, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    if (this.closed) throw new EndOfInput();
    this.rl.setPrompt(prompt);
    this.rl.prompt();
    const read = (this.pending ??= this.lines.next());
    let result: IteratorResult<string>;
    if (signal === undefined) result = await read;
    else {
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        result = await Promise.race([read, aborted]);
      } finally {
        signal.removeEventListener('abort', onAbort!);
      }
    }
    this.pending = undefined;
    if (result.done) {
      this.closed = true;
      if (!this.terminal) this.io.stderr.write('\n');
      throw new EndOfInput();
    }
    // Piped answers are not echoed by a terminal: a transcript shows them after their question.
    if (!this.terminal) this.io.stderr.write(`${result.value}\n`);
    return result.value;
  }

  /** Ctrl-C typed at a terminal (readline takes the key, so no SIGINT is raised). */
  onInterrupt(handler: () => void): void {
    this.rl.on('SIGINT', handler);
  }

  /** Ends reading: a question waiting now, and every later one, gets EndOfInput. */
  close(): void {
    this.closed = true;
    this.rl.close();
  }
}
