/**
 * The owner's side of the cluster's event stream. Each event is published in the order the
 * switch raised it, as a plain NATS publish on the node's one connection (JetStream stores the
 * messages of one connection in the order they arrive), under a message id. There is no
 * acknowledgement on the hot path: a JetStream acknowledgement is a request per event, which cost
 * about as much CPU as the rest of the event's way to the sockets (docs/decisions.md, "Cluster
 * events"). The node's own consumer reads every event back anyway, so it confirms each one
 * (`confirm`): in order, a few milliseconds later.
 *
 * An event not confirmed in time, or skipped (a later one of this publisher confirmed first), or
 * whose publish threw, starts a recovery that keeps the order: new events are held back, then the
 * unconfirmed and the held ones are published again one at a time, in order, as acknowledged
 * JetStream publishes under their first message ids, so one that did land the first time is not
 * stored twice (JetStream's duplicate window). Only an event that failed while a later one was
 * stored can end up out of place: counted (`reordered`) and logged. An event still failing after
 * the retry window is dropped, counted (`lost`) and logged; so is one whose lease ended before its
 * retry (`isCurrent`): the lease lapsed or was taken (a node hands a tenant over only once none of
 * its events is `pending`), its next owner took the tenant over from its durable state and has
 * published since, so the old owner's late event would reach subscribers after the new owner's.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';

export interface PublisherStats {
  /** Events stored in the stream (confirmed or acknowledged). */
  published: number;
  /** Events not confirmed in time, skipped, or whose publish or acknowledged retry failed. */
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
  /** The publisher's lease epoch on the event's tenant, sent as the `Sb-Epoch` header. */
  epoch: number | undefined;
  tenantId: number | undefined;
  sentAt: number;
  /** When its first try was known to have failed. */
  failedAt?: number;
}

