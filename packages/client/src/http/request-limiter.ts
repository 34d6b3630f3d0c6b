/**
 * At most `max` requests in flight; the rest wait their turn in order. Both APIs count
 * concurrent requests per client (3 by default) and answer 503 after a busy delay beyond that,
 * so a client that queues locally never meets that 503 by its own doing.
 */
export class RequestLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError('maxInFlight must be at least 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
