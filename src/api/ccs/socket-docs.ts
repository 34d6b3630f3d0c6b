import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { CcRuntime } from './cc-runtime.js';
import { type MessageDoc, renderAsyncApi } from '../schema/asyncapi.js';
import { CC_DOCUMENT } from './cc-route.js';
import {
  BusyBodySchema,
  ForbiddenBodySchema,
  InternalErrorBodySchema,
  UpgradeRequiredBodySchema,
} from './error-schemas.js';
import {
  ConnectAcceptedSchema,
  ConnectRefusedSchema,
  ConnectRequestSchema,
  EVENT_FRAME_SCHEMAS,
  RequestRefusedSchema,
  SubscribeAcceptedSchema,
  SubscribeRefusedSchema,
  SubscribeRequestSchema,
} from './event-schemas.js';

export const CC_EVENTS_DOCUMENT = 'contact-center-events';

/** The ids of the resume examples. */
const SESSION = 'c3b9f0a1-5d2e-4f6a-9b8c-7d1e2f3a4b5c';
const TENANT = '7d1f2e3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a';

const CATEGORY_PERMISSION = {
  agent: 'Agent Events',
  call: 'Call Events',
  queue: 'Inbound Queue Events',
} as const;

/** Every frame of /6/v2/sock: what the client sends, the answers, and one message per event. */
export const EVENT_SOCKET_MESSAGES: readonly MessageDoc[] = [
  {
    name: 'connect',
    title: 'Connect',
    summary: 'The first frame: authenticates the socket with an access token.',
    payload: ConnectRequestSchema,
    action: 'receive',
    examples: [
      { name: 'connect', payload: { request: 'connect', token: '<access token>' } },
      { name: 'resumable', payload: { request: 'connect', token: '<access token>', resume: true } },
      {
        name: 'resume a session',
        payload: {
          request: 'connect',
          token: '<access token>',
          resume: { session: SESSION, after: { [TENANT]: 42 } },
        },
      },
    ],
  },
  {
    name: 'subscribe',
    title: 'Subscribe',
    summary: 'Narrows the events to the named events and categories.',
    payload: SubscribeRequestSchema,
    action: 'receive',
    examples: [{ name: 'subscribe', payload: { request: 'subscribe', events: ['agent', 'call_answered'] } }],
  },
  {
    name: 'connectAccepted',
    title: 'Connect accepted',
    summary:
      'The token is valid; events follow. With `resume` (docs/events.md): the session, whether it resumed, and the sequences.',
    payload: ConnectAcceptedSchema,
    action: 'send',
    examples: [
      { name: 'connected', payload: { response: 'connect', success: true } },
      {
        name: 'a new resumable session',
        payload: {
          response: 'connect',
          success: true,
          session: SESSION,
          resumed: false,
          sequences: { [TENANT]: 41 },
        },
      },
      {
        name: 'resumed: the subscription, then every missed event, then the live stream',
        payload: {
          response: 'connect',
          success: true,
          session: SESSION,
          resumed: true,
          sequences: { [TENANT]: 42 },
        },
      },
      {
        name: 'resume failed: a new session without a subscription; read the state again',
        payload: {
          response: 'connect',
          success: true,
          session: 'e6f1a2b3-4c5d-4e6f-8a7b-9c0d1e2f3a4b',
          resumed: false,
          sequences: { [TENANT]: 57 },
          reason: 'expired',
        },
      },
    ],
  },
  {
    name: 'connectRefused',
    title: 'Connect refused',
    summary:
      'The token is not valid, the client holds too many sockets, or `resume` is malformed; the socket closes.',
    payload: ConnectRefusedSchema,
    action: 'send',
  },
  {
    name: 'subscribeAccepted',
    title: 'Subscribe accepted',
    summary: 'The selected event names.',
    payload: SubscribeAcceptedSchema,
    action: 'send',
  },
  {
    name: 'subscribeRefused',
    title: 'Subscribe refused',
    summary: 'An unknown event name; the selection is unchanged.',
    payload: SubscribeRefusedSchema,
    action: 'send',
  },
  {
    name: 'requestRefused',
    title: 'Request refused',
    summary: 'Any other frame after connect.',
    payload: RequestRefusedSchema,
    action: 'send',
  },
  ...EVENT_FRAME_SCHEMAS.map(({ name, category, schema }): MessageDoc => ({
    name,
    title: name,
    summary: `A ${category === 'queue' ? 'inbound queue' : category} event (needs ${CATEGORY_PERMISSION[category]}).`,
    payload: schema,
    action: 'send',
  })),
];

/** Documents /6/v2/sock: the upgrade in the OpenAPI document, the frames in the AsyncAPI document. */
export function documentEventSocket(app: FastifyInstance, runtime: CcRuntime): void {
  runtime.docs.addOperation(CC_DOCUMENT, {
    method: 'GET',
    path: `${app.prefix}/sock`,
    operationId: 'openEventSocket',
    summary: 'Open the event WebSocket',
    description:
      'A WebSocket upgrade. The first frame must be `connect` with an access token; the frames are ' +
      'described by the AsyncAPI document /openapi/contact-center-events.json.',
    tags: ['events'],
    security: [],
    responses: {
      '101': { description: 'Switching to the WebSocket protocol.' },
      '403': {
        description: 'The page’s Origin is not one the operator allowed (only with --cors-origins).',
        schema: ForbiddenBodySchema,
      },
      '426': { description: 'A plain GET: this address is a WebSocket.', schema: UpgradeRequiredBodySchema },
      '500': { description: 'An unexpected failure.', schema: InternalErrorBodySchema },
      '503': {
        description: 'Busy; retry later.',
        schema: BusyBodySchema,
        headers: {
          'Retry-After': {
            description: 'Seconds to wait before retrying.',
            schema: Type.Integer({ minimum: 1 }),
            required: true,
          },
        },
      },
    },
  });
  runtime.docs.addAsyncApi(CC_EVENTS_DOCUMENT, () =>
    renderAsyncApi(
      {
        name: CC_EVENTS_DOCUMENT,
        title: 'Switchboard contact-center events',
        version: '6.2.0',
        description:
          'The contact-center event socket. Send `connect` with an access token first (within the ' +
          'connect time-out, 10 s by default); then every event the user may see arrives: agent events ' +
          'with Agent Events, call events with Call Events, inbound-queue events with Inbound Queue ' +
          "Events, for the user's tenant (telco users: every tenant). `subscribe` narrows the stream. " +
          'Opt-in: `connect` with `resume: true` opens a resumable session (the answer names it and ' +
          'each tenant’s last `sequence`; every event then carries its `sequence`); `connect` with ' +
          '`resume: {session, after}` within the grace period gives back the subscription and every ' +
          'missed event, or says why not (docs/events.md).',
        address: '/6/v2/sock',
        channelDescription:
          'One socket per client (user and address) by default; closed after the idle time without traffic.',
        // The token travels in the `connect` frame, which no AsyncAPI security scheme describes.
        securitySchemes: {},
      },
      EVENT_SOCKET_MESSAGES,
    ),
  );
}
