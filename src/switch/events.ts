/** Builders of the switch's call events and call-record segments. */
import type { Core } from './core.js';
import type { Call, Leg, Party } from './model.js';
import type { CallEvent, CallEventFields, CallEventName } from './types.js';

const SIP_EVENTS = new Set<CallEventName>(['dial', 'offer', 'ringback', 'ringing', 'answer']);

/** The call includes a SIP endpoint from now on: its setup events carry a SIP Call-ID. */
export function markSip(call: Call): void {
  call.sipCallId ??= `${call.smdrCallId}@switchboard`;
}

/**
 * Sends a call event to the party of `leg`, if that party is observed (an internal account).
 * After a leg's `end` nothing more is sent for it.
 */
export function callEvent<N extends CallEventName>(
  core: Core,
  leg: Leg,
  name: N,
  fields: CallEventFields[N],
): void {
  core.callChanged(leg.tenantId, leg.call.smdrCallId);
  if (!leg.account) return;
  if (leg.closed) {
    core.report(new Error(`switch: ${name} after end on leg ${leg.id}`));
    return;
  }
  if (name === 'end') leg.closed = true;
  const sip = leg.call.sipCallId;
  if (sip !== undefined && SIP_EVENTS.has(name)) fields = { ...fields, sipCallId: sip };
  core.emit({
    type: 'call',
    name,
    tenantId: leg.tenantId,
    observed: leg.account,
    callObserverId: leg.id,
    smdrCallId: leg.call.smdrCallId,
    at: core.now(),
    fields,
  } as CallEvent);
}

/** Adds a step to the call's timeline (the call record's segments). */
export function segment(core: Core, call: Call, kind: string, text: string, who?: Party): void {
  const s: Call['segments'][number] = { at: core.now(), kind, text };
  if (who?.account) s.account = who.account;
  else if (who) s.number = who.number;
  call.segments.push(s);
  core.callChanged(call.tenantId, call.smdrCallId);
}

/** `101 Bob Brown`, `+15551234567`, `Voicemail`. */
export function label(p: Party): string {
  if (p.account) return p.name ? `${p.number} ${p.name}` : p.number;
  return p.name && p.name !== p.number ? `${p.number} (${p.name})` : p.number || p.name;
}
