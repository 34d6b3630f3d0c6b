/**
 * The simulator control API's wire shapes (docs/decisions.md §1.9): the request bodies the
 * routes validate with and the views they answer, published in /openapi/simulator.json. `$id`s start with `Sim`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { PHONE_MODELS } from '../../directory/model.js';
import { CALL_STATES } from '../../switch/types.js';

const closed = { additionalProperties: false } as const;
const Millis = (description: string) => Type.Integer({ minimum: 0, description });

// ---- errors ---------------------------------------------------------------------------------

export const SimErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({
          pattern: '^[A-Z][A-Z0-9_]*$',
          description: 'Stable machine-readable code, e.g. `DEVICE_NOT_FOUND`, `MISSING_TO`, `INVALID_MS`.',
        }),
        message: Type.String({ description: 'What went wrong, for people.' }),
      },
      closed,
    ),
  },
  { ...closed, $id: 'SimError', description: 'Every failure of the simulator API.' },
);
export type SimError = Static<typeof SimErrorSchema>;

// ---- path parameters --------------------------------------------------------------------------

/** callObserverId, smdrCallId: decimal digit strings. */
const CALL_ID = '^[0-9]{1,20}$';

export const DeviceParamsSchema = Type.Object({
  deviceId: Type.String({ description: 'The phone, e.g. `ph1001-101`.' }),
});
export const PstnCallParamsSchema = Type.Object({
  pstnCallId: Type.String({ description: "The outside leg's id (its callObserverId)." }),
});
export const PstnNumberParamsSchema = Type.Object({
  number: Type.String({
    pattern: '^\\+?[0-9*#]{2,20}$',
    description: 'An outside number, e.g. `+15550001111` or `5550001111`.',
  }),
});
export const TenantParamsSchema = Type.Object({
  tenantId: Type.String({ pattern: '^[0-9]{1,9}$', description: 'The tenant, e.g. `1001`.' }),
});

// ---- request bodies ---------------------------------------------------------------------------

export const MAX_ADVANCE_MS = 30 * 86_400_000;

export const SimClockAdvanceSchema = Type.Object(
  {
    ms: Type.Integer({
      minimum: 0,
      maximum: MAX_ADVANCE_MS,
      description: 'How far to move the virtual clock, in milliseconds (at most 30 days).',
    }),
  },
  { $id: 'SimClockAdvance' },
);
export type SimClockAdvance = Static<typeof SimClockAdvanceSchema>;

const TEXT_NUMBER = { pattern: '^\\+?[0-9]{2,20}$' } as const;

export const SimTextMessageSchema = Type.Object(
  {
    direction: Type.Union([Type.Literal('in'), Type.Literal('out')], {
      description: '`in`: received by the tenant; `out`: sent by it.',
    }),
    kind: Type.Union([Type.Literal('sms'), Type.Literal('mms')]),
    from: Type.String({ ...TEXT_NUMBER, description: 'Sender number.' }),
    to: Type.String({ ...TEXT_NUMBER, description: 'Recipient number.' }),
  },
  { $id: 'SimTextMessage', description: 'A text message to count in the contact center.' },
);
export type SimTextMessage = Static<typeof SimTextMessageSchema>;

export const SimCallChoiceSchema = Type.Object(
  {
    callObserverId: Type.Optional(
      Type.String({
        pattern: CALL_ID,
        description: 'The call to act on; by default the ringing call (answer) or the active one (hangup).',
      }),
    ),
  },
  { $id: 'SimCallChoice' },
);
export type SimCallChoice = Static<typeof SimCallChoiceSchema>;

export const SimDialSchema = Type.Object(
  {
    to: Type.String({
      description:
        'What the user dials: an extension, a feature code or an outside number (`9` + digits). ' +
        'Undialable text is refused with `INVALID_NUMBER`.',
    }),
  },
  { $id: 'SimDial' },
);
export type SimDial = Static<typeof SimDialSchema>;

export const SimDigitsSchema = Type.Object(
  {
    digits: Type.String({ pattern: '^[0-9*#]{1,32}$', description: 'DTMF: 1 to 32 of 0-9, * and #.' }),
  },
  { $id: 'SimDigits' },
);
export type SimDigits = Static<typeof SimDigitsSchema>;

