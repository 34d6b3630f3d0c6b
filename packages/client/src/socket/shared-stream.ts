/**
 * A client's one event socket, opened on first use and shared (the server allows one per user
 * and address). A failed open is forgotten, and so is a stream that gave up reconnecting, so the
 * next use opens a new one.
 */
export class SharedStream<S extends { close(): Promise<void> }> {
  private stream: Promise<S> | undefined;

  /** `onGaveUp` calls `forget` when the stream `s` gave up for good. */
  constructor(private readonly onGaveUp: (s: S, forget: () => void) => void) {}

  get(open: () => Promise<S>): Promise<S> {
    if (!this.stream) {
      this.stream = open();
      this.stream.then(
        (s) => this.onGaveUp(s, () => this.forget(s)),
        () => (this.stream = undefined),
      );
    }
    return this.stream;
  }

  async close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (stream) await (await stream.catch(() => undefined))?.close();
  }

  private forget(s: S): void {
    void this.stream?.then((current) => {
      if (current === s) this.stream = undefined;
    });
  }
}
