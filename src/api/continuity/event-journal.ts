import type { Logger } from 'pino';
import type { EventLogPort, EventStreamSource, LoggedEvent, StreamHead } from '../../core/event-stream.js';
import type { PlatformEvent } from '../platform-events.js';
import { sizeOf, Stream } from './journal-stream.js';
import { StreamBackfill } from './stream-backfill.js';

/** How an API renders the events it owns for the journal; null: not one of its events. */
export type JournalRenderer = (e: PlatformEvent) => Omit<LoggedEvent, 'tenantId' | 'seq'> | null;

export interface JournalOptions {
  /** Events retained per tenant. */
  retentionEvents: number;
  /** Bytes of rendered events retained per tenant. */
  retentionBytes: number;
}

/** Sequences are reserved this many ahead, so a crash can never make one be issued twice. */
const RESERVE = 1000;
/** Durable writes are batched for this long (wall time: durability is not simulated). */
const FLUSH_MS = 20;
/** Stored rows are pruned once this many have fallen out of memory. */
const PRUNE_STEP = 500;

/**
 * Each tenant's events in order, each with its sequence (increasing, never reused), retained in
 * memory within bounds and written through the port in batches. Only tenants someone follows (a
 * resumable session, live or within its grace) are journaled: for the others an event costs one
 * map lookup, so sockets that did not ask for resume pay nothing measurable. Subscribed to the bus
 * before the fan-outs, which ask `sequenceOf` for the event they are delivering.
 *
 * In a cluster (`overStream`) the sequences are the cluster event stream's, handed in with each
 * event by the bus, the same on every node; nothing is stored here (the stream is durable), and
 * what this node did not keep of a tenant (its sessions lived elsewhere, or it started later) is
 * read back from the stream before a resume (`ready`, stream-backfill.ts).
 */
export class EventJournal {
  private readonly streams = new Map<number, Stream>();
  private readonly followers = new Map<number, number>();
  private followAll = 0;
  private readonly renderers: JournalRenderer[] = [];
  private current: PlatformEvent | undefined;
  private currentSeq = 0;
  private pending: LoggedEvent[] = [];
  private readonly moved = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Cluster: the stream's sequence this journal began to see events after. */
  private base = 0;
  private backfill: StreamBackfill | undefined;

  private constructor(
    private readonly port: EventLogPort | undefined,
    private readonly options: JournalOptions,
    private readonly log: Logger,
    private readonly source?: EventStreamSource<PlatformEvent>,
  ) {}

  /**
   * A cluster node's journal over the cluster's event stream (docs/cluster.md, "Events"); it must
   * be subscribed to the node's bus at once, so it sees every event after `source.position()`.
   */
  static overStream(
    source: EventStreamSource<PlatformEvent>,
    options: JournalOptions,
    log: Logger,
  ): EventJournal {
    const journal = new EventJournal(undefined, options, log, source);
    journal.base = source.position();
    journal.backfill = new StreamBackfill(source, (e) => journal.render(e), log);
    return journal;
  }

  /** Whether sequences are the cluster stream's (a resume may need `ready` first). */
  get clustered(): boolean {
    return this.source !== undefined;
  }

  static async open(port: EventLogPort, options: JournalOptions, log: Logger): Promise<EventJournal> {
    const journal = new EventJournal(port, options, log);
    const { heads, events } = await port.load(options.retentionEvents);
    for (const h of heads) {
      const s = new Stream(h.tenantId, h.nextSeq, h.nextSeq);
      // Not closed cleanly: the last events issued may be lost, so nothing resumes across them.
      if (!h.clean) s.crashFloor = h.nextSeq;
      journal.streams.set(h.tenantId, s);
    }
    for (const e of events) {
      const s = journal.streams.get(e.tenantId);
      if (s && e.seq < s.next) journal.retain(s, e);
    }
    return journal;
  }

  addRenderer(r: JournalRenderer): void {
    this.renderers.push(r);
  }

  /** Starts journaling a tenant's events (null: every tenant's). */
  follow(tenantId: number | null): void {
    if (tenantId === null) this.followAll++;
    else this.followers.set(tenantId, (this.followers.get(tenantId) ?? 0) + 1);
  }

  unfollow(tenantId: number | null): void {
    if (tenantId === null) this.followAll = Math.max(0, this.followAll - 1);
    else {
      const n = (this.followers.get(tenantId) ?? 0) - 1;
      if (n > 0) this.followers.set(tenantId, n);
      else this.followers.delete(tenantId);
    }
  }

  /** The bus handler (`seq`: the event's stream sequence, in a cluster). */
  readonly onEvent = (e: PlatformEvent, seq?: number): void => {
    this.current = undefined;
    if (this.closed || !('tenantId' in e)) return;
    if (this.source) return this.onStreamEvent(e, seq);
    const t = e.tenantId;
    if (this.followAll === 0 && !this.followers.has(t)) return;
    for (const render of this.renderers) {
      const r = render(e);
      if (!r) continue;
      const s = this.stream(t);
      const entry: LoggedEvent = { tenantId: t, seq: s.next++, ...r };
      if (s.next > s.reserved - RESERVE / 2) {
        s.reserved = s.next + RESERVE;
        this.moved.add(s);
      }
      this.retain(s, entry);
      this.pending.push(entry);
      this.schedule();
      this.current = e;
      this.currentSeq = entry.seq;
      return;
    }
  };

  /** The sequence of the event being delivered right now, when it is journaled. */
  sequenceOf(e: PlatformEvent): number | undefined {
    return this.current === e ? this.currentSeq : undefined;
  }

