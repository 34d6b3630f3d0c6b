import type { Principal } from '../../core/permissions.js';

/**
 * The contact-center event sockets, by the tenant whose events each may hear: an event walks its
 * own tenant's sockets and the unscoped telco users' (who hear every tenant), never every socket,
 * so its cost does not grow with the other tenants' sockets (issue 19). Whether a socket of that
 * audience takes the event (permissions, `subscribe`) is still the fan-out's to judge.
 */
export class SessionIndex<S extends { principal: Principal }> {
  private readonly all = new Set<S>();
  private readonly everyTenant = new Set<S>();
  private readonly byTenant = new Map<number, Set<S>>();

  get size(): number {
    return this.all.size;
  }

  add(s: S): void {
    this.all.add(s);
    const p = s.principal;
    if (p.authority === 'telco') this.everyTenant.add(s);
    else if (p.tenantId !== undefined) {
      let mine = this.byTenant.get(p.tenantId);
      if (!mine) this.byTenant.set(p.tenantId, (mine = new Set()));
      mine.add(s);
    }
  }

  has(s: S): boolean {
    return this.all.has(s);
  }

  /** Whether it was held. */
  delete(s: S): boolean {
    if (!this.all.delete(s)) return false;
    this.everyTenant.delete(s);
    const tenantId = s.principal.tenantId;
    const mine = tenantId === undefined ? undefined : this.byTenant.get(tenantId);
    if (mine?.delete(s) && mine.size === 0) this.byTenant.delete(tenantId!);
    return true;
  }

  /** The sockets that may hear an event of the tenant: its own, then the unscoped telco users'. */
  *audience(tenantId: number): Generator<S> {
    yield* this.byTenant.get(tenantId) ?? [];
    yield* this.everyTenant;
  }

  values(): IterableIterator<S> {
    return this.all.values();
  }
}
