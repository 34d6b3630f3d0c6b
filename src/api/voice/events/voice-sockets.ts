import type { WebSocket } from 'ws';
import type { Principal } from '../../../core/permissions.js';
import type { Directory } from '../../../directory/directory.js';
import { identityOf, type ResumeSessions } from '../../continuity/index.js';
import type { SocketSlot } from '../../limits/index.js';
import type { Placement } from '../../route-core/placement.js';
import type { AccountKind, ParkScope, SubscriptionIndex, SubscriptionSet } from './subscriptions.js';

/** One open /api/ws connection and the subscription sets created on it. */
export interface VoiceSocket {
  id: string;
  owner: Principal;
  ws: WebSocket;
  slot: SocketSlot;
  sets: Map<string, SubscriptionSet>;
  /** Opened with `resume`: outlives its connection for the grace period (docs/events.md). */
  resumable?: boolean;
  /** In a cluster: stops sending this socket's requests here (Placement.holdSocket). */
  release?: () => void;
}

/** A resumable socket's sets as stored, to build them again on the socket that resumes it. */
export interface VoiceSessionState {
  sets: {
    id: string;
    accounts: Record<AccountKind, string[]>;
    parkScope: ParkScope;
    emergencyAllSites?: boolean;
  }[];
}

export { identityOf } from '../../continuity/index.js';

/** The open voice sockets by webSocketId. Closing one cancels its subscription sets. */
export class VoiceSockets {
  private readonly byId = new Map<string, VoiceSocket>();
  private changes = 0;

  constructor(
    readonly index: SubscriptionIndex,
    private readonly directory?: Directory,
    private readonly sessions?: ResumeSessions,
    /** A cluster node's: requests on a socket's sets, made on any node, come to its holder. */
    private readonly placement?: Placement,
  ) {}

  /**
   * Grows with every change of what the subscription-set reads answer: a set created or changed,
   * a socket closed (kept reads, route-core/read-cache.ts). A socket added changes no kept
   * answer: before it, its reads were 404s, and those are never kept.
   */
  get generation(): number {
    return this.changes;
  }

  add(s: VoiceSocket): void {
    this.byId.set(s.id, s);
    if (this.placement)
      s.release = this.placement.holdSocket(
        s.id,
        () => heldState(s),
        (identity) => this.takenOver(s.id, identity),
      );
  }

  /**
   * In a cluster, resolves once the sockets added so far can be reached from every node
   * (Placement.socketsHeard); undefined on a standalone server, where they are at once.
   */
  heard(): Promise<void> | undefined {
    return this.placement?.socketsHeard();
  }

  /** The socket, only when `p` is its owner (others are told it does not exist). */
  ownedBy(id: string, p: Principal): VoiceSocket | undefined {
    const s = this.byId.get(id);
    return s && identityOf(s.owner) === identityOf(p) ? s : undefined;
  }

  /**
   * A set of socket `id` when `p` owns the socket: held here or, in a cluster, by another node (as
   * it stands there now). The status reads by set run on the tenant's owner, the socket anywhere.
   */
  async findSet(id: string, setId: string, p: Principal): Promise<SetView | undefined> {
    const here = this.byId.get(id);
    if (here || !this.placement) return this.ownedBy(id, p)?.sets.get(setId);
    const held = (await this.placement.socketState(id)) as HeldState | undefined;
    const stored = held?.owner === identityOf(p) ? held.sets.find((s) => s.id === setId) : undefined;
    if (!stored || p.tenantId === undefined) return undefined;
    return {
      id: stored.id,
      webSocketId: id,
      tenantId: p.tenantId,
      accounts: {
        call: new Set(stored.accounts.call),
        presence: new Set(stored.accounts.presence),
        park: new Set(stored.accounts.park),
      },
      parkScope: stored.parkScope,
    };
  }

  /** A new, empty subscription set of `socket`. */
  newSet(socket: VoiceSocket, id: string, tenantId: number): SubscriptionSet {
    return {
      id,
      webSocketId: socket.id,
      tenantId,
      owner: socket.owner,
      accounts: { call: new Set(), presence: new Set(), park: new Set() },
      parkScope: 'none',
      resumable: socket.resumable,
      deliver: (frame) => {
        socket.slot.touch();
        socket.ws.send(frame);
      },
    };
  }

