/** Calls (endpoints 19-27): the call shapes, the search, and call control. */
import { type Static, Type } from '@sinclair/typebox';
import {
  CallId,
  Hms,
  HmsOrEmpty,
  IsoLocal,
  IsoZoned,
  ListOf,
  NumberAndNameSchema,
  UuidOrEmpty,
} from './common-schemas.js';

export const CallIdParamsSchema = Type.Object({
  id: Type.String({ pattern: '^\\d{1,20}$', description: 'The call id (decimal digits).' }),
});

const outcomes = (...values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));
/** A finished call also carries the voice platform's outcomes when it never reached the contact center. */
const CallOutcome = outcomes(
  'Answered',
  'Progress',
  'Abandoned',
  'Unanswered',
  'Busy',
  'Failed',
  'Voicemail',
);

export const RecordingSchema = Type.Object(
  {
    start_time: IsoLocal,
    stop_time: Type.Union([IsoLocal, Type.Literal('')], { description: 'Empty while recording.' }),
    markers: Type.Array(
      Type.Object(
        {
          type: Type.Union([Type.Literal('suppression_start'), Type.Literal('suppression_stop')]),
          time: IsoLocal,
          offset: Hms,
        },
        { $id: 'RecordingMarker', additionalProperties: false },
      ),
    ),
    filename: Type.String(),
    extension: Type.String(),
    duration: Hms,
  },
  { $id: 'Recording', additionalProperties: false },
);
export type Recording = Static<typeof RecordingSchema>;

export const CallSourceSchema = Type.Union(
  [
    Type.Object({}, { additionalProperties: false }),
    Type.Object(
      {
        type: Type.Union([Type.Literal('acd'), Type.Literal('outbound_queue')]),
        uuid: UuidOrEmpty,
        name: Type.String(),
        extension: Type.String(),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'CallSource', description: 'The queue the call went through; empty when none.' },
);

const callFields = {
  id: CallId,
  time: IsoLocal,
  outcome: CallOutcome,
  direction: Type.Union([Type.Literal('in'), Type.Literal('out'), Type.Literal('internal')]),
  duration: HmsOrEmpty,
  wait_time: HmsOrEmpty,
  hold_time: HmsOrEmpty,
  is_recorded: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  fe_xfr: Type.String(),
  commit_account_code: Type.String(),
  vrq_ques_ans: Type.Array(Type.Unknown(), { maxItems: 0, description: 'Always empty here.' }),
  calling: NumberAndNameSchema,
  called: NumberAndNameSchema,
  call_source: CallSourceSchema,
  call_details: Type.Array(
    Type.Object(
      {
        type: Type.String({
          description: '`inbound`, `outbound`, `queued`, `offered`, `answered`, … `disconnected`.',
        }),
        timestamp: IsoLocal,
        event: Type.String({ description: 'Descriptive text.' }),
      },
      { $id: 'CallDetail', additionalProperties: false },
    ),
  ),
  call_destination: Type.Object(
    { type: Type.Literal('phone'), number: Type.String(), name: Type.String() },
    { $id: 'CallDestination', additionalProperties: false },
  ),
  recordings: Type.Array(RecordingSchema),
};

/** The in-progress additions; such a call has no `recordings` or `wait_time` content. */
const inProgressFields = {
  wait_time: Type.Literal(''),
  recordings: Type.Array(Type.Unknown(), { maxItems: 0 }),
  type: Type.Literal('in_ecr'),
  is_suppressed: Type.Boolean(),
  is_recording: Type.Boolean(),
  caller_uuid: UuidOrEmpty,
  callee_uuid: UuidOrEmpty,
  being_marked: Type.Boolean({ description: 'Recording while suppressed.' }),
};

export const CallSchema = Type.Object(callFields, {
  $id: 'Call',
  additionalProperties: false,
  description: 'A finished call (list item).',
});
export type Call = Static<typeof CallSchema>;

export const LiveCallSchema = Type.Object(
  {
    ...callFields,
    ...inProgressFields,
    outcome: outcomes('Progress', 'Answered'),
    success: Type.Literal(true),
  },
  { $id: 'LiveCall', additionalProperties: false, description: 'An in-progress call.' },
);
export type LiveCall = Static<typeof LiveCallSchema>;

/** The call inside a call event: the in-progress shape without `success`, also once it ended. */
export const EventCallSchema = Type.Object(
  { ...callFields, ...inProgressFields, outcome: outcomes('Progress', 'Answered', 'Abandoned') },
  { $id: 'EventCall', additionalProperties: false },
);
export type EventCall = Static<typeof EventCallSchema>;

export const FinishedCallAnswerSchema = Type.Object(
  { success: Type.Literal(true), ...callFields },
  { $id: 'FinishedCallAnswer', additionalProperties: false },
);

export const CallAnswerSchema = Type.Union([LiveCallSchema, FinishedCallAnswerSchema], {
  $id: 'CallAnswer',
  description: 'The in-progress shape while the call lasts, then `success` plus the list item shape.',
});
export type CallAnswer = Static<typeof CallAnswerSchema>;

export const CallListSchema = ListOf(
  Type.Union([LiveCallSchema, CallSchema]),
  'CallList',
  'In-progress calls, then finished calls, newest first.',
);
export type CallList = Static<typeof CallListSchema>;

const LocalDateTime = () =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2})?$',
    description: 'Local date-time `YYYY-MM-DDThh:mm:ss` in `time_z`.',
    examples: ['2026-01-05T09:00:00'],
  });