export const SimPstnCallRequestSchema = Type.Object(
  {
    from: Type.String({
      description: "The outside caller's number; not a phone number is refused with `INVALID_NUMBER`.",
    }),
    to: Type.String({
      description: 'A DID of a tenant, e.g. `+15555550100`; unknown is `NUMBER_NOT_FOUND`.',
    }),
    callerName: Type.Optional(Type.String({ description: 'The caller id name presented.' })),
  },
  { $id: 'SimPstnCallRequest' },
);
export type SimPstnCallRequest = Static<typeof SimPstnCallRequestSchema>;

const AnswerMode = Type.Union([Type.Literal('manual'), Type.Literal('auto')], {
  description: '`auto`: the outside party answers after `answerAfterMs`; `manual`: it rings until answered.',
});
const AnswerAfterMs = Type.Integer({
  minimum: 0,
  maximum: 86_400_000,
  description: 'Auto-answer delay in milliseconds (default 2000).',
});
const Busy = Type.Boolean({ description: 'Calls to the number fail with `callError` "busy".' });

export const SimPstnBehaviourSchema = Type.Object(
  { answer: AnswerMode, answerAfterMs: Type.Optional(AnswerAfterMs), busy: Type.Optional(Busy) },
  { $id: 'SimPstnBehaviour', description: 'How an outside number behaves when the platform calls it.' },
);
export type SimPstnBehaviour = Static<typeof SimPstnBehaviourSchema>;

// ---- views ------------------------------------------------------------------------------------

export const SimClockSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('real'), Type.Literal('virtual')]),
    now: Millis('The switch time, milliseconds since the Unix epoch.'),
  },
  { ...closed, $id: 'SimClock' },
);
export type SimClock = Static<typeof SimClockSchema>;

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );

export const SimLegSchema = Type.Object(
  {
    callObserverId: Type.String({ pattern: CALL_ID }),
    smdrCallId: Type.String({ pattern: CALL_ID }),
    tenantId: Type.Integer(),
    account: Type.Union([Type.String(), Type.Null()], {
      description: '`101@1001` for an internal party; null for an outside (PSTN) leg.',
    }),
    ext: Type.Optional(Type.String()),
    deviceId: Type.Optional(
      Type.String({ description: 'The phone, PSTN number or twinning device in use.' }),
    ),
    state: literals(CALL_STATES),
    direction: literals(['outgoing', 'incoming'] as const),
    from: Type.String(),
    to: Type.String(),
    digitsDialed: Type.String(),
    startTime: Millis('Epoch milliseconds.'),
    answerTime: Type.Optional(Millis('Epoch milliseconds.')),
    endTime: Type.Optional(Millis('Epoch milliseconds.')),
    talkDurationMs: Millis('Time connected so far.'),
    redirected: Type.Boolean(),
    transferred: Type.Boolean(),
    callParties: Type.Array(Type.Object({ partyId: Type.String(), partyName: Type.String() }, closed), {
      description: 'This party first, then the other: internal parties by account id, external by caller id.',
    }),
    queue: Type.Optional(Type.String({ description: 'The ACD extension while queued.' })),
    parkLocation: Type.Optional(Type.Integer({ description: 'The park location while parked.' })),
  },
  { ...closed, $id: 'SimLeg', description: "One party's leg of a call." },
);
export type SimLeg = Static<typeof SimLegSchema>;

export const SimLegResultSchema = Type.Object(
  { call: SimLegSchema },
  { ...closed, $id: 'SimLegResult', description: "The phone's leg after the action." },
);
export type SimLegResult = Static<typeof SimLegResultSchema>;

export const SimDeviceSchema = Type.Object(
  {
    deviceId: Type.String(),
    tenantId: Type.Integer(),
    ownerExt: Type.String(),
    model: literals(PHONE_MODELS, '`bst` is a SIP endpoint.'),
    registered: Type.Boolean({ description: 'Whether the phone is logged in now.' }),
    calls: Type.Array(Type.String({ pattern: CALL_ID }), {
      description: 'callObserverIds of the live legs on (or ringing on) the phone.',
    }),
    messages: Type.Array(
      Type.Object(
        {
          text: Type.String(),
          priority: literals(['low', 'normal', 'high', 'emergency'] as const),
          at: Millis('Epoch milliseconds.'),
        },
        closed,
      ),
      { description: 'The most recent phone messages, oldest first.' },
    ),
  },
  { ...closed, $id: 'SimDevice', description: 'A phone as the simulator sees it.' },
);
export type SimDevice = Static<typeof SimDeviceSchema>;

