import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { SessionStorePort, StoredSession } from '../../core/event-stream.js';
import type { EventJournal } from './event-journal.js';

interface Held {
  rec: StoredSession;
  expiry?: TimerHandle;
  /** The holder whose take (begin, claim) the store has: until then each write is a take. */
  taken?: string;
}

/** Why a resume did not happen (the client must read the status resources again). */
export type ResumeFailure = 'expired' | 'retention';

/**
 * Resumable socket sessions of both APIs. A session follows its tenant's stream in the journal
 * from the moment it begins until its grace period after the socket closed has passed; while
 * detached it can be claimed back by the same principal. Every change is written through, so a
 * session survives a restart of the node (its grace counts again from the restart at most).
 * Grace periods run on the server's clock (the virtual clock advances them too).
 *
 * In a cluster (`shared`) the store is every node's: a node holds only the sessions of its own
 * sockets, and a resume reads the session it names from the store first (`fetch`), since its
 * socket may have been another node's (a failover, a load balancer). Each attachment (a session
 * begun or claimed back) writes under a fresh holder token, and a node's later writes and its
 * removal hold only while the store still names its attachment: a node whose socket was resumed
 * elsewhere (its close seen late, or answered to a takeover after the resume stopped waiting)
 * neither marks the session detached under the new socket nor deletes it, and forgets its copy.
 * A node that died with sockets open wrote none of their detachments: every node lets go of a
 * dead node's sessions now and then (`releaseDead`), so they end their grace as if detached then;
 * a node started again under the same id does so for its own at start (`load`).
 */
export class ResumeSessions {
  private readonly held = new Map<string, Held>();
  /** Writes in the order they were made (one chain keeps each session's writes ordered). */
  private writes: Promise<void> = Promise.resolve();
  private closed = false;
  private releasing?: NodeJS.Timeout;
  private releasingNow = false;

  constructor(
    private readonly store: SessionStorePort,
    private readonly journal: EventJournal,
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly log: Logger,
    private readonly shared = false,
  ) {}

  /**
   * Restores the stored sessions as detached ones (those past their grace are forgotten). In a
   * cluster: only forgets those past their grace; the others are fetched when resumed.
   */
  async load(): Promise<void> {
    const now = this.clock.now();
    // An earlier process of this node (same id) may have stopped with sockets open.
    if (this.shared) await this.store.detachOwn(now);
    for (const rec of await this.store.all()) {
      if (this.shared) {
        if (rec.detachedAt !== null && rec.detachedAt + this.graceMs <= now)
          await this.store.remove(rec.id, { detachedAt: rec.detachedAt, holder: rec.holder });
        continue;
      }
      const since = rec.detachedAt ?? now;
      const left = Math.min(this.graceMs, since + this.graceMs - now);
      if (left <= 0) {
        await this.store.remove(rec.id);
        continue;
      }
      const h: Held = { rec: { ...rec, detachedAt: since } };
      this.held.set(rec.id, h);
      this.journal.follow(rec.tenantId);
      h.expiry = this.clock.setTimer(left, () => this.end(rec.id));
    }
    if (this.shared && !this.closed) {
      this.releasing = setInterval(() => void this.releaseDead(), releaseEveryMs(this.graceMs));
      this.releasing.unref();
    }
  }

  /**
   * Cluster: brings this node's copy of a session in line with the store before a resume claims
   * it (after this node's own pending writes). A session stored as attached, to a socket of
   * another node, counts as detached from now: its client is reconnecting. Standalone: no-op.
   */
  async fetch(id: string): Promise<StoredSession | undefined> {
    if (!this.shared) return this.held.get(id)?.rec;
    await this.writes;
    const rec = await this.store.get(id).catch((err: unknown) => {
      this.log.warn({ err, session: id }, 'resume session read failed');
      return undefined;
    });
    const h = this.held.get(id);
    if (h?.rec.detachedAt === null) return h.rec;
    if (!rec) {
      if (h) this.forget(id, h);
      return undefined;
    }
    const now = this.clock.now();
    const detachedAt = rec.detachedAt ?? now;
    const left = Math.min(this.graceMs, detachedAt + this.graceMs - now);
    if (left <= 0) {
      if (h) this.forget(id, h);
      return undefined;
    }
    if (h) {
      this.clock.clearTimer(h.expiry);
      h.rec = { ...rec, detachedAt };
    } else {
      this.held.set(id, { rec: { ...rec, detachedAt } });
      this.journal.follow(rec.tenantId);
    }
    const held = this.held.get(id)!;
    held.expiry = this.clock.setTimer(left, () => this.end(id));
    return held.rec;
  }

