/** Hold, resume and transfer. Hold is a flag per side: the holder is `held`, the other `remoteHeld`. */
import { conflict } from '../core/errors.js';
import type { Core } from './core.js';
import { callEvent, label, segment } from './events.js';
import { endLeg } from './lifecycle.js';
import type { Leg } from './model.js';
import { talkState } from './model.js';

function talking(leg: Leg): Leg {
  const peer = leg.peer;
  if (!peer || !['connected', 'held', 'remoteHeld'].includes(leg.state)) {
    throw conflict('CALL_NOT_CONNECTED', 'The call is not connected');
  }
  return peer;
}

export function hold(core: Core, leg: Leg): void {
  const peer = talking(leg);
  if (leg.holding) throw conflict('CALL_ALREADY_HELD', 'The call is already on hold');
  leg.holding = true;
  leg.state = talkState(leg);
  peer.state = talkState(peer);
  const fields = { holdingParty: leg.party.id, heldParty: peer.party.id };
  callEvent(core, leg, 'hold', fields);
  callEvent(core, peer, 'hold', fields);
  segment(core, leg.call, 'held', `Held by ${label(leg.party)}`, leg.party);
}

// The mirror of hold, kept apart: its own error, event and field names read better than flags.
export function resume(core: Core, leg: Leg): void {
  const peer = talking(leg);
  if (!leg.holding) throw conflict('CALL_NOT_HELD', 'The call is not on hold');
  leg.holding = false;
  leg.state = talkState(leg);
  peer.state = talkState(peer);
  const fields = { resumingParty: leg.party.id, heldParty: peer.party.id };
  callEvent(core, leg, 'resume', fields);
  callEvent(core, peer, 'resume', fields);
  segment(core, leg.call, 'resumed', `Resumed by ${label(leg.party)}`, leg.party);
}

/**
 * The user has one held call and one active call: their two other parties are joined and the
 * user's legs end. `path` and `other` may name them in either order.
 */
export function transfer(core: Core, path: Leg, other: Leg): void {
  if (path === other) throw conflict('TRANSFER_NEEDS_TWO_CALLS', 'otherCallId must name a different call');
  const held = path.state === 'held' ? path : other.state === 'held' ? other : undefined;
  const active = held === path ? other : path;
  if (!held || active.state !== 'connected' || !held.peer || !active.peer) {
    throw conflict('TRANSFER_NEEDS_HELD_AND_ACTIVE', 'Transfer needs one held call and one active call');
  }
  const transferee = held.peer;
  const target = active.peer;
  if (transferee === target) throw conflict('TRANSFER_NEEDS_TWO_CALLS', 'Both calls reach the same party');
  const fields = {
    transferringParty: path.party.id,
    transferee: transferee.party.id,
    transferTarget: target.party.id,
  };
  callEvent(core, path, 'transfer', fields);
  callEvent(core, transferee, 'transfer', fields);
  callEvent(core, target, 'transfer', fields);
  // Rewires four legs (lifecycle's endLeg resets one): the user's two unhooked, their parties joined.
  held.peer = undefined;
  active.peer = undefined;
  held.holding = false;
  transferee.holding = false;
  target.holding = false;
  transferee.peer = target;
  target.peer = transferee;
  transferee.far = target.party;
  target.far = transferee.party;
  transferee.transferred = true;
  target.transferred = true;
  transferee.state = talkState(transferee);
  target.state = talkState(target);
  const text = `Transferred by ${label(path.party)}: ${label(transferee.party)} to ${label(target.party)}`;
  segment(core, transferee.call, 'transferred', text, path.party);
  if (target.call !== transferee.call) segment(core, target.call, 'transferred', text, path.party);
  endLeg(core, held, path.party.id, 'transferred');
  endLeg(core, active, path.party.id, 'transferred');
}