export const SimRegistrationSchema = Type.Object(
  { deviceId: Type.String(), registered: Type.Boolean() },
  { ...closed, $id: 'SimRegistration' },
);
export type SimRegistration = Static<typeof SimRegistrationSchema>;

export const SimPstnCallSchema = Type.Object(
  {
    pstnCallId: Type.String({ pattern: CALL_ID }),
    from: Type.String(),
    to: Type.String(),
    state: literals(CALL_STATES, '`ringing` until the outside party answers a call placed to it.'),
    callObserverId: Type.String({ pattern: CALL_ID }),
    smdrCallId: Type.String({ pattern: CALL_ID }),
    direction: literals(
      ['inbound', 'outbound'] as const,
      '`inbound`: the outside party called in; `outbound`: the platform called the outside number.',
    ),
  },
  { ...closed, $id: 'SimPstnCall', description: 'One leg carried by the public network simulator.' },
);
export type SimPstnCall = Static<typeof SimPstnCallSchema>;

export const SimPstnCallListSchema = Type.Object(
  { calls: Type.Array(SimPstnCallSchema) },
  { ...closed, $id: 'SimPstnCallList' },
);

export const SimPstnCallCreatedSchema = Type.Object(
  { pstnCallId: Type.String({ pattern: CALL_ID }) },
  { ...closed, $id: 'SimPstnCallCreated' },
);

export const SimPstnNumberSchema = Type.Object(
  {
    number: Type.String({ description: 'The canonical number, e.g. `+15550001111`.' }),
    answer: AnswerMode,
    answerAfterMs: Type.Optional(AnswerAfterMs),
    busy: Type.Optional(Busy),
  },
  { ...closed, $id: 'SimPstnNumber' },
);
export type SimPstnNumber = Static<typeof SimPstnNumberSchema>;

export const SimPstnNumberListSchema = Type.Object(
  { numbers: Type.Array(SimPstnNumberSchema) },
  { ...closed, $id: 'SimPstnNumberList' },
);

export const SimQueueSchema = Type.Object(
  {
    tenantId: Type.Integer(),
    acdExt: Type.String(),
    name: Type.String(),
    calls: Type.Array(
      Type.Object(
        {
          smdrCallId: Type.String({ pattern: CALL_ID }),
          callerLegId: Type.String({ pattern: CALL_ID }),
          from: Type.String(),
          callerName: Type.String(),
          since: Millis('When the call entered the queue, epoch milliseconds.'),
        },
        closed,
      ),
      { description: 'The calls waiting, longest first.' },
    ),
  },
  { ...closed, $id: 'SimQueue', description: 'An ACD queue and the calls waiting in it.' },
);

export const SimParkLocationSchema = Type.Object(
  {
    tenantId: Type.Integer(),
    number: Type.Integer({ minimum: 1 }),
    account: Type.String({ pattern: '^PL[0-9]+@[0-9]+$', description: '`PL2@1001`' }),
    state: literals(['idle', 'busy'] as const),
    parkedParty: Type.Optional(Type.String()),
    parkedPartyName: Type.Optional(Type.String()),
    callObserverId: Type.Optional(Type.String({ pattern: CALL_ID })),
  },
  { ...closed, $id: 'SimParkLocation' },
);

export const SimStateSchema = Type.Object(
  {
    clock: SimClockSchema,
    now: Millis('The switch time, epoch milliseconds.'),
    devices: Type.Array(SimDeviceSchema),
    calls: Type.Array(
      Type.Object(
        {
          smdrCallId: Type.String({ pattern: CALL_ID }),
          tenantId: Type.Integer(),
          startedAt: Millis('Epoch milliseconds.'),
          legs: Type.Array(SimLegSchema, { description: 'The live legs.' }),
        },
        { ...closed, $id: 'SimCall' },
      ),
    ),
    queues: Type.Array(SimQueueSchema),
    parkLocations: Type.Array(SimParkLocationSchema),
    pstnCalls: Type.Array(SimPstnCallSchema),
    pstnNumbers: Type.Array(SimPstnNumberSchema, {
      description: 'Outside numbers with a behaviour set (the others answer automatically).',
    }),
  },
  { ...closed, $id: 'SimState', description: 'Everything live in the switch.' },
);
export type SimState = Static<typeof SimStateSchema>;
