import { isoDuration, isoWithOffset } from '../../../core/durations.js';
import type { LegSummary, LegView } from '../../../switch/types.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';

export const callHref = (callObserverId: string) => `/api/v1/calls/${callObserverId}`;

/** The spec's Call resource for one party's leg. */
export function callEntity(leg: LegView): Entity {
  const props: Record<string, unknown> = {
    callId: leg.callObserverId,
    smdrCallId: leg.smdrCallId,
    from: leg.from,
    to: leg.to,
    callState: leg.state,
    startTime: isoWithOffset(leg.startTime),
  };
  // Every field of the spec's Call table is present; an unanswered call's answerTime is null.
  props.answerTime = leg.answerTime === undefined ? null : isoWithOffset(leg.answerTime);
  props.talkDuration = isoDuration(leg.talkDurationMs);
  props.digitsDialed = leg.digitsDialed;
  props.redirected = leg.redirected;
  props.transferred = leg.transferred;
  props.callParties = leg.callParties.map((p) => ({ PartyId: p.partyId, PartyName: p.partyName }));
  return {
    props,
    links: {
      self: link(callHref(leg.callObserverId)),
      'v1options:callRequest': link('/api/v1/enums/callrequest'),
    },
  };
}

/** An element of the active-calls list. */
export function activeCallEntity(leg: LegSummary): Entity {
  return {
    props: { callId: leg.callObserverId, smdrCallId: leg.smdrCallId, from: leg.from, to: leg.to },
    links: { self: link(callHref(leg.callObserverId)) },
  };
}