export const CallSearchQuerySchema = Type.Object({
  calling_number: Type.Optional(
    Type.String({ description: 'At least one of calling_number and called_number.' }),
  ),
  called_number: Type.Optional(Type.String()),
  from_datetime: Type.Optional(LocalDateTime()),
  to_datetime: Type.Optional(LocalDateTime()),
  time_z: Type.Optional(Type.String({ description: '`UTC` (default) or an IANA zone name.' })),
});
export type CallSearchQuery = Static<typeof CallSearchQuerySchema>;

export const CallSearchResultSchema = Type.Object(
  {
    success: Type.Literal(true),
    call_details: Type.Object(
      {
        time: IsoZoned,
        outcome: CallOutcome,
        id: CallId,
        fe_xfr: Type.Object({}, { additionalProperties: false }),
        duration: HmsOrEmpty,
        calling: NumberAndNameSchema,
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'CallSearchResult', additionalProperties: false, description: 'The most recent matching call.' },
);
export type CallSearchResult = Static<typeof CallSearchResultSchema>;

const control = <R extends string>(request: R, id: string, description: string) =>
  Type.Object({ request: Type.Literal(request) }, { $id: id, description });

export const CallControlRequestSchema = Type.Union(
  [
    control('startSuppression', 'StartSuppressionRequest', 'Pause the recording of a connected call.'),
    control('stopSuppression', 'StopSuppressionRequest', 'Resume (or, On Demand, start) the recording.'),
    control('kill', 'KillRequest', 'End the call.'),
    Type.Object(
      {
        request: Type.Literal('wait_transfer'),
        target: Type.String({
          pattern: '^\\+?[0-9*#]{1,32}$',
          description: 'An extension, an ACD extension or an outside number.',
          examples: ['105'],
        }),
      },
      { $id: 'WaitTransferRequest', description: 'Send a call waiting in a queue elsewhere.' },
    ),
    Type.Object(
      {
        request: Type.Literal('wait_redirect'),
        target: Type.String({
          minLength: 1,
          format: 'uuid',
          description: 'The uuid of an ACD of the tenant (`voice_queues` in the ACD list).',
          examples: ['5b0a0002-0000-4000-8000-000010010501'],
        }),
      },
      { $id: 'WaitRedirectRequest', description: 'Move a call waiting in a queue to another ACD.' },
    ),
    control('wait_kill', 'WaitKillRequest', 'Drop a call waiting in a queue.'),
  ],
  { $id: 'CallControlRequest', description: 'Selected by `request`.' },
);
export type CallControlRequest = Static<typeof CallControlRequestSchema>;
