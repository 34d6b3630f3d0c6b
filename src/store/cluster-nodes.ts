/**
 * The cluster's node registry in PostgreSQL (docs/cluster.md): one row per node, kept fresh by
 * its heartbeat. A node is alive while its last heartbeat is within its own lease TTL, by the
 * database's clock. Each node also holds a slot 0..15, the node part of call ids
 * (core/ids.ts), so two nodes never mint the same id; a slot stays reserved for a while after its
 * node stops (ten TTLs), then a new node may take it and the old row goes.
 */
import { type Kysely, sql } from 'kysely';
import { CLUSTER_PROTOCOL } from '../core/cluster.js';
import { DB_NOW_MS, dbNow } from './leases.js';
import { type Db, DatabaseError, tableExists } from './database.js';
import { processAlive } from './database-held.js';
import type { ClusterNodesTable, Database } from './schema.js';

export const SLOTS = 16;
/** A stopped node's slot (and row) is kept this many TTLs before another node may reuse it. */
export const SLOT_HOLD_TTLS = 10;

export interface NodeInfo {
  nodeId: string;
  url: string | null;
  host: string;
  pid: number;
  slot: number;
  ttlMs: number;
  eligible: boolean;
  /** Database-clock epoch milliseconds. */
  startedAt: number;
  heartbeatAt: number;
  alive: boolean;
  /** The cluster protocol it speaks (core/cluster.ts). */
  protocol: number;
}

export interface NodeRegistration {
  nodeId: string;
  url: string | null;
  host: string;
  pid: number;
  ttlMs: number;
}

/** Who is starting, for the protocol check (its id, when the operator gave one). */
export type NodeIdentity = Pick<NodeRegistration, 'host' | 'pid'> & { nodeId: string | undefined };

/**
 * A node cannot join: its id is a live node's, a node of another protocol may run, or every slot
 * is taken. A database refusal like the guard's: the operator's one line, exit code 2.
 */
export class NodeRefusedError extends DatabaseError {}

/** `protocol` may be missing: a database older than 0010, read before migrating. */
type Row = Omit<ClusterNodesTable, 'protocol'> & { protocol?: number; now: number };

export class NodeRegistry {
  /** `protocol`: the one this node speaks (another value only in tests, as an older node). */
  constructor(
    private readonly db: Db,
    private readonly protocol: number = CLUSTER_PROTOCOL,
  ) {}

  /**
   * Adds this node (or renews its row after it was gone) and answers its slot. It is not given
   * tenants (`eligible` 0) until its first heartbeat says so, once it is ready to run them.
   */
  async register(n: NodeRegistration): Promise<number> {
    return this.db.kysely.transaction().execute(async (trx) => {
      // Registrations one at a time, so two nodes never pick the same slot.
      await sql`lock table cluster_nodes in share row exclusive mode`.execute(trx);
      const { rows } = await sql<Row>`select *, ${DB_NOW_MS} as now from cluster_nodes`.execute(trx);
      const now = rows.length ? Number(rows[0]!.now) : 0;
      const same = rows.find((r) => r.node_id === n.nodeId);
      if (same && isAlive(same) && !sameProcessOrGone(same, n)) {
        throw new NodeRefusedError(
          `node id ${n.nodeId} is in use by a live node (pid ${same.pid} on ${same.host}); give each node its own --node-id`,
        );
      }
      const refusal = anotherProtocol(rows, this.protocol, n);
      if (refusal) throw refusal;
      if (same && same.pid !== n.pid) {
        // A previous life of this node (restarted with a fixed --node-id): its leases end now,
        // so this one takes its tenants at once, under new epochs.
        await trx
          .updateTable('tenant_leases')
          .set({ expires_at: 0 })
          .where('owner_node', '=', n.nodeId)
          .execute();
      }
      const held = (r: Row) =>
        Number(r.heartbeat_at) + SLOT_HOLD_TTLS * Number(r.ttl_ms) > now && r.node_id !== n.nodeId;
      const taken = new Set(rows.filter(held).map((r) => r.slot));
      const slot = [...Array(SLOTS).keys()].find((s) => !taken.has(s));
      if (slot === undefined) {
        throw new NodeRefusedError(
          `the cluster has ${SLOTS} nodes seen in the last ${SLOT_HOLD_TTLS} lease TTLs, the most it can hold`,
        );
      }
      const gone = rows.filter((r) => !held(r)).map((r) => r.node_id);
      if (gone.length) await trx.deleteFrom('cluster_nodes').where('node_id', 'in', gone).execute();
      await sql`insert into cluster_nodes
        (node_id, url, host, pid, slot, ttl_ms, eligible, started_at, heartbeat_at, protocol)
        values (${n.nodeId}, ${n.url}, ${n.host}, ${n.pid}, ${slot}, ${n.ttlMs}, 0, ${DB_NOW_MS}, ${DB_NOW_MS}, ${this.protocol})`.execute(
        trx,
      );
      return slot;
    });
  }

