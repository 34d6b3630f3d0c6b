import type { Clock, TimerHandle } from '../../../core/clock.js';
import { FINISHED_KEPT, type StoredDelivery, type WebhookAttempt } from '../../../core/webhooks.js';
import type { SendResult } from './sender.js';

/** The retry policy and bounds of deliveries (flags; docs/events.md "Retries"). */
export interface RetryPolicy {
  /** First retry after about this long; each next one waits twice as long. */
  baseDelayMs: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
  /** A delivery is given up this long after its first attempt. */
  retryWindowMs: number;
}

/** Pending deliveries per webhook; beyond it a new event is recorded as failed at once. */
export const MAX_PENDING = 10_000;

export interface QueueHost {
  clock: Clock;
  policy: RetryPolicy;
  /** Makes one attempt (sign, POST) of `d` now. */
  attempt(d: StoredDelivery): Promise<SendResult>;
  /** Stores `d` as it is now. */
  save(d: StoredDelivery): void;
  /** The webhook's `failing` mark changed. */
  failing(value: boolean): void;
}

/** Wait before retry `n` (1-based): exponential, capped, with full jitter over its upper half. */
export function backoff(policy: RetryPolicy, n: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(n - 1, 40));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * One webhook's deliveries, sent one at a time in order: the next is not tried before the one
 * ahead of it succeeded or was given up. Waits between tries are timers on the server's clock,
 * so the virtual clock advances them too.
 */
export class DeliveryQueue {
  readonly pending: StoredDelivery[] = [];
  readonly finished: StoredDelivery[] = [];
  private busy = false;
  private timer: TimerHandle | undefined;
  private stopped = false;
  nextPosition = 1;

  constructor(private readonly host: QueueHost) {}

  /** Adds a delivery at the end and starts sending when idle. */
  push(d: StoredDelivery): void {
    this.nextPosition = Math.max(this.nextPosition, d.position + 1);
    if (this.pending.length >= MAX_PENDING) {
      d.status = 'failed';
      d.attempts.push({ at: this.host.clock.now(), latencyMs: 0, error: 'queue full' });
      this.finish(d);
      this.host.failing(true);
      return;
    }
    this.pending.push(d);
    this.kick();
  }

  /** A delivery of the log or the queue, by id. */
  find(id: string): StoredDelivery | undefined {
    return this.pending.find((d) => d.id === id) ?? this.finished.find((d) => d.id === id);
  }

  /** Stops sending (the webhook was deleted or the server is closing). */
  stop(): void {
    this.stopped = true;
    this.host.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  private kick(): void {
    if (this.busy || this.timer || this.stopped || this.pending.length === 0) return;
    this.busy = true;
    void this.tryHead().finally(() => {
      this.busy = false;
      this.kick();
    });
  }

  private async tryHead(): Promise<void> {
    const d = this.pending[0];
    const started = this.host.clock.now();
    const t0 = performance.now();
    // An attempt that throws, even before it returns its promise, is a failed try, not a stall.
    const result = await Promise.resolve()
      .then(() => this.host.attempt(d))
      .catch((err: unknown): SendResult => ({ error: err instanceof Error ? err.message : String(err) }));
    if (this.stopped) return;
    const attempt: WebhookAttempt = {
      at: started,
      latencyMs: Math.round(performance.now() - t0),
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
    d.attempts.push(attempt);
    if (result.error === undefined) {
      d.status = 'delivered';
      this.pending.shift();
      this.finish(d);
      this.host.failing(false);
      return;
    }
    const first = d.attempts[0].at;
    const wait = backoff(this.host.policy, d.attempts.length);
    if (this.host.clock.now() + wait - first > this.host.policy.retryWindowMs) {
      d.status = 'failed';
      this.pending.shift();
      this.finish(d);
      this.host.failing(true);
      return;
    }
    this.host.save(d);
    this.timer = this.host.clock.setTimer(wait, () => {
      this.timer = undefined;
      this.kick();
    });
  }

  private finish(d: StoredDelivery): void {
    this.host.save(d);
    this.finished.push(d);
    if (this.finished.length > FINISHED_KEPT) this.finished.splice(0, this.finished.length - FINISHED_KEPT);
  }
}
