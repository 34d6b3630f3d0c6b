/**
 * Wire shapes of the voice platform API: the Static types of the server's own TypeBox schemas
 * (published in /openapi/voice.json and /openapi/voice-events.json), imported as types only.
 * The HAL resources are given by their own properties, as `props()` returns them; `Hal<T>` adds
 * the `_links` and `_embedded` back.
 */
import type { Static } from '@sinclair/typebox';
import type * as Calls from '../../../../src/api/voice/calls/call-schemas.js';
import type { ExtensionListItem } from '../../../../src/api/voice/directory/directory-schemas.js';
import type * as Events from '../../../../src/api/voice/events/event-schemas.js';
import type * as Subscriptions from '../../../../src/api/voice/events/subscription-schemas.js';
import type { ProblemSchema } from '../../../../src/api/voice/hal/problem-schema.js';
import type { ApiRoot as ServerApiRoot } from '../../../../src/api/voice/navigation/navigation-schemas.js';
import type * as Status from '../../../../src/api/voice/status/status-schemas.js';

/** A HAL resource without its `_links` and `_embedded`. */
type OwnProperties<T> = { [K in keyof T as Exclude<K, '_links' | '_embedded'>]: T[K] };

/** An RFC 9457 problem document of the voice API. */
export type Problem = Static<typeof ProblemSchema>;

export type MakeCallBody = Calls.MakeCallBody;
export type CallRequestBody = Calls.CallRequestBody;
export type CallRequestName = CallRequestBody['callRequest'];

export type ApiRoot = OwnProperties<ServerApiRoot>;
export type ActiveCall = OwnProperties<Calls.ActiveCall>;
export type Call = OwnProperties<Calls.Call>;
export type CallParty = Call['callParties'][number];
export type CreatedCall = OwnProperties<Calls.CallCreated>;
export type SubscriptionSetInfo = OwnProperties<Subscriptions.SubscriptionSet>;
export type EventAccount = OwnProperties<Subscriptions.EventAccount>;
export type PresenceStatus = OwnProperties<Status.PresenceStatus>;
export type ParkLocationStatus = OwnProperties<Status.ParkLocationStatus>;
/** An extension as `v1:extensions` lists it: extension, name and extensionType; the rest when expanded. */
export type ExtensionSummary = OwnProperties<ExtensionListItem>;

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
