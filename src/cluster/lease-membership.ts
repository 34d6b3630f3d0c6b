/**
 * Cluster membership on PostgreSQL leases (docs/cluster.md): which tenants this node runs.
 *
 * Every tick (a third of the lease TTL, sooner when a foreign lease is about to lapse) the node
 * heartbeats its `cluster_nodes` row, renews its leases (only under the epochs it holds), reads
 * the live nodes and every lease, and places each tenant on its preferred node by rendezvous
 * hashing. It takes a tenant it is preferred for once the lease is free or lapsed, and hands over
 * a tenant it is no longer preferred for only when the tenant is idle (no live call), so
 * rebalancing never cuts a call. A lease it fails to renew, or whose TTL passes on its own
 * clock before a renewal succeeded (the process was paused, the database is unreachable), is lost
 * at once. Every gain and loss is announced through `onChange`: a tenant's in order, several
 * tenants' side by side (a node that dies with many tenants leaves no tenant waiting for the
 * takeovers of all those announced before it).
 */
import type { Membership, OwnershipChange } from '../core/cluster.js';
import type { NodeInfo, NodeRegistry } from '../store/cluster-nodes.js';
import type { Lease, LeaseStore } from '../store/leases.js';
import { KeyedChain } from '../core/keyed-chain.js';
import { preferredNode } from './rendezvous.js';

type Listener = (change: OwnershipChange) => void | Promise<void>;

export interface MembershipLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface LeaseMembershipOptions {
  leases: LeaseStore;
  nodes: NodeRegistry;
  nodeId: string;
  /** What this node's registry row says of it. */
  url: string | null;
  host: string;
  pid: number;
  ttlMs: number;
  /** The tenants there are (the directory's); read every tick, so new tenants get placed. */
  tenants: () => Iterable<number>;
  /** Whether a tenant has nothing live on this node (no calls): only then is it handed over. */
  isIdle: (tenantId: number) => boolean;
  /** Whether this node may be given tenants now (its NATS connection is up). Default: yes. */
  eligible?: () => boolean;
  /** The node's call-id slot changed (it had been stopped so long that its row was reclaimed). */
  onSlot?: (slot: number) => void;
  /**
   * This node took or gave up tenants (or left): the others may want to look now rather than at
   * their next tick, to see the new owners (the composition broadcasts it on NATS).
   */
  onMoved?: () => void;
  log: MembershipLog;
}

interface Held {
  epoch: number;
  /** performance.now() by which the lease has surely lapsed unless renewed since. */
  deadline: number;
}

/** A tick after a foreign lease lapses, and again soon while a tenant has no owner. */
const AFTER_LAPSE_MS = 50;
const UNSETTLED_RECHECK_MS = 250;
const UNSETTLED_RECHECKS = 8;
/** How often a draining node looks whether it still holds a tenant, and looks for idle ones. */
const DRAIN_LOOK_MS = 250;
/** Tenants whose changes are being announced at once, at most: a takeover holds a pooled connection. */
const ANNOUNCED_AT_ONCE = 4;

export class LeaseMembership implements Membership {
  readonly clustered = true;
  readonly nodeId: string;
  /** This node's call-id slot (0..15), known after join(). */
  slot = -1;
  private readonly held = new Map<number, Held>();
  /** Other nodes' live leases at the last look: owner and local deadline. */
  private readonly others = new Map<number, { owner: string; deadline: number }>();
  private readonly listeners: Listener[] = [];
  /** Each tenant's announcements, chained in order: each heard by every listener before the next. */
  private readonly announcing = new KeyedChain<number>();
  /**
   * Tenants whose loss is still being heard, with how many losses: not owned meanwhile, even
   * when taken again, because until its listeners have run this node still holds the lost
   * lease's state (its calls, their timers), which must not be written or published as the
   * next lease's.
   */
  private readonly losing = new Map<number, number>();
  private announcers = 0;
  private readonly queued: (() => void)[] = [];
  private timer?: NodeJS.Timeout;
  private watchdog?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private state: 'new' | 'running' | 'paused' | 'closed' = 'new';
  private unsettledRechecks = 0;
  /** A refresh came while a tick ran: look again right after it. */
  private again = false;
  private draining = false;
  /** Whether another live node could be given tenants, at the last look. */
  private othersEligible = false;
  /** This tick took or gave up a tenant: tell the others once it ends. */
  private moved = false;
  private liveNodes: string[] = [];

  private url: string | null;

  constructor(private readonly o: LeaseMembershipOptions) {
    this.nodeId = o.nodeId;
    this.url = o.url;
  }

  /** The URL shown for this node (GET /cluster), from the next heartbeat on. */
  setUrl(url: string): void {
    this.url = url;
  }

