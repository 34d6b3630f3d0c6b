/**
 * Call park: `parkCall` moves the other party to a park location (`PL<n>`), the first idle one
 * when none is named. `retrieveParkedCall` connects a user's phone to the parked party. A parked
 * call that nobody retrieves within the tenant's park recall time (default 180 s) leaves the
 * location and rings the user who parked it (with that user's normal coverage).
 */
import { parkAccountId } from '../core/accounts.js';
import { conflict, notFound } from '../core/errors.js';
import type { Core } from './core.js';
import { systemProperties } from './dial-plan.js';
import { callEvent, label, segment } from './events.js';
import { connect, endLeg, fail, SYSTEM } from './lifecycle.js';
import type { Leg } from './model.js';
import { parkKey } from './registry.js';
import { deliver } from './routing.js';

export const DEFAULT_PARK_RECALL_MS = 180_000;

function checkLocation(core: Core, tenantId: number, n: number): void {
  if (!core.dir.parkLocations(tenantId).includes(n)) {
    throw notFound('PARK_LOCATION_NOT_FOUND', `No park location PL${n} in tenant ${tenantId}`);
  }
}

/** The leg parked at a location, or a typed error. */
export function parkedAt(core: Core, tenantId: number, n: number): Leg {
  checkLocation(core, tenantId, n);
  const leg = core.reg.parked.get(parkKey(tenantId, n));
  if (!leg) throw conflict('PARK_LOCATION_IDLE', `Nothing is parked at PL${n}`);
  return leg;
}

export function parkCall(core: Core, leg: Leg, n: number | undefined): void {
  const other = leg.peer;
  if (!other || !['connected', 'held', 'remoteHeld'].includes(leg.state)) {
    throw conflict('CALL_NOT_CONNECTED', 'Only a connected or held call can be parked');
  }
  if (other.kind === 'point' || other.kind === 'voicemail') {
    throw conflict('CALL_NOT_PARKABLE', 'A call with a menu or voicemail cannot be parked');
  }
  const tenantId = leg.tenantId;
  let location = n;
  if (location === undefined) {
    location = core.dir.parkLocations(tenantId).find((x) => !core.reg.parked.has(parkKey(tenantId, x)));
    if (location === undefined) throw conflict('NO_PARK_LOCATION_AVAILABLE', 'Every park location is busy');
  } else {
    checkLocation(core, tenantId, location);
    if (core.reg.parked.has(parkKey(tenantId, location))) {
      throw conflict('PARK_LOCATION_BUSY', `PL${location} is busy`);
    }
  }
  leg.peer = undefined;
  other.peer = undefined;
  leg.holding = false;
  other.holding = false;
  other.state = 'parked';
  other.parkLocation = location;
  other.parkedBy = leg.ext;
  other.far = leg.party;
  core.reg.parked.set(parkKey(tenantId, location), other);
  const where = parkAccountId(location, tenantId);
  const fields = {
    parkingPartyNumber: leg.party.number,
    parkingPartyName: leg.party.name,
    parkLocationId: where,
    parkedPartyNumber: other.presented.number,
    parkedPartyName: other.presented.name,
  };
  callEvent(core, leg, 'park', fields);
  callEvent(core, other, 'park', fields);
  core.emit({
    type: 'parkLocation',
    name: 'busy',
    tenantId,
    observed: where,
    at: core.now(),
    parkedParty: other.party.id,
    parkedPartyName: other.presented.name,
  });
  segment(core, other.call, 'parked', `Parked at PL${location} by ${label(leg.party)}`, leg.party);
  endLeg(core, leg, leg.party.id, 'parked');
  const systemRecallS = systemProperties(core.dir)?.parkRecallSeconds;
  const recallMs =
    core.dir.tenant(tenantId)?.parkRecallMs ??
    (systemRecallS ? systemRecallS * 1000 : DEFAULT_PARK_RECALL_MS);
  core.legTimer(other, recallMs, () => recall(core, other));
}

/** The location becomes idle (retrieved, recalled, or the parked party hung up). */
export function releasePark(core: Core, leg: Leg): void {
  const n = leg.parkLocation;
  if (n === undefined) return;
  leg.parkLocation = undefined;
  const key = parkKey(leg.tenantId, n);
  if (core.reg.parked.get(key) === leg) core.reg.parked.delete(key);
  core.emit({
    type: 'parkLocation',
    name: 'idle',
    tenantId: leg.tenantId,
    observed: parkAccountId(n, leg.tenantId),
    at: core.now(),
  });
}

function recall(core: Core, parked: Leg): void {
  const n = parked.parkLocation;
  releasePark(core, parked);
  const parker = parked.parkedBy ? core.dir.extension(parked.tenantId, parked.parkedBy) : undefined;
  segment(core, parked.call, 'recall', `Park recall from PL${n}`);
  if (!parker) {
    endLeg(core, parked, SYSTEM, 'noAnswer');
    return;
  }
  deliver(
    core,
    parked,
    { kind: 'extension', ext: parker },
    n === undefined ? undefined : parkAccountId(n, parked.tenantId),
  );
}

/** The retriever's phone is off-hook: connect it to the parked party. */
export function completeRetrieve(core: Core, retriever: Leg, n: number): void {
  const parked = core.reg.parked.get(parkKey(retriever.tenantId, n));
  if (!parked) {
    fail(core, retriever, `Nothing is parked at PL${n}`, undefined, 'callError');
    return;
  }
  core.clearLegTimer(parked);
  releasePark(core, parked);
  const where = parkAccountId(n, retriever.tenantId);
  const base = {
    retrievingPartyName: retriever.party.name,
    retrievingPartyID: retriever.party.id,
    parkLocationID: where,
    parkedPartyNumber: parked.presented.number,
    parkedPartyName: parked.presented.name,
  };
  callEvent(core, retriever, 'retrieve', { ...base, observedPartyID: retriever.party.id });
  callEvent(core, parked, 'retrieved', { ...base, observedPartyID: parked.party.id });
  connect(core, retriever, parked);
  segment(
    core,
    parked.call,
    'retrieved',
    `Retrieved from PL${n} by ${label(retriever.party)}`,
    retriever.party,
  );
}
