/**
 * Auto attendants: the menu answers the call and waits for a DTMF digit. A digit picks the
 * menu entry (an unknown digit repeats the menu); with no digit for `MENU_TIMEOUT_MS` the
 * attendant's timeout action runs (default: disconnect).
 */
import type { AutoAttendantAction, Extension } from '../directory/model.js';
import type { Core } from './core.js';
import { callEvent, label, segment } from './events.js';
import { newPointLeg } from './groups.js';
import { connect, endLeg } from './lifecycle.js';
import type { Leg } from './model.js';
import { deliver, forwardFromPoint } from './routing.js';

export const MENU_TIMEOUT_MS = 10_000;

const TARGET_TYPES: Record<string, Extension['type'][]> = {
  transferToExtension: ['userExt', 'locationExt'],
  transferToAcd: ['acdExt'],
  transferToGroup: ['groupExt'],
};

export function startAttendant(core: Core, caller: Leg, aa: Extension, via?: string): void {
  const point = newPointLeg(core, caller, aa, via);
  point.attendant = aa;
  connect(core, caller, point);
  point.deviceId = 'autoAttendant';
  const fields = { answeringParty: point.party.id, answeringDeviceId: 'autoAttendant' };
  callEvent(core, point, 'answer', fields);
  callEvent(core, caller, 'answer', fields);
  segment(core, caller.call, 'menu', `Answered by auto attendant ${label(point.party)}`, point.party);
  armMenu(core, point);
}

/** DTMF from the caller while it listens to a menu. Returns false when no menu listens. */
export function attendantDigits(core: Core, caller: Leg, digits: string): boolean {
  if (!caller.peer?.attendant) return false;
  for (const d of digits) {
    const point = caller.peer;
    if (!point?.attendant) break;
    segment(core, caller.call, 'menu', `Caller pressed ${d}`);
    run(core, point, point.attendant.autoAttendant?.menu[d] ?? { action: 'repeatMenu' });
  }
  return true;
}

function armMenu(core: Core, point: Leg): void {
  core.legTimer(point, MENU_TIMEOUT_MS, () =>
    run(core, point, point.attendant?.autoAttendant?.timeoutAction ?? { action: 'disconnect' }),
  );
}

function run(core: Core, point: Leg, action: AutoAttendantAction): void {
  const caller = point.peer;
  if (!caller) return;
  if (action.action === 'disconnect') {
    endLeg(core, point, point.party.id, 'normal');
    return;
  }
  const allowed = TARGET_TYPES[action.action];
  const target = allowed && action.target ? core.dir.extension(point.tenantId, action.target) : undefined;
  if (!target || !allowed.includes(target.type)) {
    if (action.action !== 'repeatMenu')
      segment(core, caller.call, 'error', `Menu target ${action.target} is not valid`);
    armMenu(core, point);
    return;
  }
  forwardFromPoint(core, caller, point, core.extensionParty(target).id);
  segment(core, caller.call, 'redirected', `Menu transferred to ${label(core.extensionParty(target))}`);
  deliver(core, caller, { kind: 'extension', ext: target }, point.party.id);
}