  // ---- the port --------------------------------------------------------------------------

  /**
   * Past its deadline a lease is not owned, even before the watchdog says so: a process that
   * stalled (a long pause, SIGSTOP) runs its overdue timers and buffered I/O before the watchdog's
   * timer, and what they raise must not go out as the owner's (its successor ran the tenant
   * meanwhile).
   */
  owns(tenantId: number): boolean {
    const h = this.held.get(tenantId);
    return h !== undefined && performance.now() < h.deadline && !this.losing.has(tenantId);
  }

  ownerOf(tenantId: number): string | undefined {
    if (this.held.has(tenantId)) return this.owns(tenantId) ? this.nodeId : undefined;
    const o = this.others.get(tenantId);
    return o && performance.now() < o.deadline ? o.owner : undefined;
  }

  epochOf(tenantId: number): number | undefined {
    return this.owns(tenantId) ? this.held.get(tenantId)!.epoch : undefined;
  }

  onChange(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  // ---- life ------------------------------------------------------------------------------

  /** Registers this node (its row and call-id slot). Before start(), so the slot is known early. */
  async join(): Promise<number> {
    this.slot = await this.o.nodes.register(this.registration());
    return this.slot;
  }

  /** Takes part: the first placement now, then a tick every third of the TTL. */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    if (this.slot < 0) await this.join();
    this.state = 'running';
    await this.runTick();
  }

  /** Looks again now (another node left or handed tenants over; a tenant was added). */
  refresh(): void {
    if (this.state !== 'running') return;
    if (this.ticking) this.again = true;
    else this.schedule(0);
  }

  /** The tenants this node holds, with their epochs. */
  holdings(): { tenantId: number; epoch: number }[] {
    return [...this.held].map(([tenantId, h]) => ({ tenantId, epoch: h.epoch }));
  }

  /** The nodes alive at the last look (this one included while it heartbeats). */
  aliveNodes(): readonly string[] {
    return this.liveNodes;
  }

  /**
   * Before leaving (SIGTERM): the node says it may no longer be given tenants, so every tenant's
   * preferred owner is another live node, and hands each over as the tick finds it idle (at once
   * for those with no call; the others as their calls end), for at most `ms`. Answers once it
   * holds nothing or the time is up; `close` then gives up what is left, cutting its calls.
   * Nothing to wait for when no other node could take the tenants, at the start or later (every
   * node stopping at once): the drain then ends at the next look.
   */
  async drain(ms: number): Promise<void> {
    if (this.state !== 'running' || ms <= 0 || this.held.size === 0) return;
    if (!this.othersEligible) return;
    this.draining = true;
    const until = performance.now() + ms;
    this.o.log.info(
      { tenants: this.held.size, ms },
      'cluster: draining: handing tenants over as they go idle',
    );
    this.refresh();
    while (this.draining && this.held.size > 0 && this.state === 'running' && performance.now() < until) {
      await new Promise((r) => setTimeout(r, Math.min(DRAIN_LOOK_MS, until - performance.now())));
    }
    if (this.held.size > 0 && this.draining)
      this.o.log.warn({ tenants: this.held.size }, 'cluster: drain time is up; the calls left are cut');
  }

  /** Whether the node is draining (about to leave): it takes no tenant and gives its own away. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Tests: stops the tick, as if the process stalled (the leases lapse; the watchdog still runs). */
  pause(): void {
    if (this.state !== 'running') return;
    this.state = 'paused';
    clearTimeout(this.timer);
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.state = 'running';
    this.schedule(0);
  }

