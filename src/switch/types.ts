/**
 * The switch's public contract: what API adapters and the contact center may use.
 * Wire shapes are NOT made here: api/* renders these domain values.
 */
import type { Principal } from '../core/permissions.js';

/** Every state a leg can be in (the voice API's `callState`). */
export const CALL_STATES = [
  'dialing',
  'ringback',
  'offered',
  'ringing',
  'connected',
  'held',
  'remoteHeld',
  'parked',
  'queued',
  'ended',
] as const;

export type CallState = (typeof CALL_STATES)[number];

/** What lists of legs need: cheaper to make than a whole LegView. */
export interface LegSummary {
  callObserverId: string;
  smdrCallId: string;
  state: CallState;
  from: string;
  to: string;
}

/** One party's leg of a call (the voice API's Call resource, in domain form). */
export interface LegView extends LegSummary {
  tenantId: number;
  /** `101@1001` for an internal party; null for an outside (PSTN) leg. */
  account: string | null;
  ext?: string;
  /** The device (phoneId), PSTN number or `twinningDevice` this leg uses, once known. */
  deviceId?: string;
  direction: 'outgoing' | 'incoming';
  digitsDialed: string;
  startTime: number;
  answerTime?: number;
  endTime?: number;
  talkDurationMs: number;
  redirected: boolean;
  transferred: boolean;
  /** Internal parties by accountId, external by caller id. */
  callParties: { partyId: string; partyName: string }[];
  /** ACD extension while queued. */
  queue?: string;
  /** Park location number while parked. */
  parkLocation?: number;
}

export type CallEventName =
  | 'dial'
  | 'ringback'
  | 'offer'
  | 'ringing'
  | 'answer'
  | 'forward'
  | 'hold'
  | 'resume'
  | 'transfer'
  | 'callError'
  | 'end'
  | 'park'
  | 'retrieve'
  | 'retrieved';

/** Exactly the spec's extra fields per call event (durations in ms; api/* formats them). */
export interface CallEventFields {
  dial: { from: string; to: string; sipCallId?: string; dialingDeviceId: string };
  ringback: Record<string, never>;
  offer: {
    from: string;
    to: string;
    via?: string;
    sipCallId?: string;
    dialedDigits: string;
    callingName: string;
  };
  ringing: { ringingDeviceId: string };
  answer: { answeringParty: string; answeringDeviceId: string };
  forward: { forwardingParty: string; forwardTarget: string };
  hold: { holdingParty: string; heldParty: string };
  resume: { resumingParty: string; heldParty: string };
  transfer: { transferringParty: string; transferee: string; transferTarget: string };
  callError: { error: string };
  end: { from: string; to: string; endingParty: string; endReason: string; callDurationMs: number };
  park: {
    parkingPartyNumber: string;
    parkingPartyName: string;
    parkLocationId: string;
    parkedPartyNumber: string;
    parkedPartyName: string;
  };
  retrieve: {
    retrievingPartyName: string;
    retrievingPartyID: string;
    parkLocationID: string;
    observedPartyID: string;
    parkedPartyNumber: string;
    parkedPartyName: string;
  };
  retrieved: CallEventFields['retrieve'];
}

export type CallEvent = {
  [N in CallEventName]: {
    type: 'call';
    name: N;
    tenantId: number;
    /** The observed account, `101@1001`. */
    observed: string;
    /** The observed party's leg. */
    callObserverId: string;
    smdrCallId: string;
    at: number;
    fields: CallEventFields[N];
  };
}[CallEventName];

export type PresenceEventName =
  | 'idle'
  | 'busy'
  | 'available'
  | 'unavailable'
  | 'signedInAcd'
  | 'signedOutAcd'
  | 'dndOn'
  | 'dndOff'
  | 'joinedGroup'
  | 'leftGroup';

export interface PresenceEvent {
  type: 'presence';
  name: PresenceEventName;
  tenantId: number;
  observed: string;
  at: number;
  /** joinedGroup: the group's account id. */
  groupJoined?: string;
  /** leftGroup: the group's account id. */
  groupLeft?: string;
}

export interface ParkLocationEvent {
  type: 'parkLocation';
  name: 'idle' | 'busy';
  tenantId: number;
  /** `PL2@1001` */
  observed: string;
  at: number;
  parkedParty?: string;
  parkedPartyName?: string;
}

export interface EmergencyEvent {
  type: 'emergency';
  tenantId: number;
  /** The caller's account. */
  observed: string;
  callObserverId: string;
  smdrCallId: string;
  from: string;
  to: string;
  siteId: string;
  siteName: string;
  at: number;
}

/** A text alert delivered to phones (send-message resources). */
export interface PhoneMessageEvent {
  type: 'phoneMessage';
  tenantId: number;
  deviceId: string;
  text: string;
  priority: string;
  at: number;
}