export interface PublisherOptions {
  /** Unique per process: message ids are `<prefix><ordinal>`. */
  msgIdPrefix: string;
  /** How long an event may go unconfirmed before it counts as failed. */
  confirmTimeoutMs?: number;
  /** How long a failed event is retried before it is given up. */
  retryWindowMs?: number;
  /** Events held back during a recovery, at most (beyond: dropped as lost). */
  maxHeld?: number;
  /** Whether this node still holds the lease an event was raised under (checked before a retry). */
  isCurrent?: (tenantId: number, epoch: number) => boolean;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export class EventPublisher {
  readonly stats: PublisherStats = { published: 0, failures: 0, reordered: 0, lost: 0 };
  private ordinal = 0;
  private maxStored = 0;
  /** Published, not yet confirmed, in publish order. */
  private inFlight: Outgoing[] = [];
  private recoveringNow = false;
  private failed: Outgoing[] = [];
  private held: Outgoing[] = [];
  /** The event the recovery is publishing again now. */
  private retrying: Outgoing | undefined;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Waiting until every event up to `ordinal` is stored (or given up), in the order they came. */
  private storedWaiters: { ordinal: number; done: () => void }[] = [];
  private closed = false;

  constructor(
    private readonly nc: Pick<NatsConnection, 'publish'>,
    private readonly js: Pick<JetStreamClient, 'publish'>,
    private readonly options: PublisherOptions,
  ) {}

  /** Whether a consumed message's id is one of this publisher's (this process published it). */
  published(msgId: string | undefined): boolean {
    return msgId?.startsWith(this.options.msgIdPrefix) ?? false;
  }

  /** Whether `confirm` wants the consumed messages' ids (only while some are awaited). */
  get awaiting(): boolean {
    return this.inFlight.length > 0 || this.recoveringNow;
  }

  /** `epoch`: the lease on `tenantId` this node raised the event under (consumers compare them). */
  publish(subject: string, data: Uint8Array, epoch?: number, tenantId?: number): void {
    const ordinal = ++this.ordinal;
    const m: Outgoing = {
      ordinal,
      subject,
      data,
      msgId: `${this.options.msgIdPrefix}${ordinal}`,
      epoch,
      tenantId,
      sentAt: Date.now(),
    };
    if (this.recoveringNow) {
      if (this.held.length >= (this.options.maxHeld ?? 100_000)) this.give(m, 'too many events held back');
      else this.held.push(m);
      return;
    }
    try {
      this.nc.publish(subject, data, { headers: headersOf(m) });
    } catch (err) {
      this.fail([m], err);
      return;
    }
    this.inFlight.push(m);
    this.arm();
  }

  /** Whether an awaited event can be confirmed only by its message id (a recovery is under way). */
  get recovering(): boolean {
    return this.recoveringNow;
  }

  /**
   * A message this node consumed, by its subject and bytes: when they are those of the oldest
   * awaited event (the stream stores this connection's messages in order, so that is the next of
   * its own to come back), confirms it and answers who published it. Saves the owner reading the
   * headers of each of its own events back (their decoding was a tenth of its allocations). Only
   * the oldest is compared: an event stored past a lost one is not recognized, and is confirmed
   * by the time-out's recovery under its message id (stored once: the duplicate window).
   */
  recognize(
    subject: string,
    data: Uint8Array,
  ): { msgId: string; epoch: number | undefined; own: true } | undefined {
    const m = this.inFlight[0];
    if (!m || m.subject !== subject || m.data.length !== data.length || Buffer.compare(m.data, data) !== 0)
      return undefined;
    this.confirmOrdinal(m.ordinal);
    return { msgId: m.msgId, epoch: m.epoch, own: true };
  }

  /**
   * A message this node consumed from the stream, by its message id: confirms an event of this
   * publisher, and tells it that any earlier one still awaited was skipped.
   */
  confirm(msgId: string | undefined): void {
    if (!msgId || !this.published(msgId)) return;
    this.confirmOrdinal(Number(msgId.slice(this.options.msgIdPrefix.length)));
  }

  private confirmOrdinal(ordinal: number): void {
    const late = this.failed.findIndex((m) => m.ordinal === ordinal);
    if (late >= 0) {
      // Stored after all (a slow confirmation): it needs no retry.
      this.failed.splice(late, 1);
      this.stored(ordinal, true);
      this.settle();
      return;
    }
    let skipped = 0;
    while (skipped < this.inFlight.length && this.inFlight[skipped]!.ordinal < ordinal) skipped++;
    const head = this.inFlight[skipped];
    if (head?.ordinal !== ordinal) return;
    const missing = this.inFlight.splice(0, skipped + 1);
    missing.pop();
    this.stored(ordinal, false);
    if (missing.length > 0) this.fail(missing, new Error('skipped: a later event was stored first'));
    this.arm();
    this.settle();
  }

  /** Whether an event of the tenant is not stored yet (awaited, failed or held back). */
  pending(tenantId: number): boolean {
    const of = (ms: Outgoing[]) => ms.some((m) => m.tenantId === tenantId);
    return this.retrying?.tenantId === tenantId || of(this.inFlight) || of(this.failed) || of(this.held);
  }

  /** Resolves once nothing is awaited or held (bounded by the retry window). */
  idle(): Promise<void> {
    if (!this.awaiting) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves once every event published so far is stored in the stream (or given up), whatever
   * is published after: a read on any node that catches up with the stream from then on sees them.
   */
  storedSoFar(): Promise<void> {
    const ordinal = this.ordinal;
    if (this.closed || this.oldestUnstored() > ordinal) return Promise.resolve();
    return new Promise((done) => this.storedWaiters.push({ ordinal, done }));
  }

  /** The ordinal of the oldest event not stored yet (awaited, failed, retried or held); Infinity when none. */
  private oldestUnstored(): number {
    let oldest = Math.min(this.inFlight[0]?.ordinal ?? Infinity, this.retrying?.ordinal ?? Infinity);
    for (const m of this.failed) oldest = Math.min(oldest, m.ordinal);
    return Math.min(oldest, this.held[0]?.ordinal ?? Infinity);
  }

  /** Stops retrying: whatever is still failed or held is given up. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.storedWaiters.splice(0)) w.done();
  }

  /** Times the oldest awaited event out: one timer, set when none is, checking the head. */
  private arm(): void {
    const head = this.inFlight[0];
    if (this.timer || !head || this.closed) return;
    const wait = head.sentAt + this.confirmTimeoutMs - Date.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const oldest = this.inFlight[0];
        if (oldest && Date.now() - oldest.sentAt >= this.confirmTimeoutMs)
          this.fail(this.inFlight.splice(0), new Error('not confirmed in time'));
        else this.arm();
      },
      Math.max(0, wait),
    );
    this.timer.unref?.();
  }