  /** Leaves: every tenant is announced lost, its lease released, the node row removed. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const started = this.state !== 'new';
    this.state = 'closed';
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    await this.ticking;
    const held = this.holdings();
    for (const { tenantId, epoch } of held) this.lose(tenantId, epoch, 'node leaving');
    await this.announcing.all();
    try {
      await this.o.leases.release(this.nodeId, held);
      if (started || this.slot >= 0) await this.o.nodes.remove(this.nodeId);
    } catch (err) {
      this.o.log.warn({ err }, 'cluster: could not release leases on leaving (they lapse after the TTL)');
    }
    if (held.length) this.o.onMoved?.();
  }

  // ---- the tick --------------------------------------------------------------------------

  /** A method, not a field read: the state changes across the tick's awaits. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.runTick(), ms);
    this.timer.unref?.();
  }

  private runTick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      let next = this.o.ttlMs / 3;
      try {
        next = await this.tick();
      } catch (err) {
        this.o.log.warn({ err }, 'cluster: membership tick failed');
        this.expireOverdue();
      } finally {
        this.ticking = undefined;
      }
      if (this.moved) this.o.onMoved?.();
      this.moved = false;
      if (this.again) next = 0;
      this.again = false;
      if (this.state === 'running') this.schedule(next);
    })();
    return this.ticking;
  }

  /** One look at the cluster; answers when to look next. */
  private async tick(): Promise<number> {
    const started = performance.now();
    this.expireOverdue();
    const { o } = this;
    const eligible = !this.draining && (o.eligible?.() ?? true);
    const [present] = await Promise.all([o.nodes.heartbeat(this.nodeId, eligible, this.url), this.renew()]);
    if (!present) await this.rejoin();
    if (this.isClosed()) return o.ttlMs / 3;

    const sentAt = performance.now();
    const [{ now: nodesNow, nodes }, { now, leases }] = await Promise.all([o.nodes.list(), o.leases.list()]);
    const byTenant = new Map(leases.map((l) => [l.tenantId, l]));
    this.noteOthers(leases, now, sentAt);
    const preferredOf = placement(nodes);
    this.liveNodes = nodes.filter((n) => n.alive).map((n) => n.nodeId);
    this.othersEligible = nodes.some((n) => n.alive && n.eligible && n.nodeId !== this.nodeId);
    if (this.draining && !this.othersEligible) {
      // No one left to hand tenants to (every node is stopping, or the others lost NATS): this
      // node would be everyone's preferred owner again, and must take what it was given back.
      this.draining = false;
      o.log.warn({}, 'cluster: no other node can take tenants; the drain ends');
    }

    const tenants = new Set(o.tenants());
    let unowned = 0;
    for (const t of tenants) {
      if (this.isClosed()) break;
      const preferred = preferredOf(t);
      if (this.held.has(t)) {
        if (preferred !== this.nodeId && o.isIdle(t))
          await this.handOver(t, `preferred owner is ${preferred}`);
        continue;
      }
      const lease = byTenant.get(t);
      const free = !lease || lease.expiresAt <= now;
      if (free && preferred === this.nodeId && !this.draining) await this.acquire(t);
      else if (free) unowned++;
    }
    for (const t of [...this.held.keys()]) {
      if (!tenants.has(t) && o.isIdle(t)) await this.handOver(t, 'tenant removed');
    }

    // The cadence counts from this tick's start: a slow database must not stretch the renewals.
    let next = o.ttlMs / 3 - (performance.now() - started);
    // Look again just after another node's heartbeat or lease lapses (a node died: take over).
    for (const n of nodes) {
      if (n.alive && n.nodeId !== this.nodeId)
        next = Math.min(next, n.heartbeatAt + n.ttlMs - nodesNow + AFTER_LAPSE_MS);
    }
    for (const l of leases) {
      if (l.owner !== this.nodeId && l.expiresAt > now)
        next = Math.min(next, l.expiresAt - now + AFTER_LAPSE_MS);
    }
    if (this.draining) next = Math.min(next, DRAIN_LOOK_MS);
    if (unowned > 0 && this.unsettledRechecks < UNSETTLED_RECHECKS) {
      this.unsettledRechecks++;
      next = Math.min(next, UNSETTLED_RECHECK_MS);
    } else if (unowned === 0) {
      this.unsettledRechecks = 0;
    }
    return Math.max(next, 10);
  }

  private async rejoin(): Promise<void> {
    const slot = await this.o.nodes.register(this.registration());
    this.o.log.warn({ slot, previous: this.slot }, 'cluster: node row was gone; registered again');
    if (slot !== this.slot) {
      this.slot = slot;
      this.o.onSlot?.(slot);
    }
  }

  private async renew(): Promise<void> {
    const held = this.holdings();
    if (!held.length) return;
    const sentAt = performance.now();
    const { renewed } = await this.o.leases.renew(this.nodeId, held, this.o.ttlMs);
    for (const { tenantId, epoch } of held) {
      const h = this.held.get(tenantId);
      if (!h || h.epoch !== epoch) continue;
      if (renewed.has(tenantId)) h.deadline = sentAt + this.o.ttlMs;
      else this.lose(tenantId, epoch, 'renewal refused');
    }
    this.armWatchdog();
  }

  private async acquire(tenantId: number): Promise<void> {
    const sentAt = performance.now();
    const r = await this.o.leases.acquire(tenantId, this.nodeId, this.o.ttlMs);
    if (!r.acquired || this.isClosed()) {
      if (r.acquired) await this.o.leases.release(this.nodeId, [{ tenantId, epoch: r.epoch }]);
      return;
    }
    this.held.set(tenantId, { epoch: r.epoch, deadline: sentAt + this.o.ttlMs });
    this.others.delete(tenantId);
    this.armWatchdog();
    const previousOwner = r.previousOwner;
    this.o.log.info({ tenantId, epoch: r.epoch, previousOwner }, 'cluster: tenant acquired');
    void this.announce({
      tenantId,
      owned: true,
      epoch: r.epoch,
      ...(previousOwner ? { previousOwner } : {}),
    });
    this.moved = true;
  }

