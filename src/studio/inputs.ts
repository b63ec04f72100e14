// Requests of servers that wait for the person at the page: elicitation (a form, or a URL to
// visit) and sampling (the person plays the model). In the handshake era they arrive as server
// requests, in 2026-07-28 as the input requests of an `input_required` result; the client calls
// the same handlers for both (client/inputs.ts), so one queue serves both eras.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../engine/clock.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../protocol/params.js';
import type { PendingInput } from './api-types.js';

interface Waiting {
  input: PendingInput;
  /** Aborted when the server (or the call) gives up on the question. */
  signal: AbortSignal;
  resolve(answer: unknown): void;
  reject(err: Error): void;
}

export class InputQueue {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly clock: Clock,
    private readonly events: { added(input: PendingInput): void; done(id: string): void },
  ) {}

  list(): PendingInput[] {
    return [...this.waiting.values()].map((w) => w.input);
  }

  elicit(server: string, params: ElicitParams, signal: AbortSignal): Promise<ElicitResult> {
    return this.ask(server, 'elicitation', params as unknown as Record<string, unknown>, signal) as Promise<ElicitResult>;
  }

  /** `from`: `view` when an MCP App view of the server asks (not the server itself). */
  sample(server: string, params: CreateMessageParams, signal: AbortSignal, from?: 'view'): Promise<CreateMessageResult> {
    return this.ask(server, 'sampling', params as unknown as Record<string, unknown>, signal, from) as Promise<CreateMessageResult>;
  }

  /** A request still waiting, and the signal of its withdrawal. */
  pending(id: string): { input: PendingInput; signal: AbortSignal } | undefined {
    const w = this.waiting.get(id);
    return w ? { input: w.input, signal: w.signal } : undefined;
  }

  /** The page's answer. Returns false when no such request waits (answered, withdrawn). */
  answer(id: string, answer: unknown): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.settle(id);
    w.resolve(answer);
    return true;
  }

  /** The person refused to answer (sampling has no "decline" of its own: the server gets an error). */
  refuse(id: string, message: string): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.settle(id);
    w.reject(new McpError(ErrorCode.InvalidRequest, message));
    return true;
  }

  /** Withdraws every request of a server that went away. */
  dropServer(server: string): void {
    for (const [id, w] of this.waiting) if (w.input.server === server) this.refuse(id, `server "${server}" was removed from the studio`);
  }

  private ask(server: string, kind: PendingInput['kind'], params: Record<string, unknown>, signal: AbortSignal, from?: 'view'): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const id = randomUUID();
      const input: PendingInput = { id, server, kind, params, since: this.clock.now(), ...(from ? { from } : {}) };
      // The server (or the call) gave up: the question disappears from the page.
      const onAbort = () => {
        if (!this.waiting.has(id)) return;
        this.settle(id);
        reject(signal.reason instanceof Error ? signal.reason : new Error('the request was cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        input,
        signal,
        resolve: (a) => {
          signal.removeEventListener('abort', onAbort);
          resolve(a);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      this.events.added(input);
    });
  }

  private settle(id: string): void {
    this.waiting.delete(id);
    this.events.done(id);
  }
}
