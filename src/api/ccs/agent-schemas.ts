/** Agent state (endpoints 15-18) and click to call (28). */
import { type Static, Type } from '@sinclair/typebox';
import { CallId, Hms } from './common-schemas.js';

export const AgentStateTypeSchema = Type.Union(
  [Type.Literal('ready'), Type.Literal('away'), Type.Literal('sign_out')],
  { $id: 'AgentStateType', description: 'A `sign_out` state signs the agent out of every queue.' },
);

export const AgentStateNameSchema = Type.Object(
  {
    type: AgentStateTypeSchema,
    name: Type.String({ description: '`Ready`, or the name of a presence option of that type.' }),
  },
  { $id: 'AgentStateName', additionalProperties: false },
);
export type AgentStateName = Static<typeof AgentStateNameSchema>;

export const PhoneStateValueSchema = Type.Union(
  [Type.Literal('Idle'), Type.Literal('Ringing'), Type.Literal('Talking'), Type.Literal('Hold')],
  { $id: 'PhoneStateValue', description: "The agent's device." },
);
export type PhoneStateValue = Static<typeof PhoneStateValueSchema>;

export const QueueStateValueSchema = Type.Union(
  [Type.Literal('None'), Type.Literal('Offered'), Type.Literal('Connected')],
  {
    $id: 'QueueStateValue',
    description: '`Offered`: a queue call rings the agent; `Connected`: the agent handles it.',
  },
);
export type QueueStateValue = Static<typeof QueueStateValueSchema>;

/** The agent state fields, shared by the REST answer and the agent events. */
export const agentStateFields = {
  queue_state: Type.Object(
    {
      state: QueueStateValueSchema,
      queue: Type.String({ description: 'The queue name; empty with `None`.' }),
      duration: Hms,
      call_id: Type.Optional(CallId),
    },
    { $id: 'QueueState', additionalProperties: false },
  ),
  phone_state: Type.Object(
    { state: PhoneStateValueSchema, duration: Hms },
    { $id: 'PhoneState', additionalProperties: false },
  ),
  consecutive_missed: Type.Integer({ minimum: 0, description: 'Offers missed in a row.' }),
  agent_state: Type.Object(
    { state: AgentStateNameSchema, duration: Hms },
    { $id: 'AgentStateValue', additionalProperties: false },
  ),
};

export const AgentStateAnswerSchema = Type.Object(
  { success: Type.Literal(true), ...agentStateFields },
  { $id: 'AgentStateAnswer', additionalProperties: false },
);
export type AgentStateAnswer = Static<typeof AgentStateAnswerSchema>;
/** The agent state without `success`, as the agent events carry it. */
export type AgentState = Omit<AgentStateAnswer, 'success'>;

export const UpdateAgentStateRequestSchema = Type.Object(
  {
    request: Type.Literal('updateAgentState'),
    name: Type.String({
      minLength: 1,
      description: '`Ready` or the name of an away or sign-out presence option (any letter case).',
      examples: ['Break'],
    }),
  },
  { $id: 'UpdateAgentStateRequest' },
);
export type UpdateAgentStateRequest = Static<typeof UpdateAgentStateRequestSchema>;

export const DialRequestSchema = Type.Object(
  {
    request: Type.Literal('dial'),
    target: Type.String({
      pattern: '^\\+?[0-9*#]{1,32}$',
      description: 'The number to call.',
      examples: ['+15550009999'],
    }),
    outbound_queue_uuid: Type.String({
      minLength: 1,
      format: 'uuid',
      description: 'An outbound queue of the tenant (`voice_oqs` in the ACD list).',
      examples: ['5b0a0006-0000-4000-8000-000000100101'],
    }),
  },
  { $id: 'DialRequest' },
);
export type DialRequest = Static<typeof DialRequestSchema>;

// A union selected by one field, like TokenRequest (oauth-schemas.ts): the same shape, other requests.
export const ExtensionRequestSchema = Type.Union([UpdateAgentStateRequestSchema, DialRequestSchema], {
  $id: 'ExtensionRequest',
  description: 'Selected by `request`.',
});
export type ExtensionRequest = Static<typeof ExtensionRequestSchema>;

export const DialAnswerSchema = Type.Object(
  { success: Type.Literal(true), call_id: CallId },
  { $id: 'DialAnswer', additionalProperties: false },
);
export type DialAnswer = Static<typeof DialAnswerSchema>;
