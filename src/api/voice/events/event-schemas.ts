/**
 * The frames of the voice event socket /api/ws (spec: Events), as frames.ts renders them:
 * published in /openapi/voice-events.json and checked against every frame in the tests.
 */
import { type Static, type TProperties, type TSchema, Type } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

const Uuid = (description: string) => Type.String({ format: 'uuid', description });

/** `101@1001`: an extension of a tenant. */
const AccountId = (description: string) => Type.String({ pattern: '^[^@\\s]+@[0-9]+$', description });

/** Only on a resumable socket (docs/events.md). */
const Sequence = Type.Optional(
  Type.Integer({
    minimum: 1,
    description:
      'Only on a socket opened with `resume`: the event’s place in its tenant’s stream (increasing, ' +
      'never reused; gaps allowed). Resume with the last one received.',
  }),
);

/** The fields every call, presence and park-location event starts with. */
function common<E extends TSchema, O extends TSchema>(event: E, observedParty: O) {
  return {
    subscriptionSetId: Uuid('The subscription set that asked for the event.'),
    sequence: Sequence,
    event,
    observedParty,
    timestamp: Type.String({
      format: 'date-time',
      pattern: '[+-][0-9]{2}:[0-9]{2}$',
      description: 'ISO 8601 with a UTC offset, e.g. `2026-01-05T14:03:07.250+00:00`.',
    }),
    version: Type.Literal('v1'),
  };
}

/** `PL2@1001`: a park location of a tenant. */
const ParkLocationId = (description: string) => Type.String({ pattern: '^PL[0-9]+@[0-9]+$', description });

// ---- the socket's own frames --------------------------------------------------------------------

export const ResumeStatusSchema = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('started'), Type.Literal('resumed'), Type.Literal('failed'), Type.Literal('unavailable')],
      {
        description:
          '`started`: a new resumable socket. `resumed`: the socket named by `resume` is back, with ' +
          'its subscription sets; every event after `after` follows, then the live stream. `failed`: ' +
          'it could not be resumed (see `reason`): this is a new resumable socket without sets, so ' +
          'read the status resources again and create the sets anew. `unavailable`: a user of no ' +
          'tenant has no stream to resume; the socket is not resumable.',
      },
    ),
    sequence: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          '`started`, `failed`: the sequence of the tenant’s last event (the next frame is later). ' +
          '`resumed`: the `after` of the request.',
      }),
    ),
    reason: Type.Optional(
      Type.Union([Type.Literal('expired'), Type.Literal('retention')], {
        description:
          '`expired`: no resumable socket of yours by that id (its grace period passed, or it never ' +
          'existed). `retention`: the events after `after` are no longer all kept (or `after` is ' +
          'later than the last event).',
      }),
    ),
  },
  { ...closed, $id: 'ResumeStatus', description: 'Only on a socket opened with `resume` (docs/events.md).' },
);

export const WebSocketIdFrameSchema = Type.Object(
  {
    webSocketId: Uuid('Names this socket when creating subscription sets.'),
    resume: Type.Optional(ResumeStatusSchema),
  },
  { ...closed, $id: 'WebSocketIdFrame', description: 'The first frame on every socket.' },
);
export type WebSocketIdFrame = Static<typeof WebSocketIdFrameSchema>;

export const ClientMessageSchema = Type.Unknown({
  $id: 'ClientMessage',
  description: 'Any short message (text or JSON); Switchboard sends it back unchanged.',
});

// ---- call events ------------------------------------------------------------------------------

const SipCallId = Type.Optional(
  Type.String({ description: 'The SIP Call-ID; present only when the call includes a SIP endpoint.' }),
);
const Text = (description: string) => Type.String({ description });

function callEvent<E extends string, P extends TProperties>(
  event: E,
  $id: string,
  extra: P,
  description: string,
) {
  return Type.Object(
    {
      ...common(Type.Literal(event), AccountId('The observed account, e.g. `101@1001`.')),
      callId: Type.Integer({
        minimum: 0,
        description: "Joins the events of one party's call: the Call resource's callObserverId, as a number.",
      }),
      smdrCallId: Type.String({
        pattern: '^[0-9]{1,20}$',
        description: 'The call id of the detail records, shared by every party of the call.',
      }),
      ...extra,
    },
    { ...closed, $id, description },
  );
}

// One schema per call event of the spec, all through callEvent: they share a shape, each its own fields.
export const DialEventSchema = callEvent(
  'dial',
  'DialEvent',
  {
    from: Text('The dialing party.'),
    to: Text('What was dialed.'),
    sipCallId: SipCallId,
    dialingDeviceId: Text('The phone (or device) the call was dialed from.'),
  },
  'The account dialed a call.',
);

