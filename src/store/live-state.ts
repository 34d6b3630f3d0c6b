/**
 * The live state of the tenants' owners, durable (docs/cluster.md, Failover): each live call
 * (`live_calls`, queued ones marked `waiting`) and each contact-center agent's state
 * (`cc_agent_states`). The owner writes it in batches, one fenced transaction per tenant; an
 * ended call's record and the removal of its row are one write, so a call is always either live
 * here or recorded. The node that takes a tenant over claims what the previous owner left.
 * Every write is fenced by the tenant's lease (lease-fence.ts): a standalone server's epoch 0
 * passes; an owner whose lease is no longer current is refused and writes nothing.
 */
import type { Kysely, Selectable } from 'kysely';
import type { WriteLease } from '../core/cluster.js';
import { CallRecordStore, type CallRecord } from './call-records.js';
import { CompiledShapes, excludedOf } from './compiled-shapes.js';
import type { Db } from './database.js';
import { assertEpoch } from './lease-fence.js';
import type { CcAgentStatesTable, Database, LiveCallsTable } from './schema.js';

/** Who writes: the tenant's owner, under its lease epoch. */
export type Lease = WriteLease;

export interface LiveCallRow {
  smdrCallId: string;
  waiting: boolean;
  startedAt: number;
  /** JSON-able, without its history. */
  data: unknown;
  /** JSON-able items that are only ever added to (the call record's segments), in order. */
  history: unknown[];
}

/**
 * A live call to write: its history as the items from position `from` on. 0 replaces what is
 * stored; more adds to the `from` items an earlier batch of the same owner wrote.
 */
export interface LiveCallWrite extends Omit<LiveCallRow, 'history'> {
  history: { from: number; items: unknown[] };
}

export interface AgentStateRow {
  ext: string;
  data: unknown;
}

/** One tenant's changes since the last batch, written at once. */
export interface LiveStateBatch {
  tenantId: number;
  lease: Lease;
  /** The owner's clock. */
  at: number;
  calls: LiveCallWrite[];
  agents: AgentStateRow[];
  /** Phones whose registration changed. */
  devices: DeviceStateRow[];
  /** Phones no longer provisioned: their rows go. */
  devicesGone?: string[];
  /** Calls gone without a record (a reset): their rows go. */
  removed: string[];
  /** Calls that ended: their records are written, their rows go. */
  records: CallRecord[];
}

export interface StoredLiveCall extends LiveCallRow {
  tenantId: number;
  ownerNode: string;
  epoch: number;
  updatedAt: number;
}

/** A phone's registration as the owner has it. */
export interface DeviceStateRow {
  deviceId: string;
  registered: boolean;
}

export interface StoredDeviceState extends DeviceStateRow {
  tenantId: number;
}

export interface StoredAgentState extends AgentStateRow {
  tenantId: number;
  updatedAt: number;
}

export interface LeftState {
  calls: StoredLiveCall[];
  agents: StoredAgentState[];
  devices: StoredDeviceState[];
}

export class LiveStateStore {
  private readonly records: CallRecordStore;
  /** A batch's statements, compiled once per shape and row count (compiled-shapes.ts). */
  private readonly writes: CompiledShapes<unknown>;

  constructor(private readonly db: Db) {
    this.records = new CallRecordStore(db);
    this.writes = new CompiledShapes(db.kysely);
  }

