import type { JsonObject } from '../jsonrpc/messages.js';

/**
 * A publish/subscribe channel shared by every instance of one deployment (`RedisBus` in
 * mcpkit/redis; `MemoryBus` for instances in one process). With it, what one instance raises
 * reaches clients connected to the others: resource updates, list changes and log messages,
 * a task's status for listen streams, and `tasks/update` / `tasks/cancel` for a task that runs
 * on another instance.
 */
export interface MessageBus {
  publish(message: string): Promise<void>;
  /**
   * Delivers every message published from now on (this instance's own included) to `onMessage`.
   * Resolves once subscribed, with a function that stops the delivery.
   */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;
}

/** What instances tell each other. Short keys: every message crosses the network. */
export type BusEvent =
  /** A server notification for the sessions and listen streams that want it. */
  | { k: 'notify'; m: string; p?: JsonObject }
  /** What a server extension on one instance relays to itself on the others (tasks: a task's new state, answers, cancels). */
  | { k: 'ext'; x: string; d: JsonObject };

export interface BusHandlers {
  notify(method: string, params: JsonObject | undefined): void;
  /** For the extension named `name`. */
  ext(name: string, data: JsonObject): void;
}

/**
 * The server's end of a MessageBus: stamps what it sends with this instance's id, drops its
 * own messages when they come back, and checks what arrives (a bus is shared infrastructure;
 * a malformed message is reported, never acted on).
 */
export class ServerBus {
  readonly origin = globalThis.crypto.randomUUID();
  /** Settles once subscribed (a failure is reported to onerror; sending still works). */
  readonly ready: Promise<void>;
  private stop: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly bus: MessageBus,
    private readonly handlers: BusHandlers,
    private readonly onerror: (e: Error) => void,
  ) {
    this.ready = bus
      .subscribe((text) => this.receive(text))
      .then(
        (stop) => {
          if (this.closed) void stop().catch(() => {});
          else this.stop = stop;
        },
        (e: unknown) => onerror(new Error(`message bus: cannot subscribe: ${errorText(e)}`)),
      );
  }

  /** Resolves once the bus has taken the event (never rejects: a failure goes to onerror). */
  send(event: BusEvent): Promise<void> {
    if (this.closed) return DONE;
    let text: string;
    try {
      text = JSON.stringify({ o: this.origin, ...event });
    } catch (e) {
      this.onerror(new Error(`message bus: cannot encode a ${event.k} event: ${errorText(e)}`));
      return DONE;
    }
    return this.bus.publish(text).catch((e: unknown) => this.onerror(new Error(`message bus: publish failed: ${errorText(e)}`)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.ready;
    const stop = this.stop;
    this.stop = undefined;
    await stop?.();
  }

  private receive(text: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.onerror(new Error('message bus: ignored a message that is not JSON'));
      return;
    }
    if (!msg || typeof msg !== 'object' || msg.o === this.origin) return;
    try {
      if (msg.k === 'notify' && typeof msg.m === 'string' && (msg.p === undefined || isObject(msg.p)))
        this.handlers.notify(msg.m, msg.p as JsonObject | undefined);
      else if (msg.k === 'ext' && typeof msg.x === 'string' && isObject(msg.d)) this.handlers.ext(msg.x, msg.d as JsonObject);
      else this.onerror(new Error(`message bus: ignored an unknown or malformed ${JSON.stringify(String(msg.k))} message`));
    } catch (e) {
      this.onerror(e instanceof Error ? e : new Error(String(e)));
    }
  }
}

/**
 * A bus for several servers in one process (tests, or a process hosting several instances).
 * Delivery is asynchronous, as over a network, so nothing relies on it being immediate.
 */
export class MemoryBus implements MessageBus {
  /** Replaced, never mutated, so a delivery in progress sees the subscribers it started with. */
  private listeners: ReadonlyArray<(message: string) => void> = [];

  async publish(message: string): Promise<void> {
    queueMicrotask(() => {
      for (const listener of this.listeners) listener(message);
    });
  }

  async subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    this.listeners = [...this.listeners, onMessage];
    return async () => {
      const i = this.listeners.indexOf(onMessage);
      if (i >= 0) this.listeners = [...this.listeners.slice(0, i), ...this.listeners.slice(i + 1)];
    };
  }
}

const DONE: Promise<void> = Promise.resolve();

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
