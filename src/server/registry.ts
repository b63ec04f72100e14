import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { base64ToText, textToBase64url } from '../protocol/encoding.js';

/**
 * Handle returned by every registration: change what clients see at run time. `U` is what
 * `update` accepts (the registration's config fields plus `handler`).
 */
export interface Registered<U> {
  readonly name: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  /** Changes the definition in place (keeps its place in list order). */
  update(changes: U): void;
  remove(): void;
}

interface Entry<T> {
  key: string;
  def: T;
  enabled: boolean;
}

/**
 * An ordered, keyed set of definitions. Lists are served in registration order (deterministic,
 * as 2026-07-28 asks). Every visible change calls `onChange` synchronously; the owner coalesces
 * them (one list may span several registries, e.g. static and templated resources).
 */
export class Registry<T, U = Partial<T>> {
  private readonly entries = new Map<string, Entry<T>>();
  private snapshot: T[] | undefined;

  constructor(
    private readonly kind: string,
    private readonly onChange: () => void,
    private readonly recompile?: (def: T, changes: U) => T,
  ) {}

  /** `name` is what the handle reports (static resources are keyed by URI but named). */
  add(key: string, def: T, name: string = key): Registered<U> {
    if (this.entries.has(key)) throw new Error(`${this.kind} "${key}" is already registered`);
    const entry: Entry<T> = { key, def, enabled: true };
    this.entries.set(key, entry);
    this.changed();
    const self = this;
    return {
      name,
      get enabled() {
        return entry.enabled;
      },
      enable() {
        if (!entry.enabled) {
          entry.enabled = true;
          self.changed();
        }
      },
      disable() {
        if (entry.enabled) {
          entry.enabled = false;
          self.changed();
        }
      },
      update(changes) {
        entry.def = self.recompile ? self.recompile(entry.def, changes) : { ...entry.def, ...(changes as Partial<T>) };
        self.changed();
      },
      remove() {
        if (self.entries.get(key) === entry) {
          self.entries.delete(key);
          self.changed();
        }
      },
    };
  }

  /** The enabled definition under `key`, if any. */
  get(key: string): T | undefined {
    const e = this.entries.get(key);
    return e?.enabled ? e.def : undefined;
  }

  /** Enabled definitions in order; the array is cached until the next change. */
  list(): T[] {
    if (!this.snapshot) {
      this.snapshot = [];
      for (const e of this.entries.values()) if (e.enabled) this.snapshot.push(e.def);
    }
    return this.snapshot;
  }

  get size(): number {
    return this.entries.size;
  }

  private changed(): void {
    this.snapshot = undefined;
    this.onChange();
  }
}

/**
 * One page of a list. Cursors are opaque to clients (base64url of an offset); a cursor that
 * does not decode, or points past the end, is -32602 as the spec requires.
 */
export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined && cursor !== null) {
    if (typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "cursor" must be a string');
    const m = /^o(\d{1,9})$/.exec(base64ToText(cursor) ?? '');
    if (!m || Number(m[1]) > items.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown or expired cursor');
    start = Number(m[1]);
  }
  if (start === 0 && items.length <= pageSize) return { page: items as T[] };
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: textToBase64url(`o${end}`) } : { page };
}

/** A completer for `argument`, looked up as an own key so `constructor` or `__proto__` never match. */
export function ownCompleter<T>(table: Record<string, T> | undefined, argument: string): T | undefined {
  return table && Object.hasOwn(table, argument) ? table[argument] : undefined;
}
