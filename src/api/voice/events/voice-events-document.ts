import type { TSchema } from '@sinclair/typebox';
import { type AsyncApiInfo, type MessageDoc, renderAsyncApi } from '../../schema/asyncapi.js';
import type { ApiDocs } from '../../schema/registry.js';
import * as S from './event-schemas.js';
import { ResumeQuerySchema } from './voice-resume.js';

const INFO: AsyncApiInfo = {
  name: 'voice-events',
  title: 'Switchboard voice platform events',
  version: '1.0.0',
  description:
    'Call, presence, park-location and emergency events of the voice platform API, pushed over the ' +
    'WebSocket /api/ws to the subscription sets that asked for them. Set-up: (1) open the socket; ' +
    '(2) receive `{webSocketId}`; (3) POST a subscription set with that id ' +
    '(`/api/v1/subscriptions/ws/{webSocketId}/subscriptionsets`, see /openapi/voice.json); (4) add accounts or ' +
    'park locations to the set; (5) events arrive as they occur. Initial state comes from the status ' +
    'resources. A socket with no traffic for an hour closes, cancelling its sets. Opt-in: a socket ' +
    'opened with `?resume` is resumable: its first frame carries `resume`, its events a per-tenant ' +
    '`sequence`, and `?resume=<webSocketId>&after=<sequence>` within the grace period gives back its ' +
    'sets and every missed event (docs/events.md).',
  address: '/api/ws',
  channelDescription:
    'One socket per client: after the upgrade Switchboard sends the WebSocket id, then the events of ' +
    'every subscription set created on the socket; anything the client sends is echoed back. The ' +
    'upgrade’s query opts in to resume (`ws` binding): `?resume` opens a resumable socket, ' +
    '`?resume=<webSocketId>&after=<sequence>` resumes one; a malformed pair is answered 400 ' +
    'without upgrading.',
  channelBindings: { ws: { method: 'GET', query: ResumeQuerySchema, bindingVersion: '0.1.0' } },
  securitySchemes: {
    basic: {
      type: 'http',
      scheme: 'basic',
      description: 'Basic authentication on the upgrade request: any valid user of the voice API.',
    },
  },
};

const send = (name: string, title: string, summary: string, payload: TSchema): MessageDoc => ({
  name,
  title,
  summary,
  payload,
  action: 'send',
});

