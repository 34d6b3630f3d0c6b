/**
 * Wire shapes of the voice platform API. Event frames, request bodies and the problem document
 * are the Static types of the server's own TypeBox schemas (published in /openapi/voice.json and
 * /openapi/voice-events.json), imported as types only. The HAL resources below are written here:
 * the server builds their schemas with `halObject()`, whose Static type is an index signature
 * of `unknown`, which would type nothing.
 */
import type { Static } from '@sinclair/typebox';
import type {
  CallRequestBody as ServerCallRequestBody,
  MakeCallBody as ServerMakeCallBody,
} from '../../../../src/api/voice/calls/call-schemas.js';
import type * as Events from '../../../../src/api/voice/events/event-schemas.js';
import type { ProblemSchema } from '../../../../src/api/voice/hal/problem-schema.js';

/** An RFC 9457 problem document of the voice API. */
export type Problem = Static<typeof ProblemSchema>;

export type MakeCallBody = ServerMakeCallBody;
export type CallRequestBody = ServerCallRequestBody;
export type CallRequestName = CallRequestBody['callRequest'];

export interface ApiRoot {
  tenantId?: number;
  tenantName?: string;
}

export interface ActiveCall {
  callId: string;
  smdrCallId: string;
  from: string;
  to: string;
}

export interface CallParty {
  PartyId: string;
  PartyName: string;
}

export interface Call {
  callId: string;
  smdrCallId: string;
  from: string;
  to: string;
  callState: string;
  startTime: string;
  answerTime: string | null;
  talkDuration: string;
  digitsDialed: string;
  redirected: boolean;
  transferred: boolean;
  callParties: CallParty[];
}

export interface CreatedCall {
  callId: string;
  smdrCallId: string;
}

export interface SubscriptionSetInfo {
  subscriptionSetId: string;
  tenantId: number;
}

export interface EventAccount {
  accountId: string;
}

export interface PresenceStatus {
  accountId: string;
  callActivity: 'idle' | 'busy';
  reachability: 'available' | 'unavailable';
  acd: 'signedInAcd' | 'signedOutAcd';
  dnd: 'dndOn' | 'dndOff';
  groups: string[];
}

export interface ParkLocationStatus {
  accountId: string;
  state: 'idle' | 'busy';
  parkedParty?: string;
  parkedPartyName?: string;
  callId?: string;
}

export interface ExtensionSummary {
  extension: string;
  name: string;
  extensionType: string;
  accountId?: string;
  firstName?: string;
  lastName?: string;
  agent?: boolean;
  enabled?: boolean;
  siteId?: string;
}

/** Any frame the voice event socket delivers to a subscription set. */
export type VoiceEvent = Events.VoiceEventFrame;

export type CallEvent =
  | Events.DialEvent
  | Events.RingbackEvent
  | Events.OfferEvent
  | Events.RingingEvent
  | Events.AnswerEvent
  | Events.ForwardEvent
  | Events.HoldEvent
  | Events.ResumeEvent
  | Events.TransferEvent
  | Events.CallErrorEvent
  | Events.EndEvent
  | Events.ParkEvent
  | Events.RetrieveEvent
  | Events.RetrievedEvent;
export type PresenceEvent = Events.PresenceEvent | Events.JoinedGroupEvent | Events.LeftGroupEvent;
export type ParkLocationEvent = Events.ParkLocationIdleEvent | Events.ParkLocationBusyEvent;
export type EmergencyCallAlertEvent = Events.EmergencyCallAlertEvent;
export type OfferEvent = Events.OfferEvent;
