/** The frames of the contact-center event socket `/6/v2/sock` (docs/decisions.md §1.5). */
import { type Static, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { CallEventName, CcEvent } from '../../contact-center/types.js';
import {
  AgentStateNameSchema,
  agentStateFields,
  PhoneStateValueSchema,
  QueueStateValueSchema,
} from './agent-schemas.js';
import { bounded } from '../schema/bounds.js';
import { EventCallSchema } from './call-schemas.js';
import { Hms, IsoZoned, Uuid, UuidOrEmpty } from './common-schemas.js';
import { ConnectResumeSchema } from './cc-resume.js';
import { CATEGORIES, EVENT_NAMES } from './event-frames.js';

// ---- frames the client sends --------------------------------------------------------------------

// Frames a client sends are bounded like request bodies (bounds.ts).
export const ConnectRequestSchema = bounded(
  Type.Object(
    {
      request: Type.Literal('connect'),
      token: Type.String({ minLength: 1, description: 'An access token from `POST /6/v2/api/oauth/token`.' }),
      resume: Type.Optional(ConnectResumeSchema),
    },
    { $id: 'ConnectRequest' },
  ),
);
export type ConnectRequest = Static<typeof ConnectRequestSchema>;

const EVENT_OR_CATEGORY = [
  ...Object.values(EVENT_NAMES).flat(),
  ...Object.values(CATEGORIES).map((c) => c.wire),
] as string[];

export const SubscribeRequestSchema = bounded(
  Type.Object(
    {
      request: Type.Literal('subscribe'),
      events: Type.Array(Type.Union(EVENT_OR_CATEGORY.map((n) => Type.Literal(n))), {
        description:
          'Event names and category names (`agent`, `call`, `inbound_queue`: every event of it). ' +
          'Replaces the previous selection; permissions still apply.',
      }),
    },
    { $id: 'SubscribeRequest' },
  ),
);
export type SubscribeRequest = Static<typeof SubscribeRequestSchema>;

// ---- answers to the client's frames -------------------------------------------------------------

/** Per tenant (`tenant_id`): a sequence of its event stream. */
const Sequences = (description: string) =>
  Type.Record(Type.String({ format: 'uuid' }), Type.Integer({ minimum: 0 }), { description });

export const ConnectAcceptedSchema = Type.Object(
  {
    response: Type.Literal('connect'),
    success: Type.Literal(true),
    session: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only with `resume`: the id to resume this session with.' }),
    ),
    resumed: Type.Optional(
      Type.Boolean({
        description:
          'Only with `resume`: true when the named session is back (its subscription, then every event ' +
          'missed, then the live stream); false for a new session.',
      }),
    ),
    sequences: Type.Optional(
      Sequences(
        'Only with `resume`. New session: the sequence of each tenant’s last event. Resumed: the `after` used per tenant.',
      ),
    ),
    reason: Type.Optional(
      Type.Union([Type.Literal('expired'), Type.Literal('retention')], {
        description:
          'Only when a resume failed (`resumed` false): `expired`, no session of yours by that id (its ' +
          'grace period passed); `retention`, the missed events are no longer all kept. This is a new ' +
          'session without a subscription: read the status resources again and subscribe anew.',
      }),
    ),
  },
  { $id: 'ConnectAccepted', additionalProperties: false },
);
export const ConnectRefusedSchema = Type.Object(
  {
    response: Type.Literal('connect'),
    success: Type.Literal(false),
    reason: Type.Union([
      Type.Literal('Unauthorized'),
      Type.Literal('Too many connections'),
      Type.Literal('Invalid resume'),
      Type.Literal('Service Unavailable'),
    ]),
  },
  {
    $id: 'ConnectRefused',
    additionalProperties: false,
    description:
      'Sent before the server closes the socket (1008 Unauthorized or Invalid resume, 1013 Too many ' +
      'connections, 1011 Service Unavailable: the token or the socket could not be checked; try again later).',
  },
);
export const SubscribeAcceptedSchema = Type.Object(
  {
    response: Type.Literal('subscribe'),
    success: Type.Literal(true),
    events: Type.Array(Type.String(), { description: 'The event names now selected (categories expanded).' }),
  },
  { $id: 'SubscribeAccepted', additionalProperties: false },
);
export const SubscribeRefusedSchema = Type.Object(
  { response: Type.Literal('subscribe'), success: Type.Literal(false), reason: Type.String() },
  { $id: 'SubscribeRefused', additionalProperties: false, description: 'The selection is unchanged.' },
);
export const RequestRefusedSchema = Type.Object(
  {
    response: Type.String({ description: "The frame's `request`, or `error` when it had none." }),
    success: Type.Literal(false),
    reason: Type.Literal('Unknown request'),
  },
  { $id: 'RequestRefused', additionalProperties: false },
);

// ---- events -------------------------------------------------------------------------------------

