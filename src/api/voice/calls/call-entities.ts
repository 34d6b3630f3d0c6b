import { isoDuration, isoWithOffset } from '../../../core/durations.js';
import type { LegSummary, LegView } from '../../../switch/types.js';
import { link } from '../hal/links.js';
import type { Entity, ItemSchema } from '../hal/model.js';

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

/** What `filter` may name on the active-calls list: every scalar of the Call. */
export const ACTIVE_CALL_FIELDS: ItemSchema = {
  fields: {
    callId: 'string',
    smdrCallId: 'string',
    from: 'string',
    to: 'string',
    callState: 'string',
    startTime: 'string',
    answerTime: 'string',
    talkDuration: 'string',
    digitsDialed: 'string',
    redirected: 'boolean',
    transferred: 'boolean',
  },
};

/**
 * An element of the active-calls list: the summary, and (built only when expanded or filtered on)
 * the Call resource itself, from the leg as the switch shows it then. A class, so that the list's
 * hot path allocates no closure per element.
 */
export class ActiveCallItem implements Entity {
  readonly props: Record<string, unknown>;
  readonly links: Entity['links'];
  private call: Entity | undefined;

  constructor(
    leg: LegSummary,
    private readonly legs: { leg(callObserverId: string): LegView | undefined },
  ) {
    this.props = { callId: leg.callObserverId, smdrCallId: leg.smdrCallId, from: leg.from, to: leg.to };
    this.links = { self: link(callHref(leg.callObserverId)) };
  }

  resource(): Entity {
    return (this.call ??= callEntity(this.legs.leg(this.props.callId as string)!));
  }
}