  /** Gives an idle tenant to its preferred node: announced first, then released in the database. */
  private async handOver(tenantId: number, why: string): Promise<void> {
    const h = this.held.get(tenantId);
    if (!h) return;
    this.lose(tenantId, h.epoch, why);
    await this.announcing.pending(tenantId);
    await this.o.leases.release(this.nodeId, [{ tenantId, epoch: h.epoch }]);
    this.moved = true;
  }

  /** This node no longer runs the tenant: owns() turns false at once, the listeners hear it next. */
  private lose(tenantId: number, epoch: number, why: string): void {
    if (this.held.get(tenantId)?.epoch !== epoch) return;
    this.held.delete(tenantId);
    const log = why === 'renewal refused' || why === 'lease lapsed' ? 'warn' : 'info';
    this.o.log[log]({ tenantId, epoch, why }, 'cluster: tenant given up');
    this.losing.set(tenantId, (this.losing.get(tenantId) ?? 0) + 1);
    const heard = () => {
      const n = this.losing.get(tenantId)! - 1;
      if (n > 0) this.losing.set(tenantId, n);
      else this.losing.delete(tenantId);
    };
    void this.announce({ tenantId, owned: false, epoch }).then(heard, heard);
  }

  /** Leases whose TTL passed on this node's clock without a renewal are lost, whatever the database says. */
  private expireOverdue(): void {
    const now = performance.now();
    const overdue = [...this.held].filter(([, h]) => h.deadline <= now);
    for (const [tenantId, h] of overdue) this.lose(tenantId, h.epoch, 'lease lapsed');
    if (overdue.length) {
      // Ended for good, so that the next grant (to anyone, this node too) gets a new epoch.
      const ended = overdue.map(([tenantId, h]) => ({ tenantId, epoch: h.epoch }));
      this.o.leases.release(this.nodeId, ended).catch(() => {});
    }
    this.armWatchdog();
  }

  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    if (this.state === 'closed' || !this.held.size) return;
    let first = Infinity;
    for (const h of this.held.values()) first = Math.min(first, h.deadline);
    this.watchdog = setTimeout(() => this.expireOverdue(), Math.max(0, first - performance.now()) + 1);
    this.watchdog.unref?.();
  }

  private noteOthers(leases: readonly Lease[], now: number, readAt: number): void {
    this.others.clear();
    for (const l of leases) {
      if (l.owner === this.nodeId || l.expiresAt <= now) continue;
      this.others.set(l.tenantId, { owner: l.owner, deadline: readAt + (l.expiresAt - now) });
    }
  }

  /** A gain is taken over until its announcement (the last of its tenant's) reached every listener. */
  takingOver(tenantId: number): Promise<void> | undefined {
    return this.held.has(tenantId) ? this.announcing.pending(tenantId) : undefined;
  }

  /** Resolves once every listener has heard the change (they never reject: `tell` logs). */
  private announce(change: OwnershipChange): Promise<void> {
    return this.announcing.run(change.tenantId, () => this.inTurn(() => this.tell(change)));
  }

  private async tell(change: OwnershipChange): Promise<void> {
    for (const l of [...this.listeners]) {
      try {
        await l(change);
      } catch (err) {
        this.o.log.error({ err, change }, 'cluster: ownership listener failed');
      }
    }
  }

  /** Runs `f` once fewer than ANNOUNCED_AT_ONCE others run; a finished one hands its turn on. */
  private async inTurn(f: () => Promise<void>): Promise<void> {
    if (this.announcers < ANNOUNCED_AT_ONCE) this.announcers++;
    else await new Promise<void>((r) => this.queued.push(r));
    try {
      await f();
    } finally {
      const next = this.queued.shift();
      if (next) next();
      else this.announcers--;
    }
  }

  private registration() {
    const { nodeId, host, pid, ttlMs } = this.o;
    return { nodeId, url: this.url, host, pid, ttlMs };
  }
}

/**
 * Each tenant's preferred owner among these nodes (GET /cluster shows the same): rendezvous
 * hashing over the live, eligible nodes; over all live ones when none is eligible.
 */
export function placement(nodes: readonly NodeInfo[]): (tenantId: number) => string | undefined {
  const live = nodes.filter((n) => n.alive);
  const eligible = live.filter((n) => n.eligible);
  const ids = (eligible.length ? eligible : live).map((n) => n.nodeId);
  return (tenantId) => preferredNode(tenantId, ids);
}
