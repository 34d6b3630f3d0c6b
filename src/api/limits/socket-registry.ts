/**
 * WebSocket admission and idle time-out, shared by both socket endpoints (docs/decisions.md §1.8):
 * `max` sockets in all, `perClient` per client (principal + IP, or IP for pending sockets), and
 * a socket with no traffic in either direction for `idleMs` is closed. Real time, like every transport timer.
 */
export interface SocketLimits {
  max: number;
  perClient: number;
  idleMs: number;
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { SharedInflight, SharedSocketClaims } from '../../core/shared-security.js';
import { TakeBack } from './take-back.js';

export type AdmissionRefusal = 'global' | 'client';

/** A claim taken by `check` and not yet admitted is given back after this long. */
const RESERVATION_MS = 30_000;
/**
 * When a claim refused because of the client's sockets on other nodes is asked again (after 50,
 * 200 and 500 ms). A socket its client just closed frees its claim a moment later (its node hears
 * the close, then deletes the claim), so a client reconnecting through another node at once would
 * otherwise be refused where a single node admits it. A second socket that really is one too many
 * is refused this much later (the contact-center connect time-out still bounds the whole connect).
 */
const RELEASE_LOOKS_MS = [50, 150, 300];
export const RELEASE_GRACE_MS = RELEASE_LOOKS_MS.reduce((a, b) => a + b);

export interface SocketSlot {
  /** Traffic in either direction: postpones the idle close. */
  touch(): void;
  /** Frees the slot and stops the idle timer. Idempotent. */
  release(): void;
}

export class SocketRegistry {
  private total = 0;
  private readonly perClient = new Map<string, number>();
  /** Cluster claims taken by `check`, per client, waiting for their socket's `admit`. */
  private readonly reserved = new Map<string, { claim: string; timer: NodeJS.Timeout }[]>();

  /** Cluster only (`counts`): the slots that may be taken back. */
  private readonly takeBack = new TakeBack();
  /** Cluster only (`shared`): the open sockets' claims, and what closes each socket. */
  private readonly claimed = new Map<string, () => void>();

  /**
   * In a cluster (docs/cluster.md), the client's sockets on every node count: `shared` claims
   * each socket in the database (authenticated sockets: one per client, checked before the
   * upgrade); `counts` sums the counts every node announces (pending sockets: many, cheap), and
   * a client found over its limit there loses its newest sockets here (`admit`'s `onTakenBack`)
   * unless the nodes with lower ids hold them (the in-flight limits' rule).
   */
  constructor(
    private readonly limits: () => SocketLimits,
    private readonly shared?: SharedSocketClaims,
    private readonly counts?: SharedInflight,
  ) {
    counts?.onHeard((client) => this.heard(client));
    shared?.onLost((claim) => this.claimed.get(claim)?.());
  }

  private heard(client: string): void {
    const here = this.perClient.get(client) ?? 0;
    this.takeBack.shed(client, here, this.limits().perClient, this.counts!.ahead(client));
  }

  /**
   * `refusal`, and in a cluster the client's sockets on the other nodes too: a slot found free
   * there is claimed for this client's next `admit`; none free is looked for again during
   * `RELEASE_GRACE_MS` (one such wait per client at a time on this node: its other connects are
   * refused at once), while `wanted` (its socket or upgrade is still open). A claim taken for a
   * socket no longer wanted, or beyond a limit reached here meanwhile, is given back at once.
   */
  async check(client: string, wanted: () => boolean = () => true): Promise<AdmissionRefusal | null> {
    const local = this.refusal(client);
    if (local || !this.shared) return local;
    const claim = await this.claimWithinGrace(client, this.shared, wanted);
    if (!claim) return 'client';
    const late = this.refusal(client) ?? (wanted() ? null : 'client');
    if (late) {
      this.shared.free(claim);
      return late;
    }
    const waiting = this.reserved.get(client) ?? [];
    const timer = setTimeout(() => {
      const i = waiting.findIndex((r) => r.claim === claim);
      if (i < 0) return;
      waiting.splice(i, 1);
      if (waiting.length === 0) this.reserved.delete(client);
      this.shared?.free(claim);
    }, RESERVATION_MS);
    timer.unref?.();
    waiting.push({ claim, timer });
    this.reserved.set(client, waiting);
    return null;
  }

