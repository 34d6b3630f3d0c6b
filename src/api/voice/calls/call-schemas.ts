import { type Static, Type } from '@sinclair/typebox';
import { CALL_REQUESTS, CALL_STATES } from '../../../switch/types.js';
import { halList, halObject } from '../hal/hal-schemas.js';

const AccountId = (description: string) =>
  Type.String({ pattern: '^[^@\\s]+@\\d+$', description: `${description} (\`<ext>@<tenantId>\`).` });

/** A park location number; `PL2` is accepted for `2`. */
const ParkLocation = (description: string) =>
  Type.String({ pattern: '^\\s*(?:[Pp][Ll])?\\d{1,4}\\s*$', description });

const NonEmpty = (description: string) => Type.String({ minLength: 1, description });

export const MakeCallBodySchema = Type.Object(
  {
    request: Type.Optional(
      Type.Union([Type.Literal('makeCall'), Type.Literal('retrieveParkedCall')], {
        description: 'Default `makeCall`.',
      }),
    ),
    from: AccountId(
      'The extension placing the call: the requester’s own, or for an admin any user or location',
    ),
    to: Type.Optional(NonEmpty('Digits to dial, dial-plan prefixes included. Required for makeCall.')),
    deviceId: Type.Optional(
      NonEmpty(
        'A phone of `from`, a PSTN number (deviceIdType `external`) or `twinningDevice`; default: the ' +
          'user’s click-to-call device.',
      ),
    ),
    deviceIdType: Type.Optional(
      Type.Union([Type.Literal('device'), Type.Literal('external'), Type.Literal('twinningDevice')], {
        description: 'Default `device`; must agree with deviceId. retrieveParkedCall supports only `device`.',
      }),
    ),
    playPrompt: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Boolean()], {
        description: 'With deviceIdType `external`: whether a prompt plays before dialing.',
      }),
    ),
    featureData: Type.Optional(ParkLocation('The park location number. Required for retrieveParkedCall.')),
  },
  {
    $id: 'MakeCallRequest',
    description: 'Make a call, or retrieve a parked call. Other properties are ignored.',
  },
);
export type MakeCallBody = Static<typeof MakeCallBodySchema>;

export const CallRequestBodySchema = Type.Object(
  {
    callRequest: Type.Union(
      CALL_REQUESTS.map((r) => Type.Literal(r)),
      { description: 'A value of the callRequest enum.' },
    ),
    myPartyId: Type.Optional(AccountId('The party acting; required for every request but hangupCall')),
    deviceId: Type.Optional(
      NonEmpty('answerCall and resumeHeldCall: a device of myPartyId to use; ignored otherwise.'),
    ),
    otherCallId: Type.Optional(
      NonEmpty('transfer: the callObserverId of the other (held) call; required for transfer.'),
    ),
    featureData: Type.Optional(
      ParkLocation('parkCall: the park location number; absent, the system chooses one.'),
    ),
  },
  { $id: 'CallControlRequest', description: 'Change the state of a call. Other properties are ignored.' },
);
export type CallRequestBody = Static<typeof CallRequestBodySchema>;

const CallId = Type.String({ pattern: '^\\d+$', description: 'The callObserverId of this party’s leg.' });
const SmdrCallId = Type.String({ description: 'The call’s record id, shared by every leg of the call.' });

export const CallStateSchema = Type.Union(
  CALL_STATES.map((s) => Type.Literal(s)),
  { $id: 'CallState' },
);

const callProps = {
  callId: CallId,
  smdrCallId: SmdrCallId,
  from: Type.String(),
  to: Type.String(),
  callState: CallStateSchema,
  startTime: Type.String({ format: 'date-time' }),
  answerTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'null until the call is answered.',
  }),
  talkDuration: Type.String({ pattern: '^P', description: 'ISO 8601 duration (`PT1M5.5S`).' }),
  digitsDialed: Type.String(),
  redirected: Type.Boolean(),
  transferred: Type.Boolean(),
  callParties: Type.Array(
    Type.Object(
      {
        PartyId: Type.String({
          description: 'accountId of an internal party, caller id of an outside one.',
        }),
        PartyName: Type.String(),
      },
      { additionalProperties: false },
    ),
    {
      description:
        'The observed party (whose leg this is) first, then the party it is connected to or reaching, if any.',
    },
  ),
};

export const CallSchema = halObject(
  callProps,
  { links: ['self', 'v1options:callRequest'], closedLinks: true },
  { $id: 'Call', description: 'One party’s leg of a call.' },
);
export type Call = Static<typeof CallSchema>;

export const ActiveCallSchema = halObject(
  callProps,
  {
    summary: ['callId', 'smdrCallId', 'from', 'to'],
    optionalLinks: ['v1options:callRequest'],
    closedLinks: true,
  },
  {
    $id: 'ActiveCall',
    description:
      'A live leg in the list: callId, smdrCallId, from and to; expanded (`expand=item`), the whole Call.',
  },
);
export type ActiveCall = Static<typeof ActiveCallSchema>;

export const ActiveCallListSchema = halList('calls', ActiveCallSchema, {
  links: ['self', 'v1options:deviceIdType'],
  closedLinks: true,
  $id: 'ActiveCallList',
  description: 'The requester’s live legs (for a scoped telco user, every live leg of the tenant).',
});
export type ActiveCallList = Static<typeof ActiveCallListSchema>;

export const CallCreatedSchema = halObject(
  { callId: CallId, smdrCallId: SmdrCallId },
  { closedLinks: true },
  { $id: 'CallCreated' },
);
export type CallCreated = Static<typeof CallCreatedSchema>;
