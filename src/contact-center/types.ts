/** Contact-center domain values and events. api/ccs renders them to the wire. */

export type AgentStateType = 'ready' | 'away' | 'sign_out';
export interface AgentStateName {
  type: AgentStateType;
  name: string;
}

export const READY: AgentStateName = { type: 'ready', name: 'Ready' };

export type PhoneState = 'Idle' | 'Ringing' | 'Talking' | 'Hold';
/** `Offered`: a queue call rings the agent; `Connected`: the agent handles it. */
export type QueueStateName = 'None' | 'Offered' | 'Connected';

export interface AgentSnapshot {
  tenantId: number;
  ext: string;
  agentState: AgentStateName;
  agentStateSince: number;
  phoneState: PhoneState;
  phoneStateSince: number;
  queueState: QueueStateName;
  queueStateSince: number;
  /** The ACD extension of the queue call, when queueState is not None. */
  queueExt?: string;
  queueCallId?: string;
  consecutiveMissed: number;
}

export interface TimelineEntry {
  /** inbound, outbound, queued, offered, no_answer, called, answered, redirected, transferred, recording_started, ... disconnected */
  type: string;
  at: number;
  text: string;
}

export interface Marker {
  type: 'suppression_start' | 'suppression_stop';
  at: number;
}

export interface Recording {
  ext: string;
  filename: string;
  startAt: number;
  stopAt?: number;
  markers: Marker[];
}

/** waiting: in the queue; offered: in the queue and ringing an agent; connected: answered; left: sent out of the contact center; dialing: outbound not yet answered. */
export type CcCallStatus = 'waiting' | 'offered' | 'connected' | 'dialing' | 'left' | 'ended';

export interface CcCallSnapshot {
  smdrCallId: string;
  tenantId: number;
  direction: 'in' | 'out';
  status: CcCallStatus;
  acdExt?: string;
  outboundQueueId?: string;
  calling: { number: string; name: string };
  called: { number: string; name: string };
  /** The agent extension (ringing, talking or dialing). */
  agentExt?: string;
  agentName?: string;
  startedAt: number;
  queuedAt?: number;
  answeredAt?: number;
  endedAt?: number;
  /** Time spent waiting in queues, closed intervals plus the open one. */
  waitMs: number;
  holdMs: number;
  recordingType: 'None' | 'Mandatory' | 'On Demand';
  isRecording: boolean;
  isSuppressed: boolean;
  timeline: TimelineEntry[];
  recordings: Recording[];
}

/** What `recordDetails` adds to the durable call record (JSON). */
export type CcRecordDetails = CcCallSnapshot;

export interface QueueStats {
  tenantId: number;
  acdExt: string;
  waiting: number;
  longestWaitMs: number;
  agentsSignedIn: number;
  agentsReady: number;
  agentsBusy: number;
}

interface CcEventBase<C extends 'agent' | 'call' | 'queue', N extends string, D> {
  type: 'cc';
  category: C;
  name: N;
  tenantId: number;
  at: number;
  data: D;
}

export type AgentEvent =
  | CcEventBase<
      'agent',
      'agent_state_changed',
      { agent: AgentSnapshot; previous: AgentStateName; reason: string }
    >
  | CcEventBase<'agent', 'phone_state_changed', { agent: AgentSnapshot; previous: PhoneState }>
  | CcEventBase<'agent', 'queue_state_changed', { agent: AgentSnapshot; previous: QueueStateName }>;

export type CallEventName =
  | 'call_queued'
  | 'call_offered'
  | 'call_not_answered'
  | 'call_answered'
  | 'call_redirected'
  | 'call_transferred'
  | 'call_dialed'
  | 'call_ended'
  | 'recording_started'
  | 'recording_stopped'
  | 'suppression_started'
  | 'suppression_stopped';

export type CallEvent = CcEventBase<
  'call',
  CallEventName,
  { call: CcCallSnapshot; agentExt?: string; reason?: string }
>;

export type QueueEvent = CcEventBase<'queue', 'queue_statistics', { stats: QueueStats }>;

/** Contact-center domain events, on the shared bus next to the switch's events. */
export type CcEvent = AgentEvent | CallEvent | QueueEvent;
