/**
 * Indexes over the live calls and legs, so that no operation scans every call: legs by id, by
 * observed account and by tenant; calls by smdrCallId; queue callers; parked legs; PSTN legs.
 */
import type { Call, Leg } from './model.js';

const RECENT_LIMIT = 1024;

export class Registry {
  readonly legs = new Map<string, Leg>();
  readonly calls = new Map<string, Call>();
  readonly byAccount = new Map<string, Set<Leg>>();
  readonly byTenant = new Map<number, Set<Leg>>();
  /** Callers waiting in a queue: tenant -> smdrCallId -> caller leg, oldest first. */
  readonly queued = new Map<number, Map<string, Leg>>();
  /** `<tenantId>:<n>` -> parked leg. */
  readonly parked = new Map<string, Leg>();
  /** Legs carried by the PSTN simulator, by pstnCallId (their callObserverId). */
  readonly pstn = new Map<string, Leg>();
  /** Recently ended legs, so a hung-up call can still be read. */
  private readonly recent = new Map<string, Leg>();
  /** Per tenant: when (monotonic ms) a leg last ended here. */
  private readonly lastEnded = new Map<number, number>();

  addCall(call: Call): void {
    this.calls.set(call.smdrCallId, call);
  }

  removeCall(call: Call): void {
    this.calls.delete(call.smdrCallId);
  }

  addLeg(leg: Leg): void {
    this.legs.set(leg.id, leg);
    if (leg.account) setOf(this.byAccount, leg.account).add(leg);
    setOf(this.byTenant, leg.tenantId).add(leg);
  }

  removeLeg(leg: Leg): void {
    this.legs.delete(leg.id);
    if (leg.account) deleteFrom(this.byAccount, leg.account, leg);
    deleteFrom(this.byTenant, leg.tenantId, leg);
    this.pstn.delete(leg.id);
    this.unqueue(leg);
    this.recent.set(leg.id, leg);
    this.lastEnded.set(leg.tenantId, performance.now());
    if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value as string);
  }

  /** Whether a leg of the tenant ended here within the last `ms` (monotonic time). */
  endedWithin(tenantId: number, ms: number): boolean {
    const at = this.lastEnded.get(tenantId);
    return at !== undefined && performance.now() - at < ms;
  }

  /** A live leg, or a recently ended one. */
  find(id: string): Leg | undefined {
    return this.legs.get(id) ?? this.recent.get(id);
  }

  legsOf(account: string): ReadonlySet<Leg> {
    return this.byAccount.get(account) ?? EMPTY;
  }

  legsOfTenant(tenantId: number): ReadonlySet<Leg> {
    return this.byTenant.get(tenantId) ?? EMPTY;
  }

  enqueue(leg: Leg): void {
    let m = this.queued.get(leg.tenantId);
    if (!m) {
      m = new Map();
      this.queued.set(leg.tenantId, m);
    }
    m.delete(leg.call.smdrCallId);
    m.set(leg.call.smdrCallId, leg);
  }

  unqueue(leg: Leg): void {
    const m = this.queued.get(leg.tenantId);
    if (m?.get(leg.call.smdrCallId) === leg) m.delete(leg.call.smdrCallId);
  }

  queuedCaller(call: Call): Leg | undefined {
    return this.queued.get(call.tenantId)?.get(call.smdrCallId);
  }

  clear(): void {
    this.legs.clear();
    this.calls.clear();
    this.byAccount.clear();
    this.byTenant.clear();
    this.queued.clear();
    this.parked.clear();
    this.pstn.clear();
    this.recent.clear();
    this.lastEnded.clear();
  }
}

const EMPTY: ReadonlySet<Leg> = new Set();

function setOf<K>(m: Map<K, Set<Leg>>, k: K): Set<Leg> {
  let s = m.get(k);
  if (!s) {
    s = new Set();
    m.set(k, s);
  }
  return s;
}

function deleteFrom<K>(m: Map<K, Set<Leg>>, k: K, leg: Leg): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(leg);
  if (s.size === 0) m.delete(k);
}

export const parkKey = (tenantId: number, n: number) => `${tenantId}:${n}`;