export interface DeviceEvent {
  type: 'device';
  tenantId: number;
  deviceId: string;
  registered: boolean;
  at: number;
}

/** Emitted once per call when its last leg ends. */
export interface CallEndedEvent {
  type: 'callEnded';
  tenantId: number;
  smdrCallId: string;
  at: number;
  record: CallRecordData;
}

export interface CallSegment {
  at: number;
  kind: string;
  /** Human-readable text, e.g. "Call answered by 102 Carol Chen". */
  text: string;
  account?: string;
  number?: string;
}

export interface CallRecordData {
  smdrCallId: string;
  tenantId: number;
  from: { number: string; name: string; account?: string };
  to: { number: string; name: string; account?: string };
  direction: 'in' | 'out' | 'internal';
  startedAt: number;
  answeredAt?: number;
  endedAt: number;
  outcome: 'Answered' | 'Unanswered' | 'Busy' | 'Failed' | 'Abandoned' | 'Voicemail';
  /** The ACD the call went through, if any. */
  acd?: string;
  parties: { account?: string; number: string; name: string }[];
  segments: CallSegment[];
}

export type SwitchEvent =
  | CallEvent
  | PresenceEvent
  | ParkLocationEvent
  | EmergencyEvent
  | PhoneMessageEvent
  | DeviceEvent
  | CallEndedEvent;

/** Presence of one account, for the status resources. */
export interface PresenceStatus {
  account: string;
  callActivity: 'idle' | 'busy';
  reachability: 'available' | 'unavailable';
  acd: 'signedInAcd' | 'signedOutAcd';
  dnd: 'dndOn' | 'dndOff';
  groups: string[];
}

export interface ParkLocationStatus {
  account: string;
  state: 'idle' | 'busy';
  parkedParty?: string;
  parkedPartyName?: string;
  callObserverId?: string;
}

// ---- commands (what the voice API sends) ---------------------------------------------------

export interface MakeCallCommand {
  tenantId: number;
  /** Originating extension. */
  fromExt: string;
  to: string;
  deviceId?: string;
  deviceIdType?: 'device' | 'external';
  playPrompt?: boolean;
}

export interface RetrieveParkedCommand {
  tenantId: number;
  fromExt: string;
  parkLocation: number;
  deviceId?: string;
}

/** The call requests a party may make on its leg (the voice API's `callRequest`). */
export const CALL_REQUESTS = [
  'answerCall',
  'hangupCall',
  'deflectCall',
  'holdCall',
  'resumeHeldCall',
  'transfer',
  'parkCall',
] as const;

export type CallRequestName = (typeof CALL_REQUESTS)[number];

export interface CallRequestCommand {
  tenantId: number;
  callObserverId: string;
  request: CallRequestName;
  /** Acting extension (from myPartyId); absent for hangupCall. */
  myExt?: string;
  deviceId?: string;
  otherCallId?: string;
  /** Park location number for parkCall. */
  parkLocation?: number;
}

export interface Who {
  principal: Principal;
}

// ---- simulator (docs/decisions.md §1.9) -------------------------------------------------------

/** How an outside number behaves when the platform calls it. */
export interface PstnBehaviour {
  answer: 'manual' | 'auto';
  /** Auto answer delay (default 2000 ms). */
  answerAfterMs?: number;
  /** Calls to the number fail with `callError` "busy". */
  busy?: boolean;
}

/** One leg carried by the PSTN simulator. `pstnCallId` is that leg's callObserverId. */
export interface PstnCallView {
  pstnCallId: string;
  from: string;
  to: string;
  /** `ringing` until the outside party answers a call placed to it, then the leg's callState. */
  state: string;
  callObserverId: string;
  smdrCallId: string;
  /** `inbound`: the outside party called in; `outbound`: the platform called the outside number. */
  direction: 'inbound' | 'outbound';
}

export interface PhoneMessage {
  text: string;
  priority: string;
  at: number;
}

export interface SimDeviceState {
  deviceId: string;
  tenantId: number;
  ownerExt: string;
  model: string;
  registered: boolean;
  /** callObserverIds of the live legs on (or ringing on) this phone. */
  calls: string[];
  /** The most recent phone messages, oldest first. */
  messages: PhoneMessage[];
}

export interface SimQueueState {
  tenantId: number;
  acdExt: string;
  name: string;
  calls: { smdrCallId: string; callerLegId: string; from: string; callerName: string; since: number }[];
}

/** The simulator's snapshot (`GET /sim/v1/state`). */
export interface SimState {
  now: number;
  devices: SimDeviceState[];
  calls: { smdrCallId: string; tenantId: number; startedAt: number; legs: LegView[] }[];
  queues: SimQueueState[];
  parkLocations: (ParkLocationStatus & { tenantId: number; number: number })[];
  pstnCalls: PstnCallView[];
  pstnNumbers: (PstnBehaviour & { number: string })[];
}