  private get confirmTimeoutMs(): number {
    return this.options.confirmTimeoutMs ?? 5_000;
  }

  private stored(ordinal: number, reorderedUnlessDuplicate: boolean): void {
    this.stats.published++;
    if (reorderedUnlessDuplicate && ordinal < this.maxStored) {
      this.stats.reordered++;
      this.options.log.error({ ordinal }, 'event stored out of order after a failed publish');
    }
    this.maxStored = Math.max(this.maxStored, ordinal);
  }

  private fail(ms: Outgoing[], err: unknown): void {
    if (ms.length === 0) return;
    this.stats.failures += ms.length;
    this.options.log.warn(
      { err, events: ms.length, first: ms[0]!.msgId },
      'event publish not confirmed; publishing again in order',
    );
    const now = Date.now();
    for (const m of ms) m.failedAt ??= now;
    this.failed.push(...ms);
    if (this.recoveringNow) return;
    this.recoveringNow = true;
    // Whatever is still awaited goes after the failed ones, in order.
    this.failed.push(...this.inFlight.splice(0));
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.recover();
  }

  private async recover(): Promise<void> {
    let delay = 50;
    for (;;) {
      this.failed.sort((a, b) => a.ordinal - b.ordinal);
      const m = this.failed.shift() ?? this.held.shift();
      this.retrying = m;
      if (!m) break;
      const since = m.failedAt ?? Date.now();
      for (;;) {
        if (this.closed || Date.now() - since > (this.options.retryWindowMs ?? 60_000)) {
          this.give(m, this.closed ? 'publisher closed' : 'retry window passed');
          break;
        }
        const { isCurrent } = this.options;
        if (
          isCurrent &&
          m.tenantId !== undefined &&
          m.epoch !== undefined &&
          !isCurrent(m.tenantId, m.epoch)
        ) {
          this.give(m, 'its lease ended');
          break;
        }
        try {
          const ack: PubAck = await this.js.publish(m.subject, m.data, {
            msgID: m.msgId,
            headers: headersOf(m),
          });
          // A duplicate landed the first time, in its place.
          if (ack.duplicate) this.stored(m.ordinal, false);
          else this.stored(m.ordinal, m.failedAt !== undefined);
          delay = 50;
          break;
        } catch (err) {
          this.stats.failures++;
          m.failedAt ??= since;
          this.options.log.warn({ err, msgId: m.msgId }, 'event publish retry failed');
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 2_000);
        }
      }
      // Stored or given up: no longer being published again.
      this.retrying = undefined;
      this.settle();
    }
    this.recoveringNow = false;
    this.settle();
  }

  private settle(): void {
    if (!this.awaiting) for (const w of this.idleWaiters.splice(0)) w();
    if (this.storedWaiters.length === 0) return;
    // In the order they came, so in the order of their ordinals: the ready ones are in front.
    const oldest = this.oldestUnstored();
    let ready = 0;
    while (ready < this.storedWaiters.length && this.storedWaiters[ready]!.ordinal < oldest) ready++;
    for (const w of this.storedWaiters.splice(0, ready)) w.done();
  }

  private give(m: Outgoing, why: string): void {
    this.stats.lost++;
    this.options.log.error({ subject: m.subject, msgId: m.msgId, why }, 'event dropped: not published');
  }
}

/** The header that carries the publisher's lease epoch on the event's tenant. */
export const EPOCH_HEADER = 'Sb-Epoch';

function headersOf(m: Outgoing) {
  // `append` on a new set: `set` would first look each name up to delete it.
  const h = headers();
  h.append('Nats-Msg-Id', m.msgId);
  if (m.epoch !== undefined) h.append(EPOCH_HEADER, String(m.epoch));
  return h;
}