export const RingbackEventSchema = callEvent(
  'ringback',
  'RingbackEvent',
  { sipCallId: SipCallId },
  'The dialed call is ringing.',
);

export const OfferEventSchema = callEvent(
  'offer',
  'OfferEvent',
  {
    from: Text('The calling party.'),
    to: Text('The called party.'),
    via: Type.Optional(Text('The group, queue or attendant the call came through, when there is one.')),
    sipCallId: SipCallId,
    dialedDigits: Text('What the caller dialed.'),
    callingName: Text("The caller's name."),
  },
  'A call is offered to the account.',
);

export const RingingEventSchema = callEvent(
  'ringing',
  'RingingEvent',
  { ringingDeviceId: Text('The phone that rings.'), sipCallId: SipCallId },
  'The offered call rings on a phone.',
);

export const AnswerEventSchema = callEvent(
  'answer',
  'AnswerEvent',
  {
    answeringParty: Text('Who answered.'),
    answeringDeviceId: Text('The phone (or `voicemail`, `autoAttendant`) that answered.'),
    sipCallId: SipCallId,
  },
  'The offered or dialed call is answered.',
);

export const ForwardEventSchema = callEvent(
  'forward',
  'ForwardEvent',
  { forwardingParty: Text('Who forwarded.'), forwardTarget: Text('Where the call went.') },
  'The call is forwarded.',
);

export const HoldEventSchema = callEvent(
  'hold',
  'HoldEvent',
  { holdingParty: Text('Who put the call on hold.'), heldParty: Text('Who is held.') },
  'The call is put on hold; sent to the holding party and again, with the same name, to the held party.',
);

export const ResumeEventSchema = callEvent(
  'resume',
  'ResumeEvent',
  { resumingParty: Text('Who took the call off hold.'), heldParty: Text('Who was held.') },
  'The call is taken off hold; sent to both sides likewise.',
);

export const TransferEventSchema = callEvent(
  'transfer',
  'TransferEvent',
  {
    transferringParty: Text('Who transferred.'),
    transferee: Text('The party transferred.'),
    transferTarget: Text('Where the transferee went.'),
  },
  'The call is transferred.',
);

export const CallErrorEventSchema = callEvent(
  'callError',
  'CallErrorEvent',
  { error: Text('Why the call cannot complete, e.g. `busy`.') },
  'The call cannot complete and is sent to treatment.',
);

export const EndEventSchema = callEvent(
  'end',
  'EndEvent',
  {
    from: Text('The calling party.'),
    to: Text('The called party.'),
    endingParty: Text('Who ended the call (`system` when the platform did).'),
    endReason: Text(
      'Why, e.g. `normal`, `noAnswer`, `busy`, `transferred`, `parked`; `node lost` when the node that ran the call was lost (docs/cluster.md).',
    ),
    callDuration: Type.String({
      pattern: '^PT(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\\.[0-9]+)?S)?$',
      description: 'ISO 8601 duration, e.g. `PT1M5.25S`.',
    }),
  },
  'The account is no longer in the call: the last event of its call.',
);

export const ParkEventSchema = callEvent(
  'park',
  'ParkEvent',
  {
    parkingPartyNumber: Text('The extension that parked the call.'),
    parkingPartyName: Text('Its name.'),
    parkLocationId: ParkLocationId('The park location, e.g. `PL2@1001`.'),
    parkedPartyNumber: Text('The party parked.'),
    parkedPartyName: Text('Its name.'),
  },
  'The call is parked; sent to the parking party and, with the same name, to the parked party.',
);

const retrieveFields = {
  retrievingPartyName: Text('Who retrieved the call.'),
  retrievingPartyID: Text('Their account id.'),
  parkLocationID: ParkLocationId('The park location, e.g. `PL2@1001`.'),
  observedPartyID: Text('The party this event is sent to.'),
  parkedPartyNumber: Text('The party that was parked.'),
  parkedPartyName: Text('Its name.'),
};

export const RetrieveEventSchema = callEvent(
  'retrieve',
  'RetrieveEvent',
  retrieveFields,
  'A parked call is retrieved; sent to the retrieving party.',
);

export const RetrievedEventSchema = callEvent(
  'retrieved',
  'RetrievedEvent',
  retrieveFields,
  'A parked call is retrieved; sent to the parked party.',
);

