import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { SharedInflight } from '../core/shared-security.js';

/**
 * REST requests in flight per client, and contact-center sockets not yet connected per address,
 * over every node of a cluster (docs/cluster.md, "Security state"; docs/decisions.md §1.8). Each node announces its own per-client counts on
 * `<prefix>.sec.inflight` when they change (the changes of up to FLUSH_MS in one message, as
 * absolute counts, so a lost message is mended by the next) and all of them every third of the
 * lease TTL; it sums the others' latest counts. A node not heard from for a TTL (killed) stops
 * counting. Admission is therefore a local look-up: no request waits for NATS.
 *
 * A count back where it was last announced is not announced again: a request that begins and
 * ends within FLUSH_MS costs no message. Gathered per event-loop turn, every request cost two
 * messages, each parsed by every other node.
 *
 * Core NATS pub/sub keeps one publisher's messages in order, which absolute counts need.
 */
export type InflightPool = 'requests' | 'anonymous' | 'pendingSockets';
/** How long changes gather before they are announced (docs/cluster.md: the consistency window). */
export const FLUSH_MS = 10;
const POOLS: readonly InflightPool[] = ['requests', 'anonymous', 'pendingSockets'];

interface Announcement {
  node: string;
  /** Every count of the node (a key absent is 0), else only those that changed. */
  full: boolean;
  counts: Partial<Record<InflightPool, [string, number][]>>;
}

interface Peer {
  heard: number;
  /** Its slots are kept first when a client is over its limit (the lower node id). */
  ahead: boolean;
  counts: Record<InflightPool, Map<string, number>>;
}

class Pool implements SharedInflight {
  /** This node's nonzero counts (for the periodic full announcement). */
  readonly mine = new Map<string, number>();
  /** Changed since the last announcement. */
  readonly dirty = new Map<string, number>();
  /** What the others were last told, where not 0. */
  readonly told = new Map<string, number>();
  private readonly sums = new Map<string, number>();
  private readonly aheadSums = new Map<string, number>();
  private readonly listeners: ((client: string) => void)[] = [];

  constructor(private readonly schedule: () => void) {}

  elsewhere(client: string): number {
    return this.sums.get(client) ?? 0;
  }

  ahead(client: string): number {
    return this.aheadSums.get(client) ?? 0;
  }

  changed(client: string, n: number): void {
    if (n > 0) this.mine.set(client, n);
    else this.mine.delete(client);
    this.dirty.set(client, n);
    this.schedule();
  }

  onHeard(listener: (client: string) => void): void {
    this.listeners.push(listener);
  }

  /** A peer's count of `client` went from `before` to `n`. */
  apply(client: string, before: number, n: number, ahead: boolean): void {
    add(this.sums, client, n - before);
    if (ahead) add(this.aheadSums, client, n - before);
    for (const l of this.listeners) l(client);
  }
}

function add(m: Map<string, number>, key: string, d: number): void {
  const n = (m.get(key) ?? 0) + d;
  if (n > 0) m.set(key, n);
  else m.delete(key);
}

export interface InflightSyncDeps {
  nats: NatsConnection;
  prefix: string;
  nodeId: string;
  /** The lease TTL: a node not heard from for this long stops counting. */
  ttlMs: number;
  log: Logger;
  now?: () => number;
}

