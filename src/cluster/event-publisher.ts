/**
 * The owner's side of the cluster's event stream: each event is published to JetStream in the
 * order the switch raised it, without waiting for the acknowledgement of the one before (a
 * JetStream publish is a request on the node's one connection, and the server stores the
 * requests of one connection in the order they arrive). Acknowledgements are awaited in the
 * background.
 *
 * A failed acknowledgement (time-out, no stream, connection lost) starts a recovery that keeps
 * the order: new events are held back, the publishes still in flight are let settle, then every
 * failed event and every held one is published again one at a time, in order, each under its
 * first message id, so a publish that did land the first time is not stored twice (JetStream's
 * duplicate window). Only an event whose first try failed while a later one was stored can end
 * up out of place; that is counted (`reordered`) and logged. An event that still fails after
 * the retry window is dropped, counted (`lost`) and logged.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';

export interface PublisherStats {
  /** Events stored in the stream (acknowledged). */
  published: number;
  /** Acknowledgements that failed (each may be retried). */
  failures: number;
  /** Events stored after a later one, because their first try failed and the later one's did not. */
  reordered: number;
  /** Events given up after the retry window. */
  lost: number;
}

interface Outgoing {
  ordinal: number;
  subject: string;
  data: Uint8Array;
  msgId: string;
  firstFailure?: number;
}

export interface PublisherOptions {
  /** Unique per process: message ids are `<prefix><ordinal>`. */
  msgIdPrefix: string;
  /** How long a failed event is retried before it is given up. */
  retryWindowMs?: number;
  /** Events held back during a recovery, at most (beyond: dropped as lost). */
  maxHeld?: number;
  /** Time-out of one acknowledgement. */
  ackTimeoutMs?: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export class EventPublisher {
  readonly stats: PublisherStats = { published: 0, failures: 0, reordered: 0, lost: 0 };
  private ordinal = 0;
  private inFlight = 0;
  private maxAcked = 0;
  private recovering = false;
  private failed: Outgoing[] = [];
  private held: Outgoing[] = [];
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly options: PublisherOptions,
  ) {}

  publish(subject: string, data: Uint8Array): void {
    const ordinal = ++this.ordinal;
    const m: Outgoing = { ordinal, subject, data, msgId: `${this.options.msgIdPrefix}${ordinal}` };
    if (this.recovering) {
      if (this.held.length >= (this.options.maxHeld ?? 100_000)) this.give(m, 'too many events held back');
      else this.held.push(m);
      return;
    }
    this.inFlight++;
    this.send(m).then(
      (ack) => {
        this.inFlight--;
        this.acked(m, ack);
        this.settle();
      },
      (err: unknown) => {
        this.inFlight--;
        this.stats.failures++;
        this.options.log.warn({ err, subject, msgId: m.msgId }, 'event publish not acknowledged; retrying');
        m.firstFailure = Date.now();
        this.failed.push(m);
        this.recovering = true;
        this.settle();
      },
    );
  }

  /** Resolves once nothing is in flight or held (bounded by the retry window). */
  idle(): Promise<void> {
    if (this.inFlight === 0 && !this.recovering) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops retrying: whatever is still failed or held is given up. */
  close(): void {
    this.closed = true;
  }

  private send(m: Outgoing): Promise<PubAck> {
    return this.js.publish(m.subject, m.data, {
      msgID: m.msgId,
      ...(this.options.ackTimeoutMs ? { timeout: this.options.ackTimeoutMs } : {}),
    });
  }

  private acked(m: Outgoing, ack: PubAck): void {
    this.stats.published++;
    if (m.firstFailure !== undefined && !ack.duplicate && m.ordinal < this.maxAcked) {
      this.stats.reordered++;
      this.options.log.error(
        { subject: m.subject, msgId: m.msgId, seq: ack.seq },
        'event stored out of order after a failed publish',
      );
    }
    this.maxAcked = Math.max(this.maxAcked, m.ordinal);
  }

  /** Once every publish in flight has settled: recover, or tell the waiters all is stored. */
  private settle(): void {
    if (this.inFlight > 0) return;
    if (this.recovering) {
      if (this.failed.length > 0) void this.recover();
      return;
    }
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private async recover(): Promise<void> {
    const queue = this.failed.sort((a, b) => a.ordinal - b.ordinal);
    this.failed = [];
    let delay = 50;
    while (queue.length > 0 || this.held.length > 0) {
      const m = queue.shift() ?? this.held.shift()!;
      const since = m.firstFailure ?? Date.now();
      for (;;) {
        if (this.closed || Date.now() - since > (this.options.retryWindowMs ?? 60_000)) {
          this.give(m, this.closed ? 'publisher closed' : 'retry window passed');
          break;
        }
        try {
          this.acked(m, await this.send(m));
          delay = 50;
          break;
        } catch (err) {
          this.stats.failures++;
          m.firstFailure ??= since;
          this.options.log.warn({ err, subject: m.subject, msgId: m.msgId }, 'event publish retry failed');
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 2_000);
        }
      }
    }
    this.recovering = false;
    this.settle();
  }

  private give(m: Outgoing, why: string): void {
    this.stats.lost++;
    this.options.log.error({ subject: m.subject, msgId: m.msgId, why }, 'event dropped: not published');
  }
}
