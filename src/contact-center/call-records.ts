import type { CallRecord } from '../store/call-records.js';
import type { CallEndedEvent } from '../switch/types.js';
import type { CallBook } from './call-book.js';

/** Where durable call records go (the store's CallRecordStore). */
export interface CallRecordWriter {
  write(record: CallRecord): Promise<void>;
}

/**
 * Call records: every call of the tenant that ends becomes a durable record, the switch's record
 * plus the contact-center details of its calls (timeline, recordings). A record is served from
 * memory from the moment the call ends until the store has it, so a call is readable the moment
 * it ends.
 */
export class CallRecords {
  /** By tenant, then id: a tenant's reads never walk the other tenants' records. */
  private readonly unwritten = new Map<number, Map<string, CallRecord>>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly writer: CallRecordWriter,
    private readonly onError: (err: unknown, smdrCallId: string) => void,
    /** A record went from here to the store (or failed to). */
    private readonly onSettled: () => void = () => {},
  ) {}

  /** The switch reported the call's end (after the contact center finished its own call). */
  ended(e: CallEndedEvent, calls: CallBook, now: number): void {
    const r = e.record;
    const cc = calls.get(r.smdrCallId)?.snapshot(now);
    const record: CallRecord = {
      smdrCallId: r.smdrCallId,
      tenantId: r.tenantId,
      startedAt: r.startedAt,
      answeredAt: r.answeredAt ?? null,
      endedAt: r.endedAt,
      from: r.from.number,
      to: r.to.number,
      outcome: r.outcome,
      calling: cc?.calling.number ?? r.from.number,
      called: cc?.called.number ?? r.to.number,
      data: { ...r, cc },
    };
    calls.remove(r.smdrCallId);
    let mine = this.unwritten.get(r.tenantId);
    if (!mine) this.unwritten.set(r.tenantId, (mine = new Map()));
    mine.set(r.smdrCallId, record);
    const p = this.writer
      .write(record)
      .catch((err) => this.onError(err, r.smdrCallId))
      .finally(() => {
        this.pending.delete(p);
        const held = this.unwritten.get(r.tenantId);
        if (held?.get(r.smdrCallId) !== record) return;
        held.delete(r.smdrCallId);
        if (held.size === 0) this.unwritten.delete(r.tenantId);
        this.onSettled();
      });
    this.pending.add(p);
  }

  /** Records of the tenant not in the store yet. Read them before the store: a record leaves here only once it is there. */
  notYetWritten(tenantId: number): CallRecord[] {
    return [...(this.unwritten.get(tenantId)?.values() ?? [])];
  }

  notYetWrittenOne(tenantId: number, smdrCallId: string): CallRecord | undefined {
    return this.unwritten.get(tenantId)?.get(smdrCallId);
  }

  /** Resolves once every record asked for so far is written (or failed). */
  async written(): Promise<void> {
    await Promise.all(this.pending);
  }

  /** Forgets records not yet written (reset; the store is emptied after `written`). */
  clear(): void {
    this.unwritten.clear();
  }
}