export class InflightSync {
  readonly pools: Record<InflightPool, Pool>;
  private readonly peers = new Map<string, Peer>();
  private readonly subject: string;
  private readonly sub: Subscription;
  private readonly tick: NodeJS.Timeout;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: InflightSyncDeps) {
    this.now = deps.now ?? Date.now;
    this.subject = `${deps.prefix}.sec.inflight`;
    const schedule = () => {
      this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
    };
    this.pools = {
      requests: new Pool(schedule),
      anonymous: new Pool(schedule),
      pendingSockets: new Pool(schedule),
    };
    this.sub = deps.nats.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) return deps.log.warn({ err }, 'in-flight counts of other nodes stopped');
        try {
          this.heard(msg.json<Announcement>());
        } catch (e) {
          deps.log.warn({ err: e }, 'unreadable in-flight announcement');
        }
      },
    });
    this.tick = setInterval(
      () => {
        this.announce(true);
        this.expire();
      },
      Math.max(100, Math.floor(deps.ttlMs / 3)),
    );
    this.tick.unref();
  }

  private flush(): void {
    this.flushTimer = undefined;
    this.announce(false);
  }

  private announce(full: boolean): void {
    const counts: Announcement['counts'] = {};
    let any = full;
    for (const name of POOLS) {
      const p = this.pools[name];
      const changes: [string, number][] = [];
      if (full) {
        p.told.clear();
        for (const [client, n] of p.mine) {
          changes.push([client, n]);
          p.told.set(client, n);
        }
      } else
        for (const [client, n] of p.dirty) {
          if ((p.told.get(client) ?? 0) === n) continue;
          changes.push([client, n]);
          if (n > 0) p.told.set(client, n);
          else p.told.delete(client);
        }
      p.dirty.clear();
      if (changes.length > 0) {
        counts[name] = changes;
        any = true;
      }
    }
    if (!any) return;
    const a: Announcement = { node: this.deps.nodeId, full, counts };
    try {
      this.deps.nats.publish(this.subject, JSON.stringify(a));
    } catch (err) {
      // Closed or draining: the others expire this node's counts.
      this.deps.log.debug({ err }, 'in-flight counts not announced');
    }
  }

  private heard(a: Announcement): void {
    if (typeof a?.node !== 'string' || a.node === this.deps.nodeId) return;
    let peer = this.peers.get(a.node);
    if (!peer) {
      peer = {
        heard: 0,
        ahead: a.node < this.deps.nodeId,
        counts: { requests: new Map(), anonymous: new Map(), pendingSockets: new Map() },
      };
      this.peers.set(a.node, peer);
    }
    peer.heard = this.now();
    for (const name of POOLS) {
      const told = a.counts?.[name];
      const counts = peer.counts[name];
      const pool = this.pools[name];
      if (a.full) {
        const now = new Map(Array.isArray(told) ? told : []);
        for (const [client, before] of [...counts]) {
          if (!now.has(client)) this.set(peer, pool, counts, client, before, 0);
        }
      }
      if (!Array.isArray(told)) continue;
      for (const entry of told) {
        if (!Array.isArray(entry)) continue;
        const [client, n] = entry;
        if (typeof client !== 'string' || typeof n !== 'number' || !(n >= 0)) continue;
        this.set(peer, pool, counts, client, counts.get(client) ?? 0, n);
      }
    }
  }

  private set(
    peer: Peer,
    pool: Pool,
    counts: Map<string, number>,
    client: string,
    before: number,
    n: number,
  ): void {
    if (before === n) return;
    if (n > 0) counts.set(client, n);
    else counts.delete(client);
    pool.apply(client, before, n, peer.ahead);
  }

  /** Forgets the counts of nodes not heard from for a TTL. */
  private expire(): void {
    const oldest = this.now() - this.deps.ttlMs;
    for (const [id, peer] of this.peers) {
      if (peer.heard >= oldest) continue;
      this.peers.delete(id);
      for (const name of POOLS) {
        for (const [client, before] of [...peer.counts[name]]) {
          this.set(peer, this.pools[name], peer.counts[name], client, before, 0);
        }
      }
    }
  }

  /** Tells the others this node holds nothing any more, and stops. */
  close(): void {
    clearInterval(this.tick);
    clearTimeout(this.flushTimer);
    for (const name of POOLS) {
      this.pools[name].mine.clear();
      this.pools[name].dirty.clear();
    }
    this.announce(true);
    this.sub.unsubscribe();
  }
}
