// What a Conversation and the answers to servers' requests share with their Host.
import type { Clock } from '../../engine/clock.js';
import type { ModelProvider, ModelRequest, ModelResponse } from '../model.js';
import type { ToolSource } from '../../pool/tool-source.js';
import type { HostEvent, HostInteraction, HostOptions } from './types.js';

export interface LoopContext {
  tools: ToolSource;
  model: ModelProvider;
  options: HostOptions;
  interaction: HostInteraction;
  clock: Clock;
  /** To the Host's listeners. */
  emit(event: HostEvent): void;
  /** Events of no one conversation (server, sampling, elicitation): to the Host and to every send running. */
  broadcast(event: HostEvent): void;
  /** The `onEvent` of every send running. */
  readonly sends: Set<(event: HostEvent) => void>;
  /** Aborted by Host.close(). */
  readonly closed: AbortSignal;
}

/** Calls a listener; its bug must not break the loop. */
export function safeCall(fn: ((event: HostEvent) => void) | undefined, event: HostEvent): void {
  if (!fn) return;
  try {
    fn(event);
  } catch {
    // ignored on purpose: see above
  }
}

/** A model turn, through the observer's hook when there is one. */
export function completeObserved(
  ctx: LoopContext,
  request: ModelRequest,
  onEvent: Parameters<ModelProvider['complete']>[1],
  server?: string,
): Promise<ModelResponse> {
  const run = () => ctx.model.complete(request, onEvent);
  const hook = ctx.options.observer?.modelCall;
  if (!hook) return run();
  const info = { provider: ctx.model.kind, model: ctx.model.model, request, ...(server === undefined ? {} : { server }) };
  return hook.call(ctx.options.observer, info, run);
}
