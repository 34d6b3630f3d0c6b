import type { Principal } from '../../core/permissions.js';
import { ReadCache } from '../route-core/read-cache.js';
import type { CachedRead } from '../route-core/route-core.js';
import type { CcRuntime } from './cc-runtime.js';

/**
 * The contact-center reads kept as text (route-core/read-cache.ts, issue 19), by what their
 * answer depends on besides the caller and the URL:
 *
 * - `directory`: tenants, products, roles, ACDs, presence options, extensions. Kept while the
 *   directory has not changed (its count moves with every change, local or applied from another
 *   node of a cluster).
 * - `calls`: the call list, one call, the call search. Kept while neither the directory nor the
 *   contact center's calls changed (`ContactCenter.callGeneration`: a switch fact, a record
 *   stored, a tenant taken over or given up, a reset), and only while the caller's tenant has no
 *   call under way: a live call's answer carries its duration, which moves by itself. In a
 *   cluster these reads run on the tenant's owner (they name no other tenant), where its calls
 *   change; a node that gives a tenant up or takes it over moves the count.
 * - `texts`: a tenant's SMS/MMS counters. Kept while neither the directory nor the counters
 *   changed (`ContactCenter.textGeneration`: a message counted, a reset, a tenant taken over or
 *   given up). In a cluster the read and the simulator's count both run on the tenant's owner.
 *
 * - `agents`: an agent's state. Kept while neither the directory nor the agents changed
 *   (`ContactCenter.agentGeneration`: a state changed, restored or forgotten, a reset, any change
 *   of the switch's legs, which make the phone state), and only within the second its three
 *   durations (`HH:MM:SS`) read the same in (the handler marks it, route-core/kept-window.ts).
 *   In a cluster the read runs on the tenant's owner.
 */
export type CcKeptBy = 'directory' | 'calls' | 'texts' | 'agents';

const byRuntime = new WeakMap<CcRuntime, Record<CcKeptBy, CachedRead>>();

export function ccCachedRead(runtime: CcRuntime, by: CcKeptBy): CachedRead {
  let reads = byRuntime.get(runtime);
  if (!reads) byRuntime.set(runtime, (reads = cachedReads(runtime)));
  return reads[by];
}

function cachedReads({ directory, contactCenter, clock }: CcRuntime): Record<CcKeptBy, CachedRead> {
  return {
    directory: { cache: new ReadCache(), generation: () => directory.generation },
    calls: {
      cache: new ReadCache(),
      // Both counts only grow, so their sum moves whenever either does.
      generation: (p: Principal) =>
        p.tenantId === undefined || contactCenter.hasLiveCalls(p.tenantId)
          ? undefined
          : directory.generation + contactCenter.callGeneration,
    },
    texts: { cache: new ReadCache(), generation: () => directory.generation + contactCenter.textGeneration },
    agents: {
      cache: new ReadCache(),
      generation: () => directory.generation + contactCenter.agentGeneration,
      now: () => clock.now(),
    },
  };
}
