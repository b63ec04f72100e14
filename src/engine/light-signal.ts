// An abort signal without an EventTarget, for the per-request paths: on Node 20 an AbortController
// and an 'abort' listener on its signal cost microseconds each (and garbage the scavenger must
// trace), per request. The client transports abort their requests with one; the gateway's relay
// gives one to every forwarded call. Code that needs a real AbortSignal (fetch, AbortSignal.any,
// a handler given a signal) asks for it with `realSignal`: made once, on first use.

/** An abort listener: a function, or an object whose `handleEvent` is called (no closure needed). */
type Listener = (() => void) | { handleEvent(): void };

/**
 * The surface of an AbortSignal that the engine, the client and the transports use (`aborted`,
 * `reason`, 'abort' listeners), and `signal`, a real AbortSignal following it, made when asked for.
 */
export class LightSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Set<Listener> | undefined = undefined;
  private controller: AbortController | undefined = undefined;

  /** Aborts with `reason` (callers give an Error saying why); listeners are called once. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners)
      for (const f of listeners) {
        if (typeof f === 'function') f();
        else f.handleEvent();
      }
  }

  /** Called once, when aborted (never after): a function, or an object's `handleEvent`, as EventTarget calls them. */
  addEventListener(_type: 'abort', f: Listener, _options?: unknown): void {
    if (!this.aborted) (this.listeners ??= new Set()).add(f);
  }

  removeEventListener(_type: 'abort', f: Listener): void {
    this.listeners?.delete(f);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** An AbortSignal that follows this. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Whether `signal` is the real AbortSignal made from this one. */
  made(signal: unknown): boolean {
    return this.controller !== undefined && this.controller.signal === signal;
  }

  /** This, typed as the AbortSignal it stands in for where only its light surface is used (see realSignal). */
  get asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}

/** A real AbortSignal for `s`, which may be a LightSignal passed as one. */
export function realSignal(s: AbortSignal): AbortSignal;
export function realSignal(s: AbortSignal | undefined): AbortSignal | undefined;
export function realSignal(s: AbortSignal | undefined): AbortSignal | undefined {
  return (s as unknown) instanceof LightSignal ? (s as unknown as LightSignal).signal : s;
}
