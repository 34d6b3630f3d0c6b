/**
 * REST admission (docs/decisions.md §1.8): at most `perClient` requests in flight per client
 * (principal + IP) and `inflight` in all. A request that cannot start within `busyDelayMs` is refused as busy.
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

/**
 * A client's requests in flight. Kept while idle: deleting and re-adding a Map entry per request
 * made V8 shrink and rehash the Map (seen in the request-path profile).
 */
interface ClientCount {
  n: number;
}

/** Idle clients are forgotten once this many are known. */
const IDLE_CLIENTS_MAX = 10_000;

export class RequestLimiter {
  private total = 0;
  private readonly perClient = new Map<string, ClientCount>();
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
    return client === undefined ? this.total : (this.perClient.get(client)?.n ?? 0);
  }

  /** Clients the limiter holds a counter for, idle ones included (for tests). */
  knownClients(): number {
    return this.perClient.size;
  }

  private canStart(client: string): boolean {
    const l = this.limits();
    return this.total < l.inflight && (this.perClient.get(client)?.n ?? 0) < l.perClient;
  }

  private take(client: string): Release {
    let count = this.perClient.get(client);
    if (!count) {
      if (this.perClient.size >= IDLE_CLIENTS_MAX) this.forgetIdle();
      count = { n: 0 };
      this.perClient.set(client, count);
    }
    const c = count;
    this.total++;
    c.n++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      c.n--;
      if (this.waiters.length > 0) this.wake();
    };
  }

  private forgetIdle(): void {
    for (const [client, count] of this.perClient) if (count.n === 0) this.perClient.delete(client);
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
