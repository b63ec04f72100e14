/**
 * What a call's `ctx.step`s recorded, as a sealed `requestState` carries it: by name, `[]` for
 * a step that returned nothing, `[value]` otherwise.
 */
export type StepRecords = Record<string, [] | [unknown]>;

/**
 * How much JSON the steps of one call may record. Their results travel in every `requestState`
 * of the call (and so in every retry the client sends): a receipt or an id, not a document.
 */
export const MAX_STEP_CHARS = 64 * 1024;

/**
 * The steps of one call (`ctx.step(name, fn)`): each name runs its function once, and its
 * result is kept as JSON text, so that a replay of the handler (a retry that reached another
 * instance) gets the recorded value instead of running the function again. Both eras use it,
 * so a handler sees the same values, with the same checks, wherever it runs.
 */
export class StepLog {
  /** Results by name, as JSON text ('' for undefined). */
  private readonly done = new Map<string, string>();
  private running: Map<string, Promise<unknown>> | undefined;
  private chars = 0;

  constructor(recorded?: unknown) {
    if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) return;
    for (const [name, r] of Object.entries(recorded)) {
      // The state is sealed, so this is what an instance of this deployment recorded.
      if (Array.isArray(r)) this.keep(name, r.length === 0 ? '' : JSON.stringify(r[0]));
    }
  }

  run<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    if (typeof name !== 'string' || name === '') return Promise.reject(new TypeError('ctx.step(name, fn): name must be a non-empty string'));
    if (typeof fn !== 'function') return Promise.reject(new TypeError(`ctx.step("${name}", fn): fn must be a function`));
    const text = this.done.get(name);
    if (text !== undefined) return Promise.resolve(parse(text) as T);
    // The same name again while it runs: one run, both callers get its result.
    const pending = this.running?.get(name);
    if (pending !== undefined) return pending as Promise<T>;
    const p = this.exec(name, fn);
    (this.running ??= new Map()).set(name, p);
    return p;
  }

  /** Settles once no step is running (a round is sealed with every result in hand). */
  async idle(): Promise<void> {
    while (this.running !== undefined && this.running.size > 0) await Promise.allSettled(this.running.values());
  }

  /** What a sealed state carries; undefined when nothing was recorded. */
  records(): StepRecords | undefined {
    if (this.done.size === 0) return undefined;
    const out: StepRecords = {};
    for (const [name, text] of this.done) out[name] = text === '' ? [] : [JSON.parse(text)];
    return out;
  }

  private async exec<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    try {
      const value = await fn();
      this.keep(name, encode(name, value));
      // A copy: what a replay would get, and the handler cannot change what is recorded.
      return parse(this.done.get(name)!) as T;
    } finally {
      this.running!.delete(name);
    }
  }

  private keep(name: string, text: string): void {
    const total = this.chars + text.length;
    if (total > MAX_STEP_CHARS) {
      throw new TypeError(
        `ctx.step("${name}"): the results of one call's steps may take ${MAX_STEP_CHARS} characters of JSON (they travel in requestState); this one brings them to ${total}. Record an id, not the data`,
      );
    }
    this.chars = total;
    this.done.set(name, text);
  }
}

function encode(name: string, value: unknown): string {
  if (value === undefined) return '';
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`ctx.step("${name}"): its result is not JSON (${err instanceof Error ? err.message : String(err)}); it must travel in requestState`);
  }
  if (text === undefined) throw new TypeError(`ctx.step("${name}"): its result (a ${typeof value}) is not JSON; it must travel in requestState`);
  return text;
}

function parse(text: string): unknown {
  return text === '' ? undefined : JSON.parse(text);
}
