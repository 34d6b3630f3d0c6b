/**
 * The owner's live-state journal (docs/cluster.md, Failover): what keeps live calls and agent
 * states durable without a database write on any command's path, and writes call records with the
 * removal of their rows. See the class for how.
 */
import { StaleEpochError } from '../core/cluster.js';
import type { CallRecord } from '../store/call-records.js';
import type {
  AgentStateRow,
  DeviceStateRow,
  Lease,
  LiveCallRow,
  LiveCallWrite,
  LiveStateBatch,
  LiveStateStore,
} from '../store/live-state.js';
import type { CallRecordWriter } from './call-records.js';
import type { LiveStateSink } from './live-state-sink.js';

/** What the journal writes: each live call and agent state as it stands when its batch is made. */
export interface LiveStateSource {
  /** Undefined once the call is no longer live here. */
  call(tenantId: number, smdrCallId: string): LiveCallRow | undefined;
  agent(tenantId: number, ext: string): AgentStateRow | undefined;
  /** Undefined once the phone is no longer provisioned. */
  device(tenantId: number, deviceId: string): DeviceStateRow | undefined;
}

export interface JournalOptions {
  /** This node's lease on the tenant; undefined when it does not own it (nothing is written). */
  lease(tenantId: number): Lease | undefined;
  /** The tenants' clock (stored with each row). */
  now(): number;
  /** A batch that could not be written (its records' writers hear it too). */
  onError(err: unknown, tenantId: number): void;
  /** How long changes gather before a batch is written (wall time). */
  flushMs?: number;
}

/** Changes are gathered for this long (wall time) before a batch is written. */
export const LIVE_STATE_FLUSH_MS = 20;
/** A batch that failed (the database) is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
/** For at most this long since its first failure: then its records fail, as a refused batch's do. */
const RETRY_WINDOW_MS = 60_000;
/**
 * SQLSTATE classes a retry cannot mend (data, integrity, syntax or access): such a batch fails at
 * once. Anything else (a lost connection, a pool time-out, a deadlock) is tried again.
 */
const LASTING = /^(22|23|42|44)/;
const lasting = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 && LASTING.test(code);
};

interface Pending {
  calls: Set<string>;
  agents: Set<string>;
  devices: Set<string>;
  records: Map<string, { record: CallRecord; done: () => void; failed: (e: unknown) => void }>;
}

/**
 * Keeps the tenants' live state durable (docs/cluster.md, Failover) without costing a command
 * anything: a change only marks the call or agent; every `flushMs` each tenant's marks become one
 * batch, read from the live state as it then stands and written in one fenced transaction. Many
 * changes of one call cost one row write. Batches of a tenant are written one after another, so
 * a call's rows are written in order, and the record of an ended call is written in the batch
 * that removes its row. A call's history (its segments, which only grow) is written item by item:
 * a batch writes only the items added since this node's last batch of the call wrote; the first
 * batch of a call here, and the one after a failed batch, replaces what is stored. It is also the
 * contact center's record writer: a record is written when its batch is.
 * A batch the database failed (a blip, a pool time-out) is not lost: its marks and records go
 * back to the tenant's pending ones and are tried again, backing off, for up to a minute while
 * the node holds the lease the batch was made under. A refused lease (the fence), a lease gone or
 * changed, an error no retry mends (a constraint, bad data), the minute passed, or a handover's
 * last batch fails its records.
 */
