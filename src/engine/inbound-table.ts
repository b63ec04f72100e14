import type { RequestId } from '../jsonrpc/messages.js';
import { IdTable } from './id-table.js';

/**
 * The inbound requests a peer is answering, by id. One at a time is the usual case (every
 * stateless HTTP request, most moments of a connection): it lives in a field, and a table is made
 * only once a second request overlaps it (then kept), so most peers never allocate one; an
 * IdTable, not a Map, for the reason given there. Generic over what it holds (an R), so this file
 * imports nothing of the engine's but that table.
 */
export class InboundTable<R extends { readonly request: { readonly id: RequestId } }> {
  private solo: R | undefined;
  private map: IdTable<R> | undefined;

  get size(): number {
    return this.map ? this.map.size : this.solo ? 1 : 0;
  }

  get(id: RequestId): R | undefined {
    if (this.map) return this.map.get(id);
    const solo = this.solo;
    return solo !== undefined && solo.request.id === id ? solo : undefined;
  }

  add(inbound: R): void {
    if (this.map) this.map.set(inbound.request.id, inbound);
    else if (this.solo === undefined) this.solo = inbound;
    else {
      this.map = new IdTable();
      this.map.set(this.solo.request.id, this.solo);
      this.map.set(inbound.request.id, inbound);
      this.solo = undefined;
    }
  }

  delete(inbound: R): void {
    if (this.map) {
      if (this.map.get(inbound.request.id) === inbound) this.map.delete(inbound.request.id);
    } else if (this.solo === inbound) this.solo = undefined;
  }

  /** A copy: cancelling one may end others. */
  list(): R[] {
    return this.map ? this.map.entries().map((e) => e[1]) : this.solo ? [this.solo] : [];
  }

  clear(): void {
    this.map?.clear();
    this.solo = undefined;
  }
}
