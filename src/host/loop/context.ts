// What a Conversation and the answers to servers' requests share with their Host.
import type { Clock } from '../../engine/clock.js';
import type { ModelProvider } from '../model.js';
import type { ToolSource } from '../tool-source.js';
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
