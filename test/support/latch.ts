// Hand-made promises for tests: a deferred to resolve from outside, a latch to count arrivals.

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T | PromiseLike<T>): void;
  reject(reason?: unknown): void;
  /** Whether resolve or reject has been called. */
  readonly settled: boolean;
}

/** A promise with its resolve/reject in hand (a handler can block on it until the test says go). */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  let settled = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    promise,
    resolve: (v) => ((settled = true), resolve(v)),
    reject: (e) => ((settled = true), reject(e)),
    get settled() {
      return settled;
    },
  };
}

export interface Latch {
  /** Counts one arrival; the latch opens at the `count`-th. */
  arrive(): void;
  /** Resolves once `count` arrivals have been counted. */
  readonly opened: Promise<void>;
  readonly arrivals: number;
}

/** Opens after `count` arrivals (default 1): "wait until the handler has started twice". */
export function latch(count = 1): Latch {
  const d = deferred();
  let arrivals = 0;
  if (count <= 0) d.resolve();
  return {
    arrive() {
      if (++arrivals === count) d.resolve();
    },
    opened: d.promise,
    get arrivals() {
      return arrivals;
    },
  };
}
