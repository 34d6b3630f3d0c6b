import { invalid, notFound } from '../core/errors.js';
import type { CcCall } from './cc-call.js';
import type { CcCallSnapshot } from './types.js';

/**
 * The contact center's live calls (queue calls and click-to-call), until their record is written.
 * Held by id and by tenant: a tenant's lists walk its own calls, never every tenant's.
 */
export class CallBook {
  private readonly calls = new Map<string, CcCall>();
  private readonly byTenant = new Map<number, Map<string, CcCall>>();

  get(smdrCallId: string): CcCall | undefined {
    return this.calls.get(smdrCallId);
  }

  add(call: CcCall): void {
    this.calls.set(call.smdrCallId, call);
    let mine = this.byTenant.get(call.tenantId);
    if (!mine) this.byTenant.set(call.tenantId, (mine = new Map()));
    mine.set(call.smdrCallId, call);
  }

  remove(smdrCallId: string): void {
    const call = this.calls.get(smdrCallId);
    if (!call) return;
    this.calls.delete(smdrCallId);
    const mine = this.byTenant.get(call.tenantId);
    mine?.delete(smdrCallId);
    if (mine?.size === 0) this.byTenant.delete(call.tenantId);
  }

  clear(): void {
    this.calls.clear();
    this.byTenant.clear();
  }

  /** Whether the tenant has a call here, ended or not. */
  hasAny(tenantId: number): boolean {
    return this.byTenant.has(tenantId);
  }

  /** The tenant's calls, ended or not. */
  ofTenant(tenantId: number): CcCall[] {
    return [...(this.byTenant.get(tenantId)?.values() ?? [])];
  }

  /** A call of the tenant that has not ended, or undefined. */
  live(tenantId: number, smdrCallId: string): CcCall | undefined {
    const c = this.calls.get(smdrCallId);
    return c && c.tenantId === tenantId && c.status !== 'ended' ? c : undefined;
  }

  /** The tenant's live calls, newest first. */
  snapshots(tenantId: number, now: number): CcCallSnapshot[] {
    return this.ofTenant(tenantId)
      .filter((c) => c.status !== 'ended')
      .sort((a, b) => b.init.startedAt - a.init.startedAt)
      .map((c) => c.snapshot(now));
  }

  /** A live call of the tenant, or a typed error. */
  require(tenantId: number, smdrCallId: string): CcCall {
    const c = this.live(tenantId, smdrCallId);
    if (!c) throw notFound('CALL_NOT_FOUND', 'Call not found');
    return c;
  }

  /** A call of the tenant waiting in a queue (ringing an agent counts), or a typed error. */
  requireWaiting(tenantId: number, smdrCallId: string): CcCall {
    const call = this.require(tenantId, smdrCallId);
    if (!call.isWaiting) throw invalid('CALL_NOT_WAITING', 'Call is not waiting in a queue');
    return call;
  }

  /** The tenant's calls waiting for an agent, oldest in the queue first. */
  waiting(tenantId: number): CcCall[] {
    return this.ofTenant(tenantId)
      .filter((c) => c.status === 'waiting' && c.acdExt)
      .sort((a, b) => (a.queuedAt ?? 0) - (b.queuedAt ?? 0));
  }

  /** The calls in one queue (waiting or ringing an agent). */
  inQueue(tenantId: number, acdExt: string): CcCall[] {
    return this.ofTenant(tenantId).filter((c) => c.acdExt === acdExt && c.isWaiting);
  }
}
