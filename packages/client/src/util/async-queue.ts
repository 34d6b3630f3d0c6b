/**
 * An unbounded queue read with `for await`: `push` never waits, the reader takes items in
 * order, `end` finishes the iteration once the queue is drained, `fail` ends it with an error.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private readonly readers: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }[] = [];
  private ended = false;
  private error: unknown;

  push(item: T): void {
    if (this.ended) return;
    const reader = this.readers.shift();
    if (reader) reader.resolve({ value: item, done: false });
    else this.items.push(item);
  }

  end(): void {
    this.ended = true;
    for (const r of this.readers.splice(0)) r.resolve({ value: undefined, done: true });
  }

  fail(error: unknown): void {
    this.error = error;
    this.ended = true;
    for (const r of this.readers.splice(0)) r.reject(error);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.ended) {
      return this.error === undefined
        ? Promise.resolve({ value: undefined, done: true })
        : Promise.reject(this.error);
    }
    return new Promise((resolve, reject) => this.readers.push({ resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => {
        this.end();
        return { value: undefined, done: true };
      },
    };
  }
}