  async apply(b: LiveStateBatch): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      await assertEpoch(trx, b.tenantId, b.lease.nodeId, b.lease.epoch);
      const owner = { owner_node: b.lease.nodeId, epoch: b.lease.epoch, updated_at: b.at };
      if (b.calls.length > 0) {
        const rows = b.calls.map((c) => ({
          tenant_id: b.tenantId,
          smdr_call_id: c.smdrCallId,
          waiting: c.waiting ? 1 : 0,
          started_at: c.startedAt,
          data: JSON.stringify(c.data),
          ...owner,
        }));
        // A call's start never changes: the rest is set again from the row proposed.
        await this.upsert(trx, 'live_calls', rows, ['tenant_id', 'smdr_call_id'], ['started_at']);
        await this.writeHistory(trx, b.tenantId, b.calls);
      }
      if (b.agents.length > 0) {
        const rows = b.agents.map((a) => ({
          tenant_id: b.tenantId,
          ext: a.ext,
          data: JSON.stringify(a.data),
          ...owner,
        }));
        await this.upsert(trx, 'cc_agent_states', rows, ['tenant_id', 'ext']);
      }
      if (b.devices.length > 0) {
        const rows = b.devices.map((d) => ({
          tenant_id: b.tenantId,
          device_id: d.deviceId,
          registered: d.registered ? 1 : 0,
          ...owner,
        }));
        await this.upsert(trx, 'live_device_states', rows, ['tenant_id', 'device_id']);
      }
      if (b.devicesGone?.length) {
        await trx
          .deleteFrom('live_device_states')
          .where('tenant_id', '=', b.tenantId)
          .where('device_id', 'in', b.devicesGone)
          .execute();
      }
      for (const r of b.records) await this.records.write(r, trx);
      const gone = [...b.removed, ...b.records.map((r) => r.smdrCallId)];
      if (gone.length > 0) {
        for (const table of ['live_calls', 'live_call_history'] as const)
          await this.deleteCalls(trx, table, b.tenantId, gone);
      }
    });
  }

  /**
   * Inserts `rows` (their columns in the same order), or sets every column but the `key` and the
   * `kept` ones of the row already there; compiled once per table and row count.
   */
  private upsert(
    trx: Kysely<Database>,
    table: 'live_calls' | 'cc_agent_states' | 'live_device_states',
    rows: Record<string, unknown>[],
    key: string[],
    kept: string[] = [],
  ): Promise<unknown[]> {
    const build = () =>
      trx
        .insertInto(table)
        .values(rows as never)
        .onConflict((oc) =>
          oc
            .columns(key as never)
            .doUpdateSet((eb) => excludedOf(eb, Object.keys(rows[0]!), [...key, ...kept])),
        );
    return this.writes.rows(shapeOf(`upsert:${table}`, rows.length), rows.flatMap(Object.values), build, trx);
  }

  private deleteCalls(
    trx: Kysely<Database>,
    table: 'live_calls' | 'live_call_history',
    tenantId: number,
    smdrCallIds: string[],
  ): Promise<unknown[]> {
    return this.writes.rows(
      shapeOf(`delete:${table}`, smdrCallIds.length),
      [tenantId, ...smdrCallIds],
      () => trx.deleteFrom(table).where('tenant_id', '=', tenantId).where('smdr_call_id', 'in', smdrCallIds),
      trx,
    );
  }

  private async writeHistory(trx: Kysely<Database>, tenantId: number, calls: LiveCallWrite[]): Promise<void> {
    const replaced = calls.filter((c) => c.history.from === 0).map((c) => c.smdrCallId);
    if (replaced.length > 0) await this.deleteCalls(trx, 'live_call_history', tenantId, replaced);
    const rows = calls.flatMap((c) =>
      c.history.items.map((item, i) => ({
        tenant_id: tenantId,
        smdr_call_id: c.smdrCallId,
        seq: c.history.from + i,
        data: JSON.stringify(item),
      })),
    );
    for (let i = 0; i < rows.length; i += HISTORY_ROWS_A_STATEMENT) {
      const slice = rows.slice(i, i + HISTORY_ROWS_A_STATEMENT);
      await this.writes.rows(
        shapeOf('insert:live_call_history', slice.length),
        slice.flatMap(Object.values),
        () => trx.insertInto('live_call_history').values(slice),
        trx,
      );
    }
  }

  /**
   * What earlier owners of the tenant left (calls written under an older epoch, and the agents'
   * states), made this lease's in the same fenced transaction: a node that is no longer the
   * owner gets StaleEpochError and nothing.
   */
  async claim(tenantId: number, lease: Lease): Promise<LeftState> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await assertEpoch(trx, tenantId, lease.nodeId, lease.epoch);
      const left = await this.read(trx, tenantId, lease.epoch);
      const mine = { owner_node: lease.nodeId, epoch: lease.epoch };
      if (left.calls.length > 0) {
        await trx
          .updateTable('live_calls')
          .set(mine)
          .where('tenant_id', '=', tenantId)
          .where('epoch', '<', lease.epoch)
          .execute();
      }
      await trx.updateTable('cc_agent_states').set(mine).where('tenant_id', '=', tenantId).execute();
      await trx.updateTable('live_device_states').set(mine).where('tenant_id', '=', tenantId).execute();
      return left;
    });
  }

  /** Everything stored, of every tenant: what a standalone server's previous process left. */
  loadAll(): Promise<LeftState> {
    return this.read(this.db.kysely);
  }

  /** Forgets everything (simulator reset). */
  async clear(): Promise<void> {
    for (const table of ['live_calls', 'live_call_history', 'cc_agent_states', 'live_device_states'] as const)
      await this.db.kysely.deleteFrom(table).execute();
  }

  private async read(from: Kysely<Database>, tenantId?: number, belowEpoch?: number): Promise<LeftState> {
    let calls = from.selectFrom('live_calls').selectAll();
    let history = from.selectFrom('live_call_history').selectAll();
    let agents = from.selectFrom('cc_agent_states').selectAll();
    let devices = deviceRows(from);
    if (tenantId !== undefined) {
      calls = calls.where('tenant_id', '=', tenantId);
      history = history.where('tenant_id', '=', tenantId);
      agents = agents.where('tenant_id', '=', tenantId);
      devices = devices.where('tenant_id', '=', tenantId);
    }
    if (tenantId !== undefined && belowEpoch !== undefined) {
      calls = calls.where('epoch', '<', belowEpoch);
      // Only the steps of the calls read: not those of calls this epoch already holds.
      history = history.where(
        'smdr_call_id',
        'in',
        from
          .selectFrom('live_calls')
          .select('smdr_call_id')
          .where('tenant_id', '=', tenantId)
          .where('epoch', '<', belowEpoch),
      );
    }
    const c = await calls.orderBy('started_at').execute();
    const items = new Map<string, unknown[]>();
    for (const h of await history.orderBy('tenant_id').orderBy('smdr_call_id').orderBy('seq').execute()) {
      const key = `${h.tenant_id}/${h.smdr_call_id}`;
      let list = items.get(key);
      if (!list) items.set(key, (list = []));
      list.push(JSON.parse(h.data));
    }
    const a = await agents.orderBy('ext').execute();
    const d = await devices.execute();
    return {
      calls: c.map((r) => toCall(r, items.get(`${r.tenant_id}/${r.smdr_call_id}`) ?? [])),
      agents: a.map(toAgent),
      devices: d.map(toDevice),
    };
  }

  /** Every phone's registration as its tenant's owner last wrote it (a node starting: the list). */
  async devices(): Promise<StoredDeviceState[]> {
    return (await deviceRows(this.db.kysely).execute()).map(toDevice);
  }

  /** The tenants' clock at the last batch any owner wrote of what is still stored; undefined: none. */
  async lastWrittenAt(): Promise<number | undefined> {
    const last = await Promise.all(
      (['live_calls', 'cc_agent_states'] as const).map((table) =>
        this.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.max('updated_at').as('last'))
          .executeTakeFirst(),
      ),
    );
    const times = last.map((r) => Number(r?.last ?? NaN)).filter((t) => Number.isFinite(t));
    return times.length ? Math.max(...times) : undefined;
  }
}