/** Every frame of /api/ws (the webhook deliveries are derived from the event frames). */
export const VOICE_EVENT_MESSAGES: readonly MessageDoc[] = [
  {
    ...send(
      'webSocketId',
      'WebSocket id',
      'The first frame after the upgrade: the id to create subscription sets with.',
      S.WebSocketIdFrameSchema,
    ),
    examples: [
      { name: 'id', payload: { webSocketId: '3f0e8a52-4a43-4c8e-9a55-5b8a2d1c7e11' } },
      {
        name: 'resumable (`?resume`)',
        payload: {
          webSocketId: '3f0e8a52-4a43-4c8e-9a55-5b8a2d1c7e11',
          resume: { status: 'started', sequence: 41 },
        },
      },
      {
        name: 'resumed (`?resume=<webSocketId>&after=42`)',
        payload: {
          webSocketId: '3f0e8a52-4a43-4c8e-9a55-5b8a2d1c7e11',
          resume: { status: 'resumed', sequence: 42 },
        },
      },
      {
        name: 'resume failed: a new socket without sets; read the status resources again',
        payload: {
          webSocketId: '9d2c4e61-7b3a-4f1d-8c5e-2a6b9f0d3e47',
          resume: { status: 'failed', reason: 'expired', sequence: 57 },
        },
      },
      {
        name: 'no stream (a telco user of no tenant)',
        payload: {
          webSocketId: '9d2c4e61-7b3a-4f1d-8c5e-2a6b9f0d3e47',
          resume: { status: 'unavailable' },
        },
      },
    ],
  },
  {
    ...send('callDial', 'dial', 'Call event: the account dialed a call.', S.DialEventSchema),
    examples: [
      {
        name: 'dial',
        payload: {
          subscriptionSetId: '0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50',
          event: 'dial',
          observedParty: '101@1001',
          timestamp: '2026-01-05T14:03:07.250+00:00',
          version: 'v1',
          callId: 527894400000016,
          smdrCallId: '527894400000000',
          from: '101',
          to: '102',
          dialingDeviceId: 'ph1001-101',
        },
      },
    ],
  },
  send('callRingback', 'ringback', 'Call event: the dialed call is ringing.', S.RingbackEventSchema),
  send('callOffer', 'offer', 'Call event: a call is offered to the account.', S.OfferEventSchema),
  send('callRinging', 'ringing', 'Call event: the offered call rings on a phone.', S.RingingEventSchema),
  send('callAnswer', 'answer', 'Call event: the offered or dialed call is answered.', S.AnswerEventSchema),
  send('callForward', 'forward', 'Call event: the call is forwarded.', S.ForwardEventSchema),
  send(
    'callHold',
    'hold',
    'Call event: the call is put on hold (sent to the holding and to the held party).',
    S.HoldEventSchema,
  ),
  send(
    'callResume',
    'resume',
    'Call event: the call is taken off hold (sent to both sides).',
    S.ResumeEventSchema,
  ),
  send('callTransfer', 'transfer', 'Call event: the call is transferred.', S.TransferEventSchema),
  send(
    'callError',
    'callError',
    'Call event: the call cannot complete and is sent to treatment.',
    S.CallErrorEventSchema,
  ),
  {
    ...send('callEnd', 'end', 'Call event: the account is no longer in the call.', S.EndEventSchema),
    examples: [
      {
        name: 'end',
        payload: {
          subscriptionSetId: '0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50',
          event: 'end',
          observedParty: '101@1001',
          timestamp: '2026-01-05T14:04:12.500+00:00',
          version: 'v1',
          callId: 527894400000016,
          smdrCallId: '527894400000000',
          from: '101',
          to: '102',
          endingParty: '102@1001',
          endReason: 'normal',
          callDuration: 'PT1M5.25S',
        },
      },
    ],
  },
  send(
    'callPark',
    'park',
    'Call event: the call is parked (sent to the parking and to the parked party).',
    S.ParkEventSchema,
  ),
  send(
    'callRetrieve',
    'retrieve',
    'Call event: a parked call is retrieved (sent to the retrieving party).',
    S.RetrieveEventSchema,
  ),
  send(
    'callRetrieved',
    'retrieved',
    'Call event: a parked call is retrieved (sent to the parked party).',
    S.RetrievedEventSchema,
  ),
  {
    ...send(
      'presence',
      'presence',
      'Presence event: idle, busy, available, unavailable, signedInAcd, signedOutAcd, dndOn or dndOff.',
      S.PresenceEventSchema,
    ),
    examples: [
      {
        name: 'busy',
        payload: {
          subscriptionSetId: '0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50',
          event: 'busy',
          observedParty: '101@1001',
          timestamp: '2026-01-05T14:03:07.250+00:00',
          version: 'v1',
        },
      },
      {
        name: 'on a resumable socket',
        payload: {
          subscriptionSetId: '0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50',
          sequence: 42,
          event: 'dndOn',
          observedParty: '102@1001',
          timestamp: '2026-01-05T09:00:00.000+00:00',
          version: 'v1',
        },
      },
    ],
  },
  send(
    'presenceJoinedGroup',
    'joinedGroup',
    'Presence event: the account joined a group.',
    S.JoinedGroupEventSchema,
  ),
  send('presenceLeftGroup', 'leftGroup', 'Presence event: the account left a group.', S.LeftGroupEventSchema),
  send(
    'parkLocationIdle',
    'park location idle',
    'Park-location event: the location holds no call.',
    S.ParkLocationIdleEventSchema,
  ),
  send(
    'parkLocationBusy',
    'park location busy',
    'Park-location event: a call is parked at the location.',
    S.ParkLocationBusyEventSchema,
  ),
  send(
    'emergencyCallAlert',
    'emergencyCallAlert',
    'Emergency call alert: an extension dialed an emergency number (sets subscribed with allSites).',
    S.EmergencyCallAlertEventSchema,
  ),
  {
    name: 'clientMessage',
    title: 'client message (echoed)',
    summary:
      'Any short message from the client; Switchboard echoes it back unchanged and resets the idle time-out.',
    payload: S.ClientMessageSchema,
    action: 'receive',
  },
];

/** Publishes the AsyncAPI document of /api/ws as /openapi/voice-events.json. */
export function registerVoiceEventsDocument(docs: ApiDocs): void {
  docs.addAsyncApi(INFO.name, () => renderAsyncApi(INFO, VOICE_EVENT_MESSAGES));
}
