import { isoDuration, isoWithOffset } from '../../../core/durations.js';
import type { CallEvent, EmergencyEvent, ParkLocationEvent, PresenceEvent } from '../../../switch/types.js';

export type FramedEvent = CallEvent | PresenceEvent | ParkLocationEvent | EmergencyEvent;

/**
 * The wire body of an event without its `subscriptionSetId`, which differs per set. Field names
 * and types are the spec's: `callId` is a JSON number, timestamps carry an offset, version `v1`.
 */
export function eventBody(e: FramedEvent): Record<string, unknown> {
  const common = (event: string) => ({
    event,
    observedParty: e.observed,
    timestamp: isoWithOffset(e.at),
    version: 'v1',
  });
  switch (e.type) {
    case 'call': {
      const { callDurationMs, ...rest } = e.fields as Record<string, unknown> & { callDurationMs?: number };
      const body: Record<string, unknown> = {
        ...common(e.name),
        callId: Number(e.callObserverId),
        smdrCallId: e.smdrCallId,
        ...rest,
      };
      if (callDurationMs !== undefined) body.callDuration = isoDuration(callDurationMs);
      return body;
    }
    case 'presence': {
      const body: Record<string, unknown> = common(e.name);
      if (e.name === 'joinedGroup') body.groupJoined = e.groupJoined;
      if (e.name === 'leftGroup') body.groupLeft = e.groupLeft;
      return body;
    }
    case 'parkLocation': {
      const body: Record<string, unknown> = common(e.name);
      if (e.name === 'busy') {
        body.parkedParty = e.parkedParty;
        body.parkedPartyName = e.parkedPartyName;
      }
      return body;
    }
    case 'emergency':
      return {
        ...common('emergencyCallAlert'),
        callId: Number(e.callObserverId),
        from: e.from,
        to: e.to,
        siteId: e.siteId,
        siteName: e.siteName,
      };
  }
}

/** A set's frame: its id, the sequence for a resumable socket (docs/events.md), then the body. */
export type SetFramer = (subscriptionSetId: string, sequence?: number) => string;

/** Serializes the shared body once; each set's frame only prepends its id. */
export function framer(e: FramedEvent): SetFramer {
  return framerOf(JSON.stringify(eventBody(e)).slice(1));
}

/** The framer of a body already serialized (`rest`: its JSON without the opening brace). */
export function framerOf(rest: string): SetFramer {
  return (id, sequence) =>
    sequence === undefined
      ? `{"subscriptionSetId":${JSON.stringify(id)},${rest}`
      : `{"subscriptionSetId":${JSON.stringify(id)},"sequence":${sequence},${rest}`;
}
