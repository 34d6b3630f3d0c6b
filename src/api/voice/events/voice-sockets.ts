import type { WebSocket } from 'ws';
import type { Principal } from '../../../core/permissions.js';
import type { SocketSlot } from '../../limits/index.js';
import type { SubscriptionIndex, SubscriptionSet } from './subscriptions.js';

/** One open /api/ws connection and the subscription sets created on it. */
export interface VoiceSocket {
  id: string;
  owner: Principal;
  ws: WebSocket;
  slot: SocketSlot;
  sets: Map<string, SubscriptionSet>;
}

/** Same person, whatever username form they logged in with. */
export function identityOf(p: Principal): string {
  return p.ext !== undefined && p.tenantId !== undefined ? `${p.ext}@${p.tenantId}` : `telco:${p.username}`;
}

/** The open voice sockets by webSocketId. Closing one cancels its subscription sets. */
export class VoiceSockets {
  private readonly byId = new Map<string, VoiceSocket>();

  constructor(readonly index: SubscriptionIndex) {}

  add(s: VoiceSocket): void {
    this.byId.set(s.id, s);
  }

  /** The socket, only when `p` is its owner (others are told it does not exist). */
  ownedBy(id: string, p: Principal): VoiceSocket | undefined {
    const s = this.byId.get(id);
    return s && identityOf(s.owner) === identityOf(p) ? s : undefined;
  }

  close(id: string): void {
    const s = this.byId.get(id);
    if (!s) return;
    this.byId.delete(id);
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
