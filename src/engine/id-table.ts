import type { RequestId } from '../jsonrpc/messages.js';

/**
 * Entries by request id, for a table that lives as long as its connection while one entry comes
 * and goes per request (requests awaiting answers, requests being answered, POSTs in flight).
 *
 * Not a Map, for the garbage collector's sake. A Map or Set whose table has reached V8's old
 * generation gets every rehashed table there too, and a table left behind by a rehash keeps the
 * entries it held. A long-lived Map with an entry per request rehashes every few dozen requests,
 * so the dead tables kept each request's objects (its promise, its callbacks, what they hold)
 * through the scavenges that should have freed them, and they were promoted: behind the gateway,
 * 5.8 KB per forwarded call, with a tenth of its CPU in scavenges (docs/performance.md).
 *
 * Integer ids, which is every id this library makes (they count up from 1), live in slots chosen
 * by the id's low bits and are cleared when the entry goes, so nothing stale stays reachable.
 * Any other id (a peer's string ids), or an id whose slot is taken by a request still in flight
 * since long before, goes to a Map, which the usual traffic then never touches.
 */
export class IdTable<V> {
  /** The id in each slot, -1 for none (numbers only: nothing for the collector to follow). */
  private ids = empty();
  private vals: Array<V | undefined> = new Array(8);
  /** How many slots are taken. */
  private n = 0;
  /** The ids that are not in slots. */
  private more: Map<RequestId, V> | undefined;

  get size(): number {
    return this.n + (this.more?.size ?? 0);
  }

  get(id: RequestId): V | undefined {
    const i = this.slotOf(id);
    return i < 0 ? this.more?.get(id) : this.vals[i];
  }

  set(id: RequestId, value: V): void {
    if (slotted(id)) {
      const i = id & (this.ids.length - 1);
      const held = this.ids[i];
      if (held === id) {
        this.vals[i] = value;
        return;
      }
      // A free slot, unless this id already waits beside it (it clashed when it came).
      if (held === -1 && !this.more?.has(id)) {
        this.ids[i] = id;
        this.vals[i] = value;
        // Kept at most half full; twice the slots keep apart the ids that were apart.
        if (++this.n * 2 > this.ids.length) this.place(this.slots(), this.ids.length * 2);
        return;
      }
    }
    (this.more ??= new Map()).set(id, value);
  }

  delete(id: RequestId): boolean {
    const i = this.slotOf(id);
    if (i < 0) return this.more?.delete(id) ?? false;
    this.ids[i] = -1;
    this.vals[i] = undefined;
    // Emptied after a burst: back to a few slots.
    if (--this.n === 0 && this.ids.length > 64) this.place([], 8);
    return true;
  }

  /** A copy of the entries (settling one may end others). */
  entries(): Array<[RequestId, V]> {
    const out: Array<[RequestId, V]> = this.slots();
    if (this.more) out.push(...this.more);
    return out;
  }

  /** The entries in slots. */
  private slots(): Array<[number, V]> {
    const out: Array<[number, V]> = [];
    for (let i = 0; i < this.ids.length; i++) if (this.ids[i]! >= 0) out.push([this.ids[i]!, this.vals[i] as V]);
    return out;
  }

  clear(): void {
    this.place([], 8);
    this.more = undefined;
  }

  private slotOf(id: RequestId): number {
    if (!slotted(id)) return -1;
    const i = id & (this.ids.length - 1);
    return this.ids[i] === id ? i : -1;
  }

  /** New slot arrays of `size` holding `entries` (ids from slots of half the size, or none). */
  private place(entries: Array<[number, V]>, size: number): void {
    // The old arrays may be in the old generation: emptied, they keep nothing alive (see above).
    this.vals.fill(undefined);
    this.ids = empty(size);
    this.vals = new Array(size);
    this.n = entries.length;
    for (const [id, value] of entries) {
      this.ids[id & (size - 1)] = id;
      this.vals[id & (size - 1)] = value;
    }
  }
}

const empty = (size = 8): number[] => new Array<number>(size).fill(-1);

/** Ids kept in slots: non-negative integers that bitwise operators take as they are. */
const slotted = (id: RequestId): id is number => typeof id === 'number' && id >= 0 && id <= 0x3fffffff && (id | 0) === id;
