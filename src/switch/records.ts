/** The record of a call (built when it ends; the contact center writes it through the store), or of a live call as it stands. */
import type { Call } from './model.js';
import type { CallRecordData } from './types.js';

export function buildRecord(call: Call): CallRecordData {
  const parties: CallRecordData['parties'] = [];
  const seen = new Set<string>();
  for (const l of call.legs) {
    if (l.kind === 'point' || seen.has(l.party.id)) continue;
    seen.add(l.party.id);
    const p: CallRecordData['parties'][number] = { number: l.presented.number, name: l.presented.name };
    if (l.party.account) p.account = l.party.account;
    parties.push(p);
  }
  const r: CallRecordData = {
    smdrCallId: call.smdrCallId,
    tenantId: call.tenantId,
    from: endpoint(call.from),
    to: endpoint(call.to),
    direction: call.direction,
    startedAt: call.startedAt,
    endedAt: call.segments.at(-1)?.at ?? call.startedAt,
    outcome: call.outcome ?? outcome(call),
    parties,
    segments: call.segments,
  };
  if (call.answeredAt !== undefined) r.answeredAt = call.answeredAt;
  if (call.acd !== undefined) r.acd = call.acd;
  return r;
}

function outcome(call: Call): CallRecordData['outcome'] {
  if (call.answeredAt !== undefined) return 'Answered';
  if (call.voicemail) return 'Voicemail';
  if (call.queued) return 'Abandoned';
  return 'Unanswered';
}

function endpoint(p: Call['from']): CallRecordData['from'] {
  const e: CallRecordData['from'] = { number: p.number, name: p.name };
  if (p.account) e.account = p.account;
  return e;
}