const agentData = <P extends TSchema, X extends TProperties>(id: string, previous: P, extra: X) =>
  Type.Object(
    {
      extension: Type.String(),
      extension_uuid: UuidOrEmpty,
      name: Type.String({ description: "The agent's name." }),
      ...agentStateFields,
      previous,
      ...extra,
    },
    { $id: id, additionalProperties: false },
  );

export const AgentStateChangedDataSchema = agentData('AgentStateChangedData', AgentStateNameSchema, {
  reason: Type.String({ description: '`request`, `missed calls`, ….' }),
});
export const PhoneStateChangedDataSchema = agentData('PhoneStateChangedData', PhoneStateValueSchema, {});
export const QueueStateChangedDataSchema = agentData('QueueStateChangedData', QueueStateValueSchema, {});

export const CallEventDataSchema = Type.Object(
  {
    call: EventCallSchema,
    agent_extension: Type.Optional(Type.String({ description: 'The agent offered, answering or dialing.' })),
    reason: Type.Optional(
      Type.String({ description: 'The target of a transfer or redirect; why a call ended.' }),
    ),
  },
  { $id: 'CallEventData', additionalProperties: false },
);

export const QueueStatisticsDataSchema = Type.Object(
  {
    queue_uuid: UuidOrEmpty,
    queue_name: Type.String(),
    extension: Type.String(),
    waiting: Type.Integer({ minimum: 0 }),
    longest_wait: Hms,
    longest_wait_seconds: Type.Integer({ minimum: 0 }),
    agents_signed_in: Type.Integer({ minimum: 0 }),
    agents_ready: Type.Integer({ minimum: 0 }),
    agents_busy: Type.Integer({ minimum: 0 }),
    tenant_id: Uuid,
  },
  { $id: 'QueueStatisticsData', additionalProperties: false },
);

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());

/** `{event, category, tenant_id, timestamp, data}` for one event name. */
const eventFrame = (event: CcEvent['name'], category: CcEvent['category'], data: TSchema) =>
  Type.Object(
    {
      event: Type.Literal(event),
      category: Type.Literal(CATEGORIES[category].wire),
      tenant_id: Uuid,
      timestamp: IsoZoned,
      data,
      sequence: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            'Only in a session opened with `resume`: the event’s place in its tenant’s stream ' +
            '(increasing, never reused; gaps allowed). Resume with the last one per tenant.',
        }),
      ),
    },
    { $id: `${pascal(event)}Event`, additionalProperties: false },
  );

const AGENT_DATA: Record<string, TSchema> = {
  agent_state_changed: AgentStateChangedDataSchema,
  phone_state_changed: PhoneStateChangedDataSchema,
  queue_state_changed: QueueStateChangedDataSchema,
};
const dataOf = (category: CcEvent['category'], name: CcEvent['name']): TSchema =>
  category === 'call'
    ? CallEventDataSchema
    : category === 'queue'
      ? QueueStatisticsDataSchema
      : AGENT_DATA[name]!;

/** One frame schema per event name, by category. */
export const EVENT_FRAME_SCHEMAS = (Object.keys(EVENT_NAMES) as CcEvent['category'][]).flatMap((category) =>
  EVENT_NAMES[category].map((name) => ({
    name,
    category,
    schema: eventFrame(name, category, dataOf(category, name)),
  })),
);

export type AgentStateChangedData = Static<typeof AgentStateChangedDataSchema>;
export type PhoneStateChangedData = Static<typeof PhoneStateChangedDataSchema>;
export type QueueStateChangedData = Static<typeof QueueStateChangedDataSchema>;
export type CallEventData = Static<typeof CallEventDataSchema>;
export type QueueStatisticsData = Static<typeof QueueStatisticsDataSchema>;
export type ConnectAccepted = Static<typeof ConnectAcceptedSchema>;
export type ConnectRefused = Static<typeof ConnectRefusedSchema>;
export type SubscribeAccepted = Static<typeof SubscribeAcceptedSchema>;
export type SubscribeRefused = Static<typeof SubscribeRefusedSchema>;
export type RequestRefused = Static<typeof RequestRefusedSchema>;

export type SocketAnswer =
  ConnectAccepted | ConnectRefused | SubscribeAccepted | SubscribeRefused | RequestRefused;

interface Frame<E extends CcEvent['name'], C extends string, D> {
  event: E;
  category: C;
  tenant_id: string;
  timestamp: string;
  data: D;
  /** Only in a session opened with `resume`. */
  sequence?: number;
}

/** Every event frame, typed by event name. */
export type CcEventFrame =
  | Frame<'agent_state_changed', 'agent', AgentStateChangedData>
  | Frame<'phone_state_changed', 'agent', PhoneStateChangedData>
  | Frame<'queue_state_changed', 'agent', QueueStateChangedData>
  | Frame<CallEventName, 'call', CallEventData>
  | Frame<'queue_statistics', 'inbound_queue', QueueStatisticsData>;
