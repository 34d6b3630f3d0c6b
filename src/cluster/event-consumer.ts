/**
 * Every node's side of the cluster's event stream: one ordered consumer on every tenant's subject
 * (`<prefix>.ev.>`, one filter: JetStream 2.9), from a given sequence on, handing each event with
 * its stream sequence to the node's subscribers in stream order, one at a time. The client
 * library recreates an ordered consumer that missed a message, lost its connection or was
 * deleted on the server, from the last sequence it delivered; should the consumer stop for good,
 * it is started again after the last sequence handed on. `position` is that sequence, and
 * `reached` lets a caller wait until the node has been handed everything up to a given one.
 *
 * It is the library's pull-based ordered consumer with a pull always outstanding, so messages
 * flow as they are stored, as with a push consumer; unlike the push flavour (whose heartbeat is
 * fixed at 30 s), it notices a lost consumer within seconds (docs/decisions.md, "Cluster events").
 */
import type { ConsumerMessages, JetStreamClient } from '@nats-io/jetstream';
import type { PlatformEvent } from '../api/platform-events.js';
import { decodeEvent } from './event-codec.js';
import { EPOCH_HEADER } from './event-publisher.js';

/** Messages asked for per pull; the next pull goes out at three quarters of them. */
const BATCH = 1024;
/** A pull's lifetime; heartbeats at half of it tell a lost consumer within two of them. */
const EXPIRES_MS = 5_000;

/** Who published a message, read from its headers when `wantsOrigin` says so. */
export interface Origin {
  /** The message id (the publisher confirms its own by it). */
  msgId: string | undefined;
  /** The publisher's lease epoch on the event's tenant. */
  epoch: number | undefined;
  /** Recognized as this node's own by its bytes (and confirmed then: `recognize`). */
  own?: true;
}

export type SequencedHandler = (event: PlatformEvent, seq: number, origin?: Origin) => void;

export interface ConsumerStats {
  /** Events handed to the subscribers. */
  consumed: number;
  /** Messages that were not an event (skipped). */
  undecodable: number;
  /** Times the consumer had to be started again. */
  restarts: number;
}

interface Waiter {
  seq: number;
  done: (reached: boolean) => void;
}

export class EventConsumer {
  readonly stats: ConsumerStats = { consumed: 0, undecodable: 0, restarts: 0 };
  private messages: ConsumerMessages | undefined;
  private waiters: Waiter[] = [];
  private closed = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly subject: string,
    /** The last sequence already handled: consuming starts after it. */
    private last: number,
    private readonly deliver: SequencedHandler,
    private readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
    /** False once the connection is closed for good: then nothing is started again. */
    private readonly connected: () => boolean = () => true,
    /**
     * Whether to read the origin of a message not recognized as this node's own (its headers,
     * read only when asked: while this node's publisher recovers, and for the events whose
     * publisher a subscriber must know).
     */
    private readonly wantsOrigin: (event: PlatformEvent) => boolean = () => false,
    /** This node's own event by its bytes (its publisher's): its origin, read without headers. */
    private readonly recognize: (subject: string, data: Uint8Array) => Origin | undefined = () => undefined,
  ) {}

  /** The sequence of the last event handed on (or the one consuming started after). */
  get position(): number {
    return this.last;
  }

  /** Consumes from after `position` on (again, after a `close`). */
  async start(): Promise<void> {
    this.closed = false;
    const consumer = await this.js.consumers.get(this.stream, {
      filter_subjects: this.subject,
      opt_start_seq: this.last + 1,
    });
    const messages = await consumer.consume({
      max_messages: BATCH,
      expires: EXPIRES_MS,
      callback: (m) => {
        // After a restart the consumer may offer again what was handed on already.
        if (m.seq <= this.last) return;
        let event: PlatformEvent | undefined;
        try {
          event = decodeEvent(m.data);
        } catch (err) {
          this.stats.undecodable++;
          this.log.error({ err, seq: m.seq, subject: m.subject }, 'undecodable event in the stream');
        }
        this.last = m.seq;
        if (event) {
          this.stats.consumed++;
          const origin =
            this.recognize(m.subject, m.data) ?? (this.wantsOrigin(event) ? originOf(m.headers) : undefined);
          this.deliver(event, m.seq, origin);
        }
        if (this.waiters.length > 0) this.wake();
      },
    });
    this.messages = messages;
    void messages.closed().then((err) => {
      if (this.closed || !this.connected()) return;
      this.stats.restarts++;
      this.log.warn({ err, after: this.last }, 'event consumer stopped; starting it again');
      setTimeout(() => void this.restart(), 250).unref?.();
    });
  }

  /** Resolves true once every event up to `seq` was handed on; false after `timeoutMs`. */
  reached(seq: number, timeoutMs: number): Promise<boolean> {
    if (this.last >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w: Waiter = { seq, done: resolve };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(false);
      }, timeoutMs);
      timer.unref?.();
      w.done = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.waiters.push(w);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.done(false);
    await this.messages?.close();
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.seq <= this.last);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > this.last);
    for (const w of ready) w.done(true);
  }

  private async restart(): Promise<void> {
    if (this.closed || !this.connected()) return;
    try {
      await this.start();
    } catch (err) {
      this.log.error({ err }, 'event consumer could not start again; retrying');
      setTimeout(() => void this.restart(), 1_000).unref?.();
    }
  }
}

function originOf(h: { get(k: string): string } | undefined): Origin {
  const epoch = h?.get(EPOCH_HEADER);
  return { msgId: h?.get('Nats-Msg-Id') || undefined, epoch: epoch ? Number(epoch) : undefined };
}
