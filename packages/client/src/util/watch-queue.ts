import { AsyncQueue } from './async-queue.js';

/** What a watch yields after its initial state. */
export type WatchUpdate<E, S> =
  | { type: 'event'; event: E }
  /** After a reconnect: the state read again (events while disconnected were lost). Replace yours. */
  | { type: 'resync'; state: S };

/**
 * The order a watch delivers in: events that arrive while the state is read are held, and
 * delivered after it, so none falls between the read and the subscription. After a reconnect the
 * same happens again (`resync`).
 */
export class WatchQueue<E, S> implements AsyncIterable<WatchUpdate<E, S>> {
  private readonly queue = new AsyncQueue<WatchUpdate<E, S>>();
  private held: E[] | null = [];

  /** `keep` filters the events (held ones when they are released). */
  constructor(
    private readonly readState: () => Promise<S>,
    private readonly keep: (event: E) => boolean = () => true,
  ) {}

  event(event: E): void {
    if (this.held) this.held.push(event);
    else if (this.keep(event)) this.queue.push({ type: 'event', event });
  }

  async resync(): Promise<void> {
    this.held ??= [];
    try {
      this.queue.push({ type: 'resync', state: await this.readState() });
    } catch (error) {
      this.queue.fail(error);
    }
    this.release();
  }

  fail(error: unknown): void {
    this.queue.fail(error);
  }

  end(): void {
    this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchUpdate<E, S>> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** Delivers the held events: the initial state is read and in place. */
  release(): void {
    const held = (this.held ?? []).filter((e) => this.keep(e));
    this.held = null;
    for (const event of held) this.queue.push({ type: 'event', event });
  }
}
