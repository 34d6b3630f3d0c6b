/**
 * Failover, composed (docs/cluster.md, Failover). The owner of a tenant keeps its live calls and
 * agent states durable as they change (the runtime's live-state journal); this file decides when
 * what a previous owner left is taken over:
 * - a standalone server, at start, before it serves: whatever is stored was left by its previous
 *   process (it died: kill -9, power loss; or it stopped with calls live);
 * - a cluster node, each time it gains a tenant: what earlier lease epochs left, claimed under
 *   its own epoch in a fenced transaction (a node that is no longer the owner gets nothing, so
 *   two nodes never both end the same calls). When it loses a tenant it forgets its live state.
 */
import { StaleEpochError } from '../core/cluster.js';
import type { LeftState } from '../store/live-state.js';
import type { Runtime } from './runtime.js';

/**
 * Takes over what was left: at once for a standalone server; for a cluster node, on each gain of
 * a tenant from now on (call before the membership takes its first lease). Returns the stop.
 */
export async function startFailover(runtime: Runtime): Promise<() => void> {
  const { membership } = runtime;
  if (!membership.clustered) {
    await recoverStandalone(runtime);
    return () => {};
  }
  return membership.onChange(async (change) => {
    try {
      if (change.owned) await takeOverTenant(runtime, change.tenantId, change.epoch);
      else await releaseTenant(runtime, change.tenantId, change.epoch);
    } catch (err) {
      runtime.log.error({ err, tenantId: change.tenantId }, 'taking over or releasing a tenant failed');
      throw err;
    }
  });
}

async function recoverStandalone(runtime: Runtime): Promise<void> {
  const { store, journal } = runtime.liveState;
  const left = await store.loadAll();
  if (left.calls.length === 0 && left.agents.length === 0 && left.devices.length === 0) return;
  catchUpVirtualClock(runtime, left);
  const tenants = new Set([...left.calls, ...left.agents, ...left.devices].map((x) => x.tenantId));
  for (const tenantId of [...tenants].sort((a, b) => a - b)) takeOver(runtime, tenantId, left);
  await journal.flush();
}

/** Claims what earlier owners of the tenant left, then makes it live here. */
export async function takeOverTenant(runtime: Runtime, tenantId: number, epoch: number): Promise<void> {
  const lease = { nodeId: runtime.membership.nodeId, epoch };
  let left: LeftState;
  try {
    left = await runtime.liveState.store.claim(tenantId, lease);
  } catch (err) {
    if (!(err instanceof StaleEpochError)) throw err;
    runtime.log.warn({ tenantId, epoch }, 'tenant taken over by another node before this one claimed it');
    return;
  }
  if (runtime.membership.epochOf(tenantId) !== epoch) return;
  // A cluster node has every phone as its owners have had it since it started (their events),
  // later than the rows: a row is what the previous owner's last batch wrote, and a change it made
  // just before it lost the lease may be missing there. It read the rows for the rest at its start.
  takeOver(runtime, tenantId, { ...left, devices: [] });
}

/** The tenant is no longer this node's: unwritten changes written if the lease allows, then live state goes. */
export async function releaseTenant(runtime: Runtime, tenantId: number, epoch: number): Promise<void> {
  await runtime.liveState.journal.release(tenantId, { nodeId: runtime.membership.nodeId, epoch });
  runtime.liveState.takeover.release(tenantId);
}

function takeOver(runtime: Runtime, tenantId: number, left: LeftState): void {
  const r = runtime.liveState.takeover.takeOver(tenantId, left);
  for (const f of r.failed) {
    runtime.log.error(
      { err: f.error, tenantId, smdrCallId: f.smdrCallId },
      'a lost call could not be taken over',
    );
  }
  if (r.ended.length + r.waiting.length + r.agents === 0) return;
  runtime.log.info(
    { tenantId, endedCalls: r.ended.length, waitingCalls: r.waiting.length, agents: r.agents },
    'took over the live state a lost node left',
  );
}

/**
 * A virtual clock starts at its start instant in every process: brought forward (never back) to
 * the last time the previous process wrote, so that what it left is not in the future.
 */
function catchUpVirtualClock(runtime: Runtime, left: LeftState): void {
  const { clock } = runtime;
  if (clock.mode !== 'virtual' || left.calls.length + left.agents.length === 0) return;
  const last = Math.max(...[...left.calls, ...left.agents].map((x) => x.updatedAt));
  if (last > clock.now()) clock.advance(last - clock.now());
}