  /** The clients waiting here for a claim to be freed elsewhere. */
  private readonly inGrace = new Set<string>();

  private async claimWithinGrace(
    client: string,
    shared: SharedSocketClaims,
    wanted: () => boolean,
  ): Promise<string | null> {
    const claim = await shared.claim(client, this.limits().perClient);
    if (claim || this.inGrace.has(client)) return claim;
    this.inGrace.add(client);
    try {
      for (const wait of RELEASE_LOOKS_MS) {
        await sleep(wait);
        if (!wanted()) return null;
        const again = await shared.claim(client, this.limits().perClient);
        if (again) return again;
      }
      return null;
    } finally {
      this.inGrace.delete(client);
    }
  }

  private takeReservation(client: string): string | undefined {
    const waiting = this.reserved.get(client);
    const r = waiting?.shift();
    if (!r) return undefined;
    if (waiting!.length === 0) this.reserved.delete(client);
    clearTimeout(r.timer);
    return r.claim;
  }

  /** Why a new socket of `client` would be refused now, or null when it may open. */
  refusal(client: string): AdmissionRefusal | null {
    const l = this.limits();
    if (this.total >= l.max) return 'global';
    const elsewhere = this.counts?.elsewhere(client) ?? 0;
    if ((this.perClient.get(client) ?? 0) + elsewhere >= l.perClient) return 'client';
    return null;
  }

  /**
   * Takes a slot (call after `refusal` said null); `onIdle` runs when the socket idles out, and
   * in a cluster `onTakenBack` when the slot is taken back (the slot is freed): the client is
   * over its limit on every node (`counts`), or its claim was found gone (`shared`: this node
   * stalled, and the client may have opened a socket elsewhere since).
   */
  admit(client: string, onIdle: () => void, onTakenBack?: () => void): SocketSlot {
    const claim = this.takeReservation(client);
    this.total++;
    const n = (this.perClient.get(client) ?? 0) + 1;
    this.perClient.set(client, n);
    this.counts?.changed(client, n);
    const { idleMs } = this.limits();
    let last = Date.now();
    let released = false;
    let timer: NodeJS.Timeout | undefined;
    // One timer per socket, re-armed lazily: traffic only stamps `last`.
    const arm = (delay: number) => {
      timer = setTimeout(() => {
        const idle = Date.now() - last;
        if (idle >= idleMs) {
          slot.release();
          onIdle();
        } else arm(idleMs - idle);
      }, delay);
      timer.unref?.();
    };
    const slot: SocketSlot = {
      touch: () => {
        last = Date.now();
      },
      release: () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        if (claim) {
          this.claimed.delete(claim);
          this.shared?.free(claim);
        }
        this.total--;
        const n = (this.perClient.get(client) ?? 1) - 1;
        if (n > 0) this.perClient.set(client, n);
        else this.perClient.delete(client);
        this.counts?.changed(client, n);
        endOffer?.();
      },
    };
    arm(idleMs);
    const endOffer = this.counts && onTakenBack ? this.offer(client, slot, onTakenBack) : undefined;
    if (claim && onTakenBack)
      this.claimed.set(claim, () => {
        slot.release();
        onTakenBack();
      });
    return slot;
  }

  private offer(client: string, slot: SocketSlot, onTakenBack: () => void): () => void {
    return this.takeBack.offer(client, () => {
      slot.release();
      onTakenBack();
    });
  }

  open(client?: string): number {
    return client === undefined ? this.total : (this.perClient.get(client) ?? 0);
  }
}