  /**
   * The sequence of the tenant's last event (0 before its first). In a cluster: where this node
   * stands in the stream, which no later event of any tenant can be at or below.
   */
  last(tenantId: number): number {
    if (this.source) return this.source.position();
    return (this.streams.get(tenantId)?.next ?? 1) - 1;
  }

  /**
   * Every retained event of the tenant after `after`, in order; undefined when they are not all
   * retained (evicted, lost in a crash) or `after` lies in the future.
   */
  since(tenantId: number, after: number): readonly LoggedEvent[] | undefined {
    const s = this.streams.get(tenantId);
    if (!Number.isSafeInteger(after) || after < 0 || after > this.last(tenantId)) return undefined;
    if (this.source) {
      if (after < (s?.complete ?? this.base)) return undefined;
    } else if (s && after < Math.max(s.firstRetained(), s.crashFloor) - 1) return undefined;
    if (!s) return [];
    let lo = s.head;
    let hi = s.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s.entries[mid].seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return s.entries.slice(lo);
  }

  /**
   * Cluster: makes `since(t, after)` answer for each cursor (unless the stream no longer holds the
   * events): waits until this node has seen everything published so far, then reads back from the
   * stream what it did not keep. The tenants stay followed until the returned release is called.
   */
  async ready(
    cursors: readonly { tenantId: number; after: number }[],
    /** Rejects (the tenants no longer followed) when reading the stream back failed. */
    strict = false,
  ): Promise<() => void> {
    for (const c of cursors) this.follow(c.tenantId);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const c of cursors) this.unfollow(c.tenantId);
    };
    if (!this.source || !this.backfill) return release;
    try {
      if (!(await this.source.caughtUp())) this.log.warn({}, 'resume: this node lags the event stream');
      for (const { tenantId, after } of cursors) {
        const s = this.stream(tenantId);
        if (Number.isSafeInteger(after) && after >= 0 && after < s.complete)
          await this.backfill.fill(s, after, (st) => this.trim(st));
      }
    } catch (err) {
      this.log.warn({ err }, 'resume: reading the event stream back failed');
      if (strict) {
        release();
        throw err;
      }
    }
    return release;
  }

  /** Writes what is pending; resolves once it is stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.pending;
    const heads = [...this.moved].map((s): StreamHead => ({
      tenantId: s.tenantId,
      nextSeq: s.reserved,
      clean: false,
    }));
    this.pending = [];
    this.moved.clear();
    const port = this.port;
    if (!port || (events.length === 0 && heads.length === 0)) return this.writing;
    this.writing = this.writing
      .then(() => port.append(events, heads))
      .then(() => this.prune())
      .catch((err) => this.log.error({ err }, 'event journal write failed'));
    return this.writing;
  }

  /** Flushes and records the exact heads as cleanly closed; later events are not journaled. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    this.closed = true;
    await this.flush();
    if (!this.port) return;
    const port = this.port;
    const heads = [...this.streams.values()].map((s) => ({
      tenantId: s.tenantId,
      nextSeq: s.next,
      clean: true,
    }));
    await port.closeClean(heads).catch((err) => this.log.error({ err }, 'event journal close failed'));
  }

  /** Cluster: every tenant's event moves its stream; a followed tenant's is kept. */
  private onStreamEvent(e: PlatformEvent, seq: number | undefined): void {
    if (seq === undefined) return;
    const s = this.stream(e.tenantId);
    s.next = seq + 1;
    this.current = e;
    this.currentSeq = seq;
    if (this.followAll === 0 && !this.followers.has(e.tenantId)) {
      s.complete = seq;
      // What was kept while the tenant was followed is all at or before `complete` now: a
      // read-back puts the events after a cursor in front of what is kept, which must then be
      // only what follows `complete`, or a resume skips the events read back or gets some twice.
      if (s.entries.length > s.head) {
        s.entries = [];
        s.head = 0;
        s.bytes = 0;
      }
      return;
    }
    const r = this.render(e);
    if (r) this.retain(s, { tenantId: e.tenantId, seq, ...r });
  }

  /** What the first renderer that knows the event makes of it. */
  private render(e: PlatformEvent): Omit<LoggedEvent, 'tenantId' | 'seq'> | null {
    for (const render of this.renderers) {
      const r = render(e);
      if (r) return r;
    }
    return null;
  }

  private stream(tenantId: number): Stream {
    let s = this.streams.get(tenantId);
    if (!s) {
      s = new Stream(tenantId, 1, 1);
      s.complete = this.base;
      this.streams.set(tenantId, s);
    }
    return s;
  }

  private retain(s: Stream, e: LoggedEvent): void {
    s.entries.push(e);
    s.bytes += sizeOf(e);
    this.trim(s);
  }

  /** Evicts the oldest events beyond the retention bounds. */
  private trim(s: Stream): void {
    const { retentionEvents, retentionBytes } = this.options;
    while (
      s.entries.length - s.head > 1 &&
      (s.entries.length - s.head > retentionEvents || s.bytes > retentionBytes)
    ) {
      const evicted = s.entries[s.head++];
      s.bytes -= sizeOf(evicted);
      s.complete = Math.max(s.complete, evicted.seq);
    }
    if (s.head > 1024 && s.head * 2 > s.entries.length) {
      s.entries = s.entries.slice(s.head);
      s.head = 0;
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref?.();
  }

  private async prune(): Promise<void> {
    if (!this.port) return;
    for (const s of this.streams.values()) {
      const first = s.firstRetained();
      if (first - s.prunedBelow < PRUNE_STEP) continue;
      await this.port.prune(s.tenantId, first);
      s.prunedBelow = first;
    }
  }
}
