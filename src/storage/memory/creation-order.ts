/**
 * @module creation-order — the embedded store's rows in creation order (their `order`), so a
 * listing walks back from its cursor, newest first, and a bulk resubmit forward from the
 * oldest, instead of copying and sorting every row.
 * A pruned row leaves a hole; the holes go once they are half the list.
 */
import type { Row } from "./row.ts";

export class CreationOrder {
  #rows: (Row | undefined)[] = [];
  /** Each slot's order, holes included: ascending, for the binary searches. */
  #orders: number[] = [];
  #holes = 0;

  add(row: Row): void {
    const orders = this.#orders;
    const at = orders.length === 0 || orders[orders.length - 1] < row.order
      ? orders.length
      : this.#firstAtLeast(row.order);
    if (at === orders.length) {
      orders.push(row.order);
      this.#rows.push(row);
    } else {
      orders.splice(at, 0, row.order);
      this.#rows.splice(at, 0, row);
    }
  }

  remove(row: Row): void {
    const i = this.#firstAtLeast(row.order);
    if (this.#rows[i] !== row) return;
    this.#rows[i] = undefined;
    if (++this.#holes > 1024 && this.#holes * 2 > this.#rows.length) this.#compact();
  }

  /** The rows made before `before` (an order; Infinity: all), newest first. */
  *newestFirst(before: number): Generator<Row> {
    const rows = this.#rows;
    for (let i = this.#firstAtLeast(before) - 1; i >= 0; i--) {
      const row = rows[i];
      if (row !== undefined) yield row;
    }
  }

  /** Every row, oldest first. */
  *oldestFirst(): Generator<Row> {
    for (const row of this.#rows) if (row !== undefined) yield row;
  }

  /** The first slot whose order is at least `order` (the length when none is). */
  #firstAtLeast(order: number): number {
    const orders = this.#orders;
    let lo = 0, hi = orders.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (orders[mid] < order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #compact(): void {
    const rows: Row[] = [], orders: number[] = [];
    for (const row of this.#rows) {
      if (row === undefined) continue;
      rows.push(row);
      orders.push(row.order);
    }
    this.#rows = rows;
    this.#orders = orders;
    this.#holes = 0;
  }
}
