/**
 * REST admission (DESIGN §3.8): at most `perClient` requests in flight per client (user + IP) and
 * `inflight` in all. A request that cannot start within `busyDelayMs` is refused as busy.
 * Real time: the busy delay is a transport timer, never the virtual clock.
 */
export interface RequestLimits {
  inflight: number;
  perClient: number;
  busyDelayMs: number;
}

export type Release = () => void;

interface Waiter {
  client: string;
  start: (release: Release) => void;
  timer: NodeJS.Timeout;
}

export class BusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('busy');
  }
}

export class RequestLimiter {
  private total = 0;
  private readonly perClient = new Map<string, number>();
  private waiters: Waiter[] = [];

  constructor(private readonly limits: () => RequestLimits) {}

  /** A release function when the request may start now, else null (then `acquire` waits). */
  tryAcquire(client: string): Release | null {
    return this.canStart(client) ? this.take(client) : null;
  }

  /** Resolves with a release function once the request may start; rejects with BusyError. */
  acquire(client: string): Promise<Release> {
    // Waiters are only ever blocked by a full limit (wake() runs on every release), so a request
    // that can start now jumps no one.
    if (this.canStart(client)) return Promise.resolve(this.take(client));
    const { busyDelayMs } = this.limits();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        client,
        start: resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new BusyError(Math.max(1, Math.ceil(busyDelayMs / 1000))));
        }, busyDelayMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Requests running now (for tests and metrics). */
  inFlight(client?: string): number {
    return client === undefined ? this.total : (this.perClient.get(client) ?? 0);
  }

  private canStart(client: string): boolean {
    const l = this.limits();
    return this.total < l.inflight && (this.perClient.get(client) ?? 0) < l.perClient;
  }

  private take(client: string): Release {
    this.total++;
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const n = (this.perClient.get(client) ?? 1) - 1;
      if (n > 0) this.perClient.set(client, n);
      else this.perClient.delete(client);
      this.wake();
    };
  }

  /** Starts waiters in arrival order, skipping those whose client is still at its limit. */
  private wake(): void {
    for (let i = 0; i < this.waiters.length && this.total < this.limits().inflight;) {
      const w = this.waiters[i];
      if (!this.canStart(w.client)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      clearTimeout(w.timer);
      w.start(this.take(w.client));
    }
  }
}