  /** Marks this node alive now. False: its row is gone (it was stopped that long), register again. */
  async heartbeat(nodeId: string, eligible: boolean, url: string | null): Promise<boolean> {
    const { rows } = await sql<{ slot: number }>`
      update cluster_nodes set heartbeat_at = ${DB_NOW_MS}, eligible = ${eligible ? 1 : 0}, url = ${url}
      where node_id = ${nodeId} returning slot`.execute(this.db.kysely);
    return rows.length > 0;
  }

  /** Every registered node, alive or not, oldest first, with the database clock. */
  async list(): Promise<{ now: number; nodes: NodeInfo[] }> {
    const { rows } = await sql<Row>`
      select *, ${DB_NOW_MS} as now from cluster_nodes order by started_at, node_id`.execute(this.db.kysely);
    const now = rows.length ? Number(rows[0]!.now) : await dbNow(this.db.kysely);
    return {
      now,
      nodes: rows.map((r) => ({
        nodeId: r.node_id,
        url: r.url,
        host: r.host,
        pid: r.pid,
        slot: r.slot,
        ttlMs: Number(r.ttl_ms),
        eligible: r.eligible === 1,
        startedAt: Number(r.started_at),
        heartbeatAt: Number(r.heartbeat_at),
        alive: isAlive(r),
        protocol: protocolOf(r),
      })),
    };
  }

  /** A node leaving for good: its row goes, so the others stop counting it at once. */
  async remove(nodeId: string): Promise<void> {
    await this.db.kysely.deleteFrom('cluster_nodes').where('node_id', '=', nodeId).execute();
  }
}

/**
 * Refuses (NodeRefusedError) when a node of another cluster protocol may still run, read before
 * this release migrates the database: a node that cannot join must leave the database as the
 * running release has it. A node may still run while its row is kept (ten TTLs after its last
 * heartbeat: one that was only late beats again, and the release before this check cannot be
 * told to stop); a node that stopped gracefully has no row. This node's own earlier row (this
 * process, or a crashed one of this host) is not another node. A database without the registry
 * (new) or without its `protocol` column (older nodes: protocol 1) is read as such.
 */
export async function refuseAnotherProtocol(
  kysely: Kysely<Database>,
  me: NodeIdentity,
  protocol: number = CLUSTER_PROTOCOL,
): Promise<void> {
  if (!(await tableExists(kysely, 'cluster_nodes', 'postgres'))) return; // no node has run on it yet
  const { rows } = await sql<Row>`select *, ${DB_NOW_MS} as now from cluster_nodes`.execute(kysely);
  const refusal = anotherProtocol(rows, protocol, me);
  if (refusal) throw refusal;
}

function anotherProtocol(rows: Row[], protocol: number, me: NodeIdentity): NodeRefusedError | undefined {
  const other = rows.find(
    (r) => protocolOf(r) !== protocol && mayRun(r) && !(r.node_id === me.nodeId && sameProcessOrGone(r, me)),
  );
  if (!other) return undefined;
  return new NodeRefusedError(
    `node ${other.node_id} (pid ${other.pid} on ${other.host}) runs cluster protocol ${protocolOf(other)} and this node ${protocol}: ` +
      'a cluster runs one protocol; stop every node of the other release, then start this one (docs/cluster.md § Upgrading)',
  );
}

const protocolOf = (r: Row) => Number(r.protocol ?? 1);

/** The row is this process's, or a crashed earlier process's of this host. */
function sameProcessOrGone(r: Row, n: Pick<NodeRegistration, 'host' | 'pid'>): boolean {
  return r.host === n.host && (r.pid === n.pid || !processAlive(r.pid));
}

/** Its row is kept: the node stopped within ten TTLs without leaving, or is only late. */
function mayRun(r: Row): boolean {
  return Number(r.heartbeat_at) + SLOT_HOLD_TTLS * Number(r.ttl_ms) > Number(r.now);
}

function isAlive(r: Row): boolean {
  return Number(r.heartbeat_at) + Number(r.ttl_ms) > Number(r.now);
}
