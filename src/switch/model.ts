/**
 * The switch's live state: calls and their legs. Internal to src/switch; the outside sees
 * `LegView` snapshots made by `view()`.
 */
import type { TimerHandle } from '../core/clock.js';
import type { Extension } from '../directory/model.js';
import type { CallRecordData, CallSegment, CallState, LegSummary, LegView } from './types.js';

/** Who a leg is: an extension by account id, an outside party by number, voicemail. */
export interface Party {
  /** `101@1001`, `+15551234567`, `VM@1001`. */
  id: string;
  number: string;
  name: string;
  account?: string;
}

/**
 * - `user`: a user or location extension, on its phones (or an external device);
 * - `pstn`: an outside party carried by the PSTN simulator;
 * - `voicemail`: the voicemail system answering a covered call;
 * - `point`: a routing point (ACD, call group, auto attendant) holding the call for a while.
 */
export type LegKind = 'user' | 'pstn' | 'voicemail' | 'point';

/** What a caller's leg is trying to reach (until it is connected). */
export type Route =
  | { kind: 'user'; target: Leg }
  | {
      kind: 'group';
      group: Extension;
      members: string[];
      /** Index of the next member to try (hunt, rollover). */
      next: number;
      offers: Set<Leg>;
      point: Leg;
      rang: boolean;
    }
  | { kind: 'acd'; acdExt: string; offers: Map<string, Leg>; point: Leg }
  | { kind: 'outside'; target: Leg };

/** Click to call: what to do once the caller's own device is off-hook. */
export type Origin =
  | { kind: 'dial'; to: string; lenient: boolean; prompt?: boolean }
  | { kind: 'retrieve'; parkLocation: number };

export interface Leg {
  id: string;
  call: Call;
  kind: LegKind;
  tenantId: number;
  /** The observed account (users and routing points); null for outside parties and voicemail. */
  account: string | null;
  ext?: string;
  party: Party;
  /** Number and name this leg presents to others (caller id; an outbound queue may override it). */
  presented: { number: string; name: string };
  deviceId?: string;
  /** The phone that rings for an offered leg. */
  ringingDeviceId?: string;
  state: CallState;
  direction: 'outgoing' | 'incoming';
  from: string;
  to: string;
  digitsDialed: string;
  startTime: number;
  answerTime?: number;
  endTime?: number;
  redirected: boolean;
  transferred: boolean;
  /** The party this leg talks to. */
  peer?: Leg;
  /** This leg put its peer on hold. */
  holding: boolean;
  /** The party last reached or being reached (for callParties). */
  far?: Party;
  route?: Route;
  /** Set on an offered leg: the caller it would connect to. */
  offerFrom?: Leg;
  origin?: Origin;
  /** External click-to-call with a prompt: waiting for a DTMF digit. */
  awaitingPrompt?: boolean;
  timer?: TimerHandle;
  queue?: string;
  queuedAt?: number;
  parkLocation?: number;
  /** Extension that parked this leg (park recall rings it). */
  parkedBy?: string;
  /** The auto attendant a point leg plays. */
  attendant?: Extension;
  pstn?: { number: string; direction: 'inbound' | 'outbound'; answered: boolean };
  /** The `end` event went out; nothing may follow it. */
  closed: boolean;
}

export interface Call {
  smdrCallId: string;
  tenantId: number;
  startedAt: number;
  /** First time a person (or the outside party) answered. */
  answeredAt?: number;
  /** Legs not yet ended. */
  live: number;
  legs: Leg[];
  direction: CallRecordData['direction'];
  from: Party;
  to: Party;
  segments: CallSegment[];
  /** Busy / Failed when the call could not complete. */
  outcome?: CallRecordData['outcome'];
  acd?: string;
  queued: boolean;
  voicemail: boolean;
  lastEnder?: string;
  /** Why the switch itself ended the whole call (a lost node), for its record's last segment. */
  endReason?: string;
  /** Set once a SIP endpoint (a BST) takes part; then carried by dial, offer, ringback, ringing, answer. */
  sipCallId?: string;
}

export const isLive = (leg: Leg) => leg.state !== 'ended';

/** Connected-family state from the hold flags. */
export function talkState(leg: Leg): CallState {
  if (leg.holding) return 'held';
  if (leg.peer?.holding) return 'remoteHeld';
  return 'connected';
}

export function summary(leg: Leg): LegSummary {
  return {
    callObserverId: leg.id,
    smdrCallId: leg.call.smdrCallId,
    state: leg.state,
    from: leg.from,
    to: leg.to,
  };
}

export function view(leg: Leg, now: number): LegView {
  const v: LegView = {
    callObserverId: leg.id,
    smdrCallId: leg.call.smdrCallId,
    tenantId: leg.tenantId,
    account: leg.account,
    state: leg.state,
    direction: leg.direction,
    from: leg.from,
    to: leg.to,
    digitsDialed: leg.digitsDialed,
    startTime: leg.startTime,
    talkDurationMs: leg.answerTime === undefined ? 0 : Math.max(0, (leg.endTime ?? now) - leg.answerTime),
    redirected: leg.redirected,
    transferred: leg.transferred,
    callParties: callParties(leg),
  };
  if (leg.ext !== undefined) v.ext = leg.ext;
  const device = leg.deviceId ?? leg.ringingDeviceId;
  if (device !== undefined) v.deviceId = device;
  if (leg.answerTime !== undefined) v.answerTime = leg.answerTime;
  if (leg.endTime !== undefined) v.endTime = leg.endTime;
  if (leg.queue !== undefined) v.queue = leg.queue;
  if (leg.parkLocation !== undefined) v.parkLocation = leg.parkLocation;
  return v;
}

function callParties(leg: Leg): LegView['callParties'] {
  const out = [{ partyId: leg.party.id, partyName: leg.party.name }];
  const other = leg.peer?.party ?? leg.far;
  if (other && other.id !== leg.party.id) out.push({ partyId: other.id, partyName: other.name });
  return out;
}