export class LiveStateJournal implements LiveStateSink, CallRecordWriter {
  private source: LiveStateSource | undefined;
  private pending = new Map<number, Pending>();
  /** Per tenant, per call: how many history items are stored, as this node's batches wrote them. */
  private readonly written = new Map<number, Map<string, number>>();
  private readonly writing = new Map<number, Promise<void>>();
  /** Tenants whose last batch failed: the next try, how many failed in a row, since when, and their lease. */
  private readonly retrying = new Map<
    number,
    { timer: NodeJS.Timeout; failures: number; since: number; lease: Lease }
  >();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: LiveStateStore,
    private readonly options: JournalOptions,
  ) {}

  /** Where batches read the live state (set once the switch and contact center exist). */
  setSource(source: LiveStateSource): void {
    this.source = source;
  }

  callChanged(tenantId: number, smdrCallId: string): void {
    this.of(tenantId).calls.add(smdrCallId);
  }

  agentChanged(tenantId: number, ext: string): void {
    this.of(tenantId).agents.add(ext);
  }

  deviceChanged(tenantId: number, deviceId: string): void {
    this.of(tenantId).devices.add(deviceId);
  }

  /** The ended call's record, written with the removal of its row; resolves once it is. */
  write(record: CallRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error('live state journal closed'));
    return new Promise<void>((done, failed) => {
      this.of(record.tenantId).records.set(record.smdrCallId, { record, done, failed });
    });
  }

  /** Writes everything marked so far; resolves once it is written (or failed, to be tried again). */
  async flush(): Promise<void> {
    this.cancelTimer();
    for (const tenantId of [...this.pending.keys()]) this.startBatch(tenantId);
    await Promise.all([...this.writing.values()]);
  }

  /**
   * The tenant is no longer this node's: what it had not written yet is written under the lease
   * that ended (a handover releases the lease only after this; a lapsed or taken lease is refused
   * by the fence and the rest dropped), then the tenant is forgotten.
   */
  async release(tenantId: number, ended: Lease): Promise<void> {
    if (this.pending.has(tenantId)) this.startBatch(tenantId, ended);
    await this.writing.get(tenantId);
    this.forget(tenantId);
  }

  /** The tenant is no longer this node's: what it had not written yet is dropped. */
  forget(tenantId: number): void {
    this.stopRetrying(tenantId);
    const p = this.pending.get(tenantId);
    this.pending.delete(tenantId);
    this.written.delete(tenantId);
    const gone = new Error(`tenant ${tenantId} is no longer run here`);
    for (const r of p?.records.values() ?? []) r.failed(gone);
  }

  /**
   * Writes what is pending, then takes no more (shutdown: before the switch drops its calls).
   * What still fails then is given up: its records fail.
   */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    for (const tenantId of [...this.retrying.keys()]) this.forget(tenantId);
  }

  /**
   * Writes what is pending, gives up what still fails (its records fail: the world they belong to
   * is gone), and empties the store (simulator reset).
   */
  async clear(): Promise<void> {
    await this.flush();
    for (const tenantId of [...this.retrying.keys()]) this.forget(tenantId);
    this.written.clear();
    await this.store.clear();
  }

  private of(tenantId: number): Pending {
    let p = this.pending.get(tenantId);
    if (!p) {
      p = { calls: new Set(), agents: new Set(), devices: new Set(), records: new Map() };
      this.pending.set(tenantId, p);
    }
    if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        // A tenant whose batch failed waits for its own retry.
        for (const t of [...this.pending.keys()]) if (!this.retrying.has(t)) this.startBatch(t);
      }, this.options.flushMs ?? LIVE_STATE_FLUSH_MS);
    }
    return p;
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Chains the tenant's next batch after the one being written; it reads its marks when it starts. */
  private startBatch(tenantId: number, ended?: Lease): void {
    const before = this.writing.get(tenantId) ?? Promise.resolve();
    const next = before.then(() => this.writeBatch(tenantId, ended));
    this.writing.set(tenantId, next);
    void next.finally(() => {
      if (this.writing.get(tenantId) === next) this.writing.delete(tenantId);
    });
  }

  private async writeBatch(tenantId: number, ended?: Lease): Promise<void> {
    const p = this.pending.get(tenantId);
    if (!p) return;
    this.pending.delete(tenantId);
    const records = [...p.records.values()];
    const lease = ended ?? this.options.lease(tenantId);
    const failedUnder = this.retrying.get(tenantId)?.lease;
    try {
      if (!lease)
        throw new Error(`tenant ${tenantId} is not owned by this node: its live state is not written`);
      // Lost and taken again meanwhile (a stall): what failed was another lease's state.
      if (failedUnder && !sameLease(failedUnder, lease))
        throw new StaleEpochError(tenantId, failedUnder.epoch);
      const b = this.batch(tenantId, lease, p);
      await this.store.apply(b);
      this.wrote(b);
      this.stopRetrying(tenantId);
      for (const r of records) r.done();
    } catch (err) {
      this.written.delete(tenantId);
      this.options.onError(err, tenantId);
      const since = this.retrying.get(tenantId)?.since ?? Date.now();
      const retry =
        lease &&
        !ended &&
        !this.closed &&
        !(err instanceof StaleEpochError) &&
        !lasting(err) &&
        Date.now() - since < RETRY_WINDOW_MS;
      if (retry) {
        this.putBack(tenantId, p, lease, since);
        return;
      }
      this.stopRetrying(tenantId);
      for (const r of records) r.failed(err);
    }
  }

  /**
   * A failed batch's marks and records go back before those made since (a record of the same call
   * made since is newer), and the tenant's next batch is tried after a back-off. A batch that
   * failed may still have committed (the answer was lost): `written` was reset above, so the
   * next one replaces each call's history whole, and a record is stored by its id, once.
   */
  private putBack(tenantId: number, failed: Pending, lease: Lease, since: number): void {
    const madeSince = this.pending.get(tenantId);
    const p = this.of(tenantId);
    if (madeSince) {
      for (const id of failed.calls) p.calls.add(id);
      for (const ext of failed.agents) p.agents.add(ext);
      for (const id of failed.devices) p.devices.add(id);
      for (const [id, r] of failed.records) if (!p.records.has(id)) p.records.set(id, r);
    } else {
      this.pending.set(tenantId, failed);
    }
    const failures = (this.retrying.get(tenantId)?.failures ?? 0) + 1;
    clearTimeout(this.retrying.get(tenantId)?.timer);
    const timer = setTimeout(
      // Still `retrying` while it runs: the regular flushes leave the tenant to it.
      () => this.pending.has(tenantId) && this.startBatch(tenantId),
      Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MAX_MS),
    );
    this.retrying.set(tenantId, { timer, failures, since, lease });
  }

  private stopRetrying(tenantId: number): void {
    clearTimeout(this.retrying.get(tenantId)?.timer);
    this.retrying.delete(tenantId);
  }

  private batch(tenantId: number, lease: Lease, p: Pending): LiveStateBatch {
    const b: LiveStateBatch = {
      tenantId,
      lease,
      at: this.options.now(),
      calls: [],
      agents: [],
      devices: [],
      removed: [],
      records: [...p.records.values()].map((r) => r.record),
    };
    const source = this.source;
    if (!source) return b;
    const written = this.written.get(tenantId);
    for (const id of p.calls) {
      if (p.records.has(id)) continue;
      const row = source.call(tenantId, id);
      if (row) b.calls.push(toWrite(row, written?.get(id) ?? 0));
      else b.removed.push(id);
    }
    for (const ext of p.agents) {
      const row = source.agent(tenantId, ext);
      if (row) b.agents.push(row);
    }
    for (const id of p.devices) {
      const row = source.device(tenantId, id);
      if (row) b.devices.push(row);
      else (b.devicesGone ??= []).push(id);
    }
    return b;
  }

  /** What a written batch leaves stored of each call's history. */
  private wrote(b: LiveStateBatch): void {
    let written = this.written.get(b.tenantId);
    if (!written) this.written.set(b.tenantId, (written = new Map()));
    for (const c of b.calls) written.set(c.smdrCallId, c.history.from + c.history.items.length);
    for (const id of [...b.removed, ...b.records.map((r) => r.smdrCallId)]) written.delete(id);
  }
}

const sameLease = (a: Lease, b: Lease) => a.epoch === b.epoch && a.nodeId === b.nodeId;

/** A call's row with the history items after the first `stored` (all of them when it has fewer). */
function toWrite(row: LiveCallRow, stored: number): LiveCallWrite {
  const from = stored <= row.history.length ? stored : 0;
  return { ...row, history: { from, items: row.history.slice(from) } };
}