  /** Re-indexes a set after any change to it (and stores a resumable socket's sets). */
  reindex(set: SubscriptionSet): void {
    const site = set.owner.ext ? this.directory?.extension(set.tenantId, set.owner.ext)?.siteId : undefined;
    this.index.update(set, site);
    this.changed(set.webSocketId);
  }

  /** A set was added to or changed on the socket. */
  changed(id: string): void {
    this.changes++;
    const s = this.byId.get(id);
    if (s?.resumable) this.sessions?.update(id, stateOf(s));
  }

  /** A resumable socket whose sets are built again from their stored state (not yet indexed). */
  restore(base: Omit<VoiceSocket, 'sets' | 'resumable'>, state: VoiceSessionState): VoiceSocket {
    const socket: VoiceSocket = { ...base, sets: new Map(), resumable: true };
    for (const stored of state.sets) {
      const set = this.newSet(socket, stored.id, base.owner.tenantId!);
      for (const kind of ['call', 'presence', 'park'] as const)
        set.accounts[kind] = new Set(stored.accounts[kind]);
      set.parkScope = stored.parkScope;
      if (stored.emergencyAllSites !== undefined) set.emergencyAllSites = stored.emergencyAllSites;
      socket.sets.set(set.id, set);
    }
    return socket;
  }

  /**
   * Closes a resumable socket of `p` that a new connection resumes (its drop not yet seen): here,
   * or in a cluster on the node that holds it, which has stored the session as detached when this
   * resolves.
   */
  async takeOver(id: string, p: Principal): Promise<void> {
    if (this.byId.has(id) || !this.placement) this.closeResumed(id, identityOf(p));
    else await this.placement.takeOverSocket(id, identityOf(p));
  }

  /**
   * Another node resumes socket `id` for `identity`: it closes here (if still open), and what
   * this node stores of the session (its close, now or a moment ago) is written first.
   */
  private async takenOver(id: string, identity: string): Promise<void> {
    this.closeResumed(id, identity);
    await this.sessions?.written();
  }

  private closeResumed(id: string, identity: string): boolean {
    const s = this.byId.get(id);
    if (!s?.resumable || identityOf(s.owner) !== identity) return false;
    this.close(id);
    s.ws.close(1000, 'resumed on another connection');
    return true;
  }

  /** Closes the socket `id` (only when it still is connection `ws`, if given). */
  close(id: string, ws?: WebSocket): void {
    const s = this.byId.get(id);
    if (!s || (ws && s.ws !== ws)) return;
    this.changes++;
    this.byId.delete(id);
    s.release?.();
    if (s.resumable) this.sessions?.detach(id, stateOf(s));
    for (const set of s.sets.values()) this.index.remove(set);
    s.sets.clear();
    s.slot.release();
  }

  count(): number {
    return this.byId.size;
  }

  setCount(): number {
    let n = 0;
    for (const s of this.byId.values()) n += s.sets.size;
    return n;
  }
}

/** What a set's status reads need of it, wherever the socket is. */
export type SetView = Pick<SubscriptionSet, 'id' | 'webSocketId' | 'tenantId' | 'accounts' | 'parkScope'>;

/** A socket as its node tells another: whose it is, and its sets. */
interface HeldState extends VoiceSessionState {
  owner: string;
}
const heldState = (s: VoiceSocket): HeldState => ({ owner: identityOf(s.owner), ...stateOf(s) });

function stateOf(s: VoiceSocket): VoiceSessionState {
  return {
    sets: [...s.sets.values()].map((set) => ({
      id: set.id,
      accounts: {
        call: [...set.accounts.call],
        presence: [...set.accounts.presence],
        park: [...set.accounts.park],
      },
      parkScope: set.parkScope,
      ...(set.emergencyAllSites === undefined ? {} : { emergencyAllSites: set.emergencyAllSites }),
    })),
  };
}