/** Rows a history insert carries (well under either engine's limit on a statement's parameters). */
const HISTORY_ROWS_A_STATEMENT = 1000;

/**
 * Row counts up to this have their statements kept compiled (a batch of a busy tenant's 20 ms);
 * a larger one (a takeover's or a seed's) is compiled for itself.
 */
const KEPT_ROW_COUNTS = 32;

const shapeOf = (what: string, rows: number) => (rows <= KEPT_ROW_COUNTS ? `${what}:${rows}` : undefined);

function toCall(r: Selectable<LiveCallsTable>, history: unknown[]): StoredLiveCall {
  return {
    tenantId: Number(r.tenant_id),
    smdrCallId: r.smdr_call_id,
    ownerNode: r.owner_node,
    epoch: Number(r.epoch),
    waiting: Number(r.waiting) === 1,
    startedAt: Number(r.started_at),
    data: JSON.parse(r.data),
    history,
    updatedAt: Number(r.updated_at),
  };
}

function deviceRows(from: Kysely<Database>) {
  return from
    .selectFrom('live_device_states')
    .select(['tenant_id', 'device_id', 'registered'])
    .orderBy('tenant_id')
    .orderBy('device_id');
}

function toDevice(r: { tenant_id: number; device_id: string; registered: number }): StoredDeviceState {
  return { tenantId: Number(r.tenant_id), deviceId: r.device_id, registered: Number(r.registered) === 1 };
}

function toAgent(r: Selectable<CcAgentStatesTable>): StoredAgentState {
  return {
    tenantId: Number(r.tenant_id),
    ext: r.ext,
    data: JSON.parse(r.data),
    updatedAt: Number(r.updated_at),
  };
}
