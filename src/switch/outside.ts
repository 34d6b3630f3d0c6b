/**
 * The public network, simulated: calls out to outside numbers (with per-number behaviour),
 * outside callers dialing the tenants' DIDs, and what the outside parties do (answer, hang up,
 * send DTMF). Emergency calls raise their alert and go out like any outside call.
 */
import { conflict, invalid, notFound } from '../core/errors.js';
import { attendantDigits } from './attendant.js';
import type { Core } from './core.js';
import { isDialable, outsideNumber } from './dial-plan.js';
import { label, segment } from './events.js';
import { endLeg, fail, newCall, newLeg } from './lifecycle.js';
import type { Leg, Party } from './model.js';
import { originAnswered, originProceed } from './origination.js';
import { answerOffer, declineOffer, deliver, ringback } from './routing.js';
import type { PstnBehaviour, PstnCallView } from './types.js';

export const DEFAULT_PSTN_BEHAVIOUR: Required<PstnBehaviour> = {
  answer: 'auto',
  answerAfterMs: 2000,
  busy: false,
};
const PHONE_NUMBER = /^\+?[0-9*#]{2,20}$/;

export function behaviour(core: Core, number: string): Required<PstnBehaviour> {
  return { ...DEFAULT_PSTN_BEHAVIOUR, ...core.pstnNumbers.get(outsideNumber(number)) };
}

export function setBehaviour(
  core: Core,
  number: string,
  b: PstnBehaviour,
): PstnBehaviour & { number: string } {
  if (!PHONE_NUMBER.test(number.trim())) throw invalid('INVALID_NUMBER', `Not a phone number: ${number}`);
  if (b.answer !== 'manual' && b.answer !== 'auto')
    throw invalid('INVALID_ANSWER', 'answer must be manual or auto');
  const after = b.answerAfterMs;
  if (after !== undefined && !(Number.isInteger(after) && after >= 0 && after <= 86_400_000)) {
    throw invalid('INVALID_ANSWER_AFTER', 'answerAfterMs must be an integer from 0 to 86400000');
  }
  if (b.busy !== undefined && typeof b.busy !== 'boolean')
    throw invalid('INVALID_BUSY', 'busy must be a boolean');
  const stored: PstnBehaviour = { answer: b.answer };
  if (after !== undefined) stored.answerAfterMs = after;
  if (b.busy !== undefined) stored.busy = b.busy;
  const key = outsideNumber(number);
  core.pstnNumbers.set(key, stored);
  return { number: key, ...stored };
}

/** The caller dials an outside number: a PSTN leg alerts, answering per the number's behaviour. */
export function dialOutside(core: Core, caller: Leg, number: string, emergency: boolean): void {
  const call = caller.call;
  if (emergency) emergencyAlert(core, caller, number);
  if (call.direction === 'internal') call.direction = 'out';
  const party: Party = { id: number, number, name: number };
  const out = newLeg(core, call, {
    kind: 'pstn',
    party,
    state: 'ringing',
    direction: 'incoming',
    from: caller.presented.number,
    to: number,
    digitsDialed: caller.digitsDialed,
    far: caller.party,
  });
  out.pstn = { number, direction: 'outbound', answered: false };
  out.deviceId = number;
  core.reg.pstn.set(out.id, out);
  out.offerFrom = caller;
  caller.route = { kind: 'outside', target: out };
  if (!caller.peer) caller.far = party;
  segment(core, call, 'called', `Calling ${emergency ? 'emergency number ' : ''}${number}`, party);
  const b = behaviour(core, number);
  if (b.busy) {
    caller.route = undefined;
    endLeg(core, out, number, 'busy');
    fail(core, caller, 'Busy', 'Busy', 'busy');
    return;
  }
  ringback(core, caller);
  if (b.answer === 'auto') core.legTimer(out, b.answerAfterMs, () => answerOffer(core, out, number));
}

function emergencyAlert(core: Core, caller: Leg, number: string): void {
  segment(core, caller.call, 'emergency', `Emergency call to ${number}`, caller.party);
  if (!caller.account || !caller.ext) return;
  const ext = core.dir.extension(caller.tenantId, caller.ext);
  const site = ext?.siteId ? core.dir.get('site', ext.siteId) : undefined;
  core.emit({
    type: 'emergency',
    tenantId: caller.tenantId,
    observed: caller.account,
    callObserverId: caller.id,
    smdrCallId: caller.call.smdrCallId,
    from: caller.party.number,
    to: caller.digitsDialed,
    siteId: site?.id ?? ext?.siteId ?? '',
    siteName: site?.name ?? '',
    at: core.now(),
  });
}

/** An outside caller dials a DID. */
export function inboundCall(core: Core, p: { from: string; to: string; callerName?: string }): Leg {
  if (typeof p.from !== 'string' || !PHONE_NUMBER.test(p.from.trim())) {
    throw invalid('INVALID_NUMBER', 'from must be a phone number');
  }
  if (typeof p.to !== 'string' || !isDialable(p.to.trim()))
    throw invalid('INVALID_NUMBER', 'to must be a phone number');
  if (p.callerName !== undefined && typeof p.callerName !== 'string') {
    throw invalid('INVALID_CALLER_NAME', 'callerName must be a string');
  }
  const did = core.dir.didByNumber(p.to);
  if (!did) throw notFound('NUMBER_NOT_FOUND', `${p.to} is not a DID of any tenant`);
  const target = core.dir.extension(did.tenantId, did.targetExt);
  const from = outsideNumber(p.from);
  const name = p.callerName?.trim() || from;
  const party: Party = { id: from, number: from, name };
  const to = outsideNumber(did.number);
  const toParty: Party = target ? core.extensionParty(target) : { id: to, number: to, name: to };
  const call = newCall(core, did.tenantId, party, { ...toParty, number: to }, 'in');
  const leg = newLeg(core, call, {
    kind: 'pstn',
    party,
    state: 'dialing',
    direction: 'outgoing',
    from,
    to,
    digitsDialed: p.to.trim(),
    far: toParty,
  });
  leg.pstn = { number: from, direction: 'inbound', answered: true };
  leg.deviceId = from;
  core.reg.pstn.set(leg.id, leg);
  segment(core, call, 'inbound', `Inbound call from ${label(party)} to ${to}`, party);
  if (!target) fail(core, leg, 'Number not in service', 'Failed', 'callError');
  else deliver(core, leg, { kind: 'extension', ext: target });
  return leg;
}

export function pstnLeg(core: Core, id: string): Leg {
  const leg = core.reg.pstn.get(id);
  if (!leg?.pstn) throw notFound('PSTN_CALL_NOT_FOUND', `No outside call ${id}`);
  return leg;
}

export function pstnAnswer(core: Core, leg: Leg): void {
  const p = leg.pstn!;
  if (p.direction !== 'outbound' || p.answered || (leg.kind === 'pstn' && !leg.offerFrom)) {
    throw conflict('CALL_NOT_RINGING', 'The outside party has no call ringing');
  }
  if (leg.kind === 'user') originAnswered(core, leg);
  else answerOffer(core, leg, p.number);
}

export function pstnHangup(core: Core, leg: Leg): void {
  if (leg.kind === 'pstn' && leg.offerFrom) declineOffer(core, leg, 'rejected');
  else endLeg(core, leg, leg.pstn?.number ?? leg.party.id, 'normal');
}

export function pstnDigits(core: Core, leg: Leg, digits: string): void {
  if (typeof digits !== 'string' || !/^[0-9*#]{1,32}$/.test(digits)) {
    throw invalid('INVALID_DIGITS', 'digits must be 1 to 32 of 0-9, * and #');
  }
  if (!leg.pstn?.answered) throw conflict('CALL_NOT_CONNECTED', 'The outside call is not answered');
  if (leg.awaitingPrompt) {
    segment(core, leg.call, 'prompt', `Prompt confirmed with ${digits[0]}`, leg.party);
    originProceed(core, leg);
    return;
  }
  attendantDigits(core, leg, digits);
}

export function pstnView(leg: Leg): PstnCallView {
  const p = leg.pstn!;
  const ringing = p.direction === 'outbound' && !p.answered;
  return {
    pstnCallId: leg.id,
    from: p.direction === 'inbound' ? p.number : leg.kind === 'user' ? leg.party.number : leg.from,
    to: p.direction === 'inbound' ? leg.to : p.number,
    state: ringing ? 'ringing' : leg.state,
    callObserverId: leg.id,
    smdrCallId: leg.call.smdrCallId,
    direction: p.direction,
  };
}
