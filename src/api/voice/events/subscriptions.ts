import type { Principal } from '../../../core/permissions.js';

export type AccountKind = 'call' | 'presence' | 'park';
export type ParkScope = 'all' | 'none' | 'set';

/** A subscription set: what one WebSocket asked to hear, for one tenant. */
export interface SubscriptionSet {
  id: string;
  webSocketId: string;
  tenantId: number;
  owner: Principal;
  accounts: Record<AccountKind, Set<string>>;
  parkScope: ParkScope;
  /** undefined: no emergency subscription; true: all sites; false: the owner's site only. */
  emergencyAllSites?: boolean;
  /** On a resumable socket: its frames carry their sequence (docs/events.md). */
  resumable?: boolean;
  deliver(frame: string): void;
}

/**
 * Index from event keys to subscription sets, so an event costs O(its subscribers). Keys are
 * `<kind>|<account>` where account is an account id (`101@1001`, `PL2@1001`) or a group token
 * scoped to the set's tenant (`ALL@1001`, `ALL_ACD_EXTENSIONS@1001`, ...), and
 * `emergency|<tenantId>` / `emergency|<tenantId>|<siteId>`.
 */
export class SubscriptionIndex {
  private readonly byKey = new Map<string, Set<SubscriptionSet>>();
  private readonly keysOf = new Map<SubscriptionSet, Set<string>>();

  /** Re-indexes a set after any change to it. */
  update(set: SubscriptionSet, siteOfOwner?: string): void {
    this.remove(set);
    const keys = new Set<string>();
    for (const kind of ['call', 'presence', 'park'] as const) {
      for (const a of set.accounts[kind]) keys.add(`${kind}|${tenantScoped(a, set.tenantId)}`);
    }
    if (set.parkScope === 'all') keys.add(`park|ALL@${set.tenantId}`);
    if (set.emergencyAllSites === true) keys.add(`emergency|${set.tenantId}`);
    else if (set.emergencyAllSites === false && siteOfOwner)
      keys.add(`emergency|${set.tenantId}|${siteOfOwner}`);
    for (const k of keys) {
      const s = this.byKey.get(k) ?? new Set<SubscriptionSet>();
      s.add(set);
      this.byKey.set(k, s);
    }
    this.keysOf.set(set, keys);
  }

  remove(set: SubscriptionSet): void {
    for (const k of this.keysOf.get(set) ?? []) {
      const s = this.byKey.get(k);
      s?.delete(set);
      if (s?.size === 0) this.byKey.delete(k);
    }
    this.keysOf.delete(set);
  }

  /** Whether the set listens on any of `keys`. */
  hears(set: SubscriptionSet, keys: readonly string[]): boolean {
    const mine = this.keysOf.get(set);
    return !!mine && keys.some((k) => mine.has(k));
  }

  /** Every set listening on any of `keys`, once each. */
  collect(keys: readonly string[]): Set<SubscriptionSet> {
    const out = new Set<SubscriptionSet>();
    for (const k of keys) for (const s of this.byKey.get(k) ?? []) out.add(s);
    return out;
  }
}

/** Group tokens without a tenant part are the set's tenant's. */
function tenantScoped(account: string, tenantId: number): string {
  return account.includes('@') ? account : `${account}@${tenantId}`;
}
