/**
 * A binary min-heap of scheduled entries by their next due moment, so a tick touches only the
 * checks that are due (O(due · log n)) instead of walking all of them: at 10,000 checks the walk
 * cost more than the claims it found.
 */
export interface Due {
  nextDueMs: number;
}

export class DueHeap<T extends Due> {
  readonly #items: T[];

  constructor(items: Iterable<T> = []) {
    this.#items = [...items];
    for (let index = (this.#items.length >> 1) - 1; index >= 0; index--) this.#down(index);
  }

  get size(): number {
    return this.#items.length;
  }

  /** The earliest entry, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    this.#items.push(item);
    this.#up(this.#items.length - 1);
  }

  /** Removes and returns the earliest entry. */
  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#down(0);
    }
    return top;
  }

  #up(index: number): void {
    const items = this.#items;
    const item = items[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (items[parent]!.nextDueMs <= item.nextDueMs) break;
      items[index] = items[parent]!;
      index = parent;
    }
    items[index] = item;
  }

  #down(index: number): void {
    const items = this.#items;
    const item = items[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && items[right]!.nextDueMs < items[left]!.nextDueMs ? right : left;
      if (items[child]!.nextDueMs >= item.nextDueMs) break;
      items[index] = items[child]!;
      index = child;
    }
    items[index] = item;
  }
}