  /** A new session, attached to its socket. */
  begin(rec: Omit<StoredSession, 'detachedAt' | 'holder'>): void {
    const h: Held = { rec: { ...rec, detachedAt: null, holder: randomUUID() } };
    this.held.set(rec.id, h);
    this.journal.follow(rec.tenantId);
    this.write(h, true);
  }

  /** What the session subscribes to changed. */
  update(id: string, state: unknown): void {
    const h = this.held.get(id);
    if (!h) return;
    h.rec.state = state;
    this.write(h);
  }

  /** Its socket closed: the session waits for its grace period. */
  detach(id: string, state: unknown): void {
    const h = this.held.get(id);
    if (!h || h.rec.detachedAt !== null) return;
    h.rec.state = state;
    h.rec.detachedAt = this.clock.now();
    h.expiry = this.clock.setTimer(this.graceMs, () => this.end(id));
    this.write(h);
  }

  /** Whether the session is attached to a socket of this identity (a reconnect may take it over). */
  attachedTo(api: StoredSession['api'], id: string, identity: string): boolean {
    const h = this.held.get(id);
    return !!h && h.rec.api === api && h.rec.identity === identity && h.rec.detachedAt === null;
  }

  /** Takes a detached session back for `identity`; undefined when there is none to take. */
  claim(api: StoredSession['api'], id: string, identity: string): StoredSession | undefined {
    const h = this.held.get(id);
    if (!h || h.rec.api !== api || h.rec.identity !== identity || h.rec.detachedAt === null) return undefined;
    this.clock.clearTimer(h.expiry);
    h.expiry = undefined;
    h.rec.detachedAt = null;
    h.rec.holder = randomUUID();
    this.write(h, true);
    return h.rec;
  }

  /** Forgets a session (grace passed, resume failed, reset). */
  end(id: string): void {
    const h = this.held.get(id);
    if (!h) return;
    this.forget(id, h);
    if (this.closed) return;
    const ifStored = this.shared ? { detachedAt: h.rec.detachedAt, holder: h.rec.holder } : undefined;
    this.writes = this.writes
      .then(() => this.store.remove(id, ifStored))
      .catch((err) => this.log.warn({ err, session: id }, 'resume session removal failed'));
  }

  /** Drops this node's copy only. */
  private forget(id: string, h: Held): void {
    this.held.delete(id);
    this.clock.clearTimer(h.expiry);
    this.journal.unfollow(h.rec.tenantId);
  }

  /** Ends every detached session (their timers died with a clock reset). */
  endDetached(): void {
    for (const [id, h] of this.held) if (h.rec.detachedAt !== null) this.end(id);
  }

  /**
   * Cluster: sessions still stored as attached to a node that is no longer alive count as
   * detached from now, and those of dead nodes past their grace are removed. A client that
   * resumes one meanwhile claims it as from any other node (`fetch`).
   */
  async releaseDead(): Promise<void> {
    if (this.closed || this.releasingNow) return; // a slow database: one release at a time
    this.releasingNow = true;
    try {
      const r = await this.store.releaseDeadNodes(this.clock.now(), this.graceMs);
      if (r.detached || r.removed) this.log.info(r, 'resume sessions of dead nodes let go');
    } catch (err) {
      this.log.warn({ err }, 'resume sessions of dead nodes: release failed');
    } finally {
      this.releasingNow = false;
    }
  }

  /** Resolves once every write asked for so far is done (or failed). */
  written(): Promise<void> {
    return this.writes;
  }

  /**
   * Stops writing (the database closes next). Sockets the shutdown closes stay stored as attached;
   * after the restart they count as detached from then on.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.releasing);
    await this.writes;
  }

  /**
   * `take`: the session is this attachment's now (begun, claimed). Otherwise it must still be:
   * once the take is stored, a write that finds the row gone or another holder's does not apply.
   */
  private write(h: Held, take = false): void {
    if (this.closed) return;
    const snapshot = { ...h.rec };
    const { holder } = snapshot;
    this.writes = this.writes
      .then(async () => {
        if (take || holder === null || h.taken !== holder) {
          await this.store.put(snapshot);
          if (holder !== null) h.taken = holder;
          return;
        }
        if (await this.store.putHeld({ ...snapshot, holder })) return;
        // Resumed on another node meanwhile, or ended there: this copy is no longer the session.
        if (this.held.get(snapshot.id) !== h || h.rec.holder !== holder) return;
        this.forget(snapshot.id, h);
        this.log.info({ session: snapshot.id }, 'resume session taken over by another node; forgotten here');
      })
      .catch((err) => this.log.warn({ err, session: snapshot.id }, 'resume session write failed'));
  }
}

/** How often a node looks for dead nodes' sessions: twice a grace period, within 1 s to 1 min. */
export function releaseEveryMs(graceMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(graceMs / 2)));
}
