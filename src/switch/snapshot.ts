/** The simulator's view of everything live (`GET /sim/v1/state`). */
import { parkAccountId } from '../core/accounts.js';
import type { Core } from './core.js';
import { view } from './model.js';
import { legsOnDevice } from './origination.js';
import { pstnView } from './outside.js';
import { parkKey } from './registry.js';
import type { ParkLocationStatus, SimState } from './types.js';

export function parkStatus(core: Core, tenantId: number, n: number): ParkLocationStatus {
  const leg = core.reg.parked.get(parkKey(tenantId, n));
  const s: ParkLocationStatus = { account: parkAccountId(n, tenantId), state: leg ? 'busy' : 'idle' };
  if (leg) {
    s.parkedParty = leg.party.id;
    s.parkedPartyName = leg.presented.name;
    s.callObserverId = leg.id;
  }
  return s;
}

export function snapshot(core: Core): SimState {
  const now = core.now();
  const dir = core.dir;
  const devices = dir
    .list('device')
    .sort((a, b) => a.tenantId - b.tenantId || a.id.localeCompare(b.id))
    .map((d) => ({
      deviceId: d.id,
      tenantId: d.tenantId,
      ownerExt: d.ownerExt,
      model: d.model,
      registered: core.presence.isRegistered(d.id),
      calls: legsOnDevice(core, d).map((l) => l.id),
      messages: [...(core.messages.get(d.id) ?? [])],
    }));
  const calls = [...core.reg.calls.values()].map((c) => ({
    smdrCallId: c.smdrCallId,
    tenantId: c.tenantId,
    startedAt: c.startedAt,
    legs: c.legs.filter((l) => l.state !== 'ended').map((l) => view(l, now)),
  }));
  const queues: SimState['queues'] = [];
  const parkLocations: SimState['parkLocations'] = [];
  for (const t of dir.tenants()) {
    const waiting = [...(core.reg.queued.get(t.tenantId)?.values() ?? [])];
    for (const e of dir.extensions(t.tenantId)) {
      if (e.type !== 'acdExt') continue;
      queues.push({
        tenantId: t.tenantId,
        acdExt: e.ext,
        name: e.name,
        calls: waiting
          .filter((l) => l.queue === e.ext)
          .map((l) => ({
            smdrCallId: l.call.smdrCallId,
            callerLegId: l.id,
            from: l.presented.number,
            callerName: l.presented.name,
            since: l.queuedAt ?? l.startTime,
          })),
      });
    }
    for (const n of dir.parkLocations(t.tenantId)) {
      parkLocations.push({ tenantId: t.tenantId, number: n, ...parkStatus(core, t.tenantId, n) });
    }
  }
  return {
    now,
    devices,
    calls,
    queues,
    parkLocations,
    pstnCalls: [...core.reg.pstn.values()].map(pstnView),
    pstnNumbers: [...core.pstnNumbers.entries()].map(([number, b]) => ({ number, ...b })),
  };
}