export type DialEvent = Static<typeof DialEventSchema>;
export type RingbackEvent = Static<typeof RingbackEventSchema>;
export type OfferEvent = Static<typeof OfferEventSchema>;
export type RingingEvent = Static<typeof RingingEventSchema>;
export type AnswerEvent = Static<typeof AnswerEventSchema>;
export type ForwardEvent = Static<typeof ForwardEventSchema>;
export type HoldEvent = Static<typeof HoldEventSchema>;
export type ResumeEvent = Static<typeof ResumeEventSchema>;
export type TransferEvent = Static<typeof TransferEventSchema>;
export type CallErrorEvent = Static<typeof CallErrorEventSchema>;
export type EndEvent = Static<typeof EndEventSchema>;
export type ParkEvent = Static<typeof ParkEventSchema>;
export type RetrieveEvent = Static<typeof RetrieveEventSchema>;
export type RetrievedEvent = Static<typeof RetrievedEventSchema>;

// ---- presence events ----------------------------------------------------------------------------

const presenceObserved = () => AccountId('The user or location extension, e.g. `101@1001`.');

export const PRESENCE_STATES = [
  'idle',
  'busy',
  'available',
  'unavailable',
  'signedInAcd',
  'signedOutAcd',
  'dndOn',
  'dndOff',
] as const;

export const PresenceEventSchema = Type.Object(
  common(
    Type.Union(
      PRESENCE_STATES.map((s) => Type.Literal(s)),
      {
        description:
          '`idle`/`busy`: in no call / in one or more; `available`/`unavailable`: logged in to a connected ' +
          'device or to none; `signedInAcd`/`signedOutAcd`: available for ACD applications or not; ' +
          '`dndOn`/`dndOff`: do not disturb turned on or off.',
      },
    ),
    presenceObserved(),
  ),
  { ...closed, $id: 'PresenceEvent', description: 'A presence change of the observed account.' },
);
export type PresenceEvent = Static<typeof PresenceEventSchema>;

export const JoinedGroupEventSchema = Type.Object(
  {
    ...common(Type.Literal('joinedGroup'), presenceObserved()),
    groupJoined: AccountId('The group joined, e.g. `600@1001`.'),
  },
  { ...closed, $id: 'JoinedGroupEvent', description: 'The observed account joined a group.' },
);
export type JoinedGroupEvent = Static<typeof JoinedGroupEventSchema>;

export const LeftGroupEventSchema = Type.Object(
  {
    ...common(Type.Literal('leftGroup'), presenceObserved()),
    groupLeft: AccountId('The group left, e.g. `600@1001`.'),
  },
  { ...closed, $id: 'LeftGroupEvent', description: 'The observed account left a group.' },
);
export type LeftGroupEvent = Static<typeof LeftGroupEventSchema>;

// ---- park location events -----------------------------------------------------------------------

const parkObserved = () => ParkLocationId('The park location, `PL<number>@<tenantId>`.');

export const ParkLocationIdleEventSchema = Type.Object(common(Type.Literal('idle'), parkObserved()), {
  ...closed,
  $id: 'ParkLocationIdleEvent',
  description: 'The park location holds no call.',
});
export type ParkLocationIdleEvent = Static<typeof ParkLocationIdleEventSchema>;

export const ParkLocationBusyEventSchema = Type.Object(
  {
    ...common(Type.Literal('busy'), parkObserved()),
    parkedParty: Text('The party parked there.'),
    parkedPartyName: Text('Its name.'),
  },
  { ...closed, $id: 'ParkLocationBusyEvent', description: 'A call is parked at the park location.' },
);
export type ParkLocationBusyEvent = Static<typeof ParkLocationBusyEventSchema>;

// ---- emergency call alerts ----------------------------------------------------------------------

export const EmergencyCallAlertEventSchema = Type.Object(
  {
    ...common(Type.Literal('emergencyCallAlert'), AccountId('The caller, e.g. `101@1001`.')),
    callId: Type.Integer({ minimum: 0, description: "The caller's call (its callObserverId, as a number)." }),
    from: Text('The calling number.'),
    to: Text('The emergency number dialed.'),
    siteId: Text("The caller's site."),
    siteName: Text('Its name.'),
  },
  {
    ...closed,
    $id: 'EmergencyCallAlertEvent',
    description:
      "An extension dialed an emergency number (the spec does not show this payload; this is Switchboard's).",
  },
);
export type EmergencyCallAlertEvent = Static<typeof EmergencyCallAlertEventSchema>;

export type VoiceEventFrame =
  | DialEvent
  | RingbackEvent
  | OfferEvent
  | RingingEvent
  | AnswerEvent
  | ForwardEvent
  | HoldEvent
  | ResumeEvent
  | TransferEvent
  | CallErrorEvent
  | EndEvent
  | ParkEvent
  | RetrieveEvent
  | RetrievedEvent
  | PresenceEvent
  | JoinedGroupEvent
  | LeftGroupEvent
  | ParkLocationIdleEvent
  | ParkLocationBusyEvent
  | EmergencyCallAlertEvent;
