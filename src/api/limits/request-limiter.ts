import type { SharedInflight } from '../../core/shared-security.js';
import { TakeBack } from './take-back.js';

/**
 * REST admission (docs/decisions.md §1.8): at most `perClient` requests in flight per client
 * (principal + IP) and `inflight` in all. A request that cannot start within `busyDelayMs` is refused as busy.
 * Real time: the busy delay is a transport timer, never the virtual clock.
 *
 * In a cluster (`shared`), a client's requests on the other nodes count against `perClient` too,
 * as those nodes last announced them; `inflight` stays this node's. A client admitted on two
 * nodes at once, before either heard of the other, is over its limit for a moment: the node that
 * yields takes back slots whose request has not started (`revocable`), as late admissions.
 * A request with no client (`null`: one another node forwarded here, counted for its client by
 * the node it reached) counts in `inflight` only.
 */
export interface RequestLimits {
  inflight: number;
  perClient: number;
  busyDelayMs: number;
}

export type Release = () => void;

interface Waiter {
  client: string | null;
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
  /** Cluster only: the slots that may still be taken back. */
  private readonly takeBack = new TakeBack();

  constructor(
    private readonly limits: () => RequestLimits,
    private readonly shared?: SharedInflight,
  ) {
    shared?.onHeard((client) => this.heard(client));
  }

  /** Whether other nodes' counts apply (then slots may be taken back: `revocable`). */
  get clustered(): boolean {
    return this.shared !== undefined;
  }

  /** A release function when the request may start now, else null (then `acquire` waits). */
  tryAcquire(client: string | null): Release | null {
    return this.canStart(client) ? this.take(client) : null;
  }

  /** Resolves with a release function once the request may start; rejects with BusyError. */
  acquire(client: string | null): Promise<Release> {
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

  /**
   * Cluster only: `revoke` is called should this node give up one of the client's slots (it was
   * over its limit across nodes): the caller then releases that slot and waits anew. Returns
   * the end of that offer (call it once the request starts, and when it ends).
   */
  offer(client: string, revoke: () => void): () => void {
    return this.takeBack.offer(client, revoke);
  }

  private canStart(client: string | null): boolean {
    const l = this.limits();
    if (this.total >= l.inflight) return false;
    if (client === null) return true;
    const here = this.perClient.get(client)?.n ?? 0;
    if (this.shared === undefined) return here < l.perClient;
    return here + this.shared.elsewhere(client) < l.perClient;
  }

  /**
   * Another node's count of `client` changed: slots it freed may start waiters, and if the
   * client is over its limit, this node keeps `perClient - ahead` of its slots and takes back the
   * newest revocable ones beyond that (the nodes ahead keep theirs: one rule, so no slot is
   * given up twice).
   */
  private heard(client: string): void {
    if (this.waiters.length > 0) this.wake();
    const here = this.perClient.get(client)?.n ?? 0;
    this.takeBack.shed(client, here, this.limits().perClient, this.shared!.ahead(client));
  }

  private take(client: string | null): Release {
    if (client === null) return this.takeUncounted();
    let count = this.perClient.get(client);
    if (!count) {
      if (this.perClient.size >= IDLE_CLIENTS_MAX) this.forgetIdle();
      count = { n: 0 };
      this.perClient.set(client, count);
    }
    const c = count;
    this.total++;
    c.n++;
    this.shared?.changed(client, c.n);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      c.n--;
      this.shared?.changed(client, c.n);
      if (this.waiters.length > 0) this.wake();
    };
  }

  private takeUncounted(): Release {
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
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
