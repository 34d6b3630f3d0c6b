import type { Logger } from 'pino';
import type { EventLogPort, LoggedEvent, StreamHead } from '../../core/event-stream.js';
import type { PlatformEvent } from '../platform-events.js';

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

class Stream {
  entries: LoggedEvent[] = [];
  head = 0;
  bytes = 0;
  /** A resume must start at or after `floor - 1` (below it the stream has a crash gap). */
  crashFloor = 0;
  prunedBelow = 0;
  constructor(
    readonly tenantId: number,
    public next: number,
    public reserved: number,
  ) {}

  firstRetained(): number {
    return this.head < this.entries.length ? this.entries[this.head].seq : this.next;
  }
}

const sizeOf = (e: LoggedEvent) => e.body.length + e.tags.reduce((n, t) => n + t.length + 3, 16);

/**
 * Each tenant's events in order, each with its sequence (increasing, never reused), retained in
 * memory within bounds and written through the port in batches. Only tenants someone follows (a
 * resumable session, live or within its grace) are journaled: for the others an event costs one
 * map lookup, so sockets that did not ask for resume pay nothing measurable. Subscribed to the bus
 * before the fan-outs, which ask `sequenceOf` for the event they are delivering.
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

  private constructor(
    private readonly port: EventLogPort,
    private readonly options: JournalOptions,
    private readonly log: Logger,
  ) {}

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

  /** The bus handler. */
  readonly onEvent = (e: PlatformEvent): void => {
    this.current = undefined;
    if (this.closed || !('tenantId' in e)) return;
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

  /** The sequence of the tenant's last event (0 before its first). */
  last(tenantId: number): number {
    return (this.streams.get(tenantId)?.next ?? 1) - 1;
  }

  /**
   * Every retained event of the tenant after `after`, in order; undefined when they are not all
   * retained (evicted, lost in a crash) or `after` lies in the future.
   */
  since(tenantId: number, after: number): readonly LoggedEvent[] | undefined {
    const s = this.streams.get(tenantId);
    const next = s?.next ?? 1;
    if (!Number.isSafeInteger(after) || after < 0 || after > next - 1) return undefined;
    if (!s) return [];
    if (after < Math.max(s.firstRetained(), s.crashFloor) - 1) return undefined;
    let lo = s.head;
    let hi = s.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s.entries[mid].seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return s.entries.slice(lo);
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
    if (events.length === 0 && heads.length === 0) return this.writing;
    this.writing = this.writing
      .then(() => this.port.append(events, heads))
      .then(() => this.prune())
      .catch((err) => this.log.error({ err }, 'event journal write failed'));
    return this.writing;
  }

  /** Flushes and records the exact heads as cleanly closed; later events are not journaled. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    this.closed = true;
    await this.flush();
    const heads = [...this.streams.values()].map((s) => ({
      tenantId: s.tenantId,
      nextSeq: s.next,
      clean: true,
    }));
    await this.port.closeClean(heads).catch((err) => this.log.error({ err }, 'event journal close failed'));
  }

  private stream(tenantId: number): Stream {
    let s = this.streams.get(tenantId);
    if (!s) {
      s = new Stream(tenantId, 1, 1);
      this.streams.set(tenantId, s);
    }
    return s;
  }

  private retain(s: Stream, e: LoggedEvent): void {
    s.entries.push(e);
    s.bytes += sizeOf(e);
    const { retentionEvents, retentionBytes } = this.options;
    while (
      s.entries.length - s.head > 1 &&
      (s.entries.length - s.head > retentionEvents || s.bytes > retentionBytes)
    ) {
      s.bytes -= sizeOf(s.entries[s.head++]);
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
    for (const s of this.streams.values()) {
      const first = s.firstRetained();
      if (first - s.prunedBelow < PRUNE_STEP) continue;
      await this.port.prune(s.tenantId, first);
      s.prunedBelow = first;
    }
  }
}
