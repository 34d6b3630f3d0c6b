/**
 * The AsyncAPI document of webhook deliveries (/openapi/voice-webhooks.json): the POSTs
 * Switchboard sends to a registered URL, their headers and signature, and one message per event
 * a webhook can receive. The bodies are derived from the socket's event frames, so the two
 * documents cannot drift apart; the contract tests check every delivery against this one.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { type MessageDoc, renderAsyncApi } from '../../schema/asyncapi.js';
import type { ApiDocs } from '../../schema/registry.js';
import { VOICE_EVENT_MESSAGES } from '../events/voice-events-document.js';

export const WEBHOOKS_DOCUMENT = 'voice-webhooks';

export const DeliveryHeadersSchema = Type.Object(
  {
    'webhook-id': Type.String({
      format: 'uuid',
      description:
        'The body’s `deliveryId`: the same on every retry and on a redelivery (drop duplicates by it).',
    }),
    'webhook-timestamp': Type.String({
      pattern: '^[0-9]{1,12}$',
      description: 'Seconds since the epoch at this attempt, on the server’s clock.',
    }),
    'webhook-signature': Type.String({
      pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$',
      description:
        '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed ' +
        'with the webhook’s secret (its UTF-8 bytes, `whsec_` prefix included). Within 24 hours of a ' +
        'secret rotation a second signature, with the old secret, follows after a space: accept the ' +
        'delivery when any verifies.',
    }),
    'content-type': Type.Literal('application/json'),
    'user-agent': Type.String({ description: '`Switchboard-Webhooks/1`.' }),
  },
  {
    $id: 'WebhookDeliveryHeaders',
    description:
      'The HTTP headers of every delivery (names in lower case; `host`, `content-length` and the ' +
      'like as HTTP has them). The Standard Webhooks scheme (https://www.standardwebhooks.com/).',
  },
);

const Uuid = (description: string) => Type.String({ format: 'uuid', description });

/** A socket event frame as a delivery body: the set id gives way to the webhook and delivery ids. */
function asDelivery(frame: TObject): TObject {
  const { subscriptionSetId: _set, sequence: _seq, ...event } = frame.properties;
  return Type.Object(
    {
      webhookId: Uuid('The webhook the event is delivered to.'),
      deliveryId: Uuid('This message’s id, also in the `webhook-id` header; kept by a redelivery.'),
      sequence: Type.Integer({
        minimum: 1,
        description: 'The event’s place in its tenant’s stream (increasing, never reused; gaps allowed).',
      }),
      ...event,
    },
    {
      additionalProperties: false,
      $id: `${String(frame.$id)}Delivery`,
      description: frame.description,
    },
  );
}

/** A real delivery, signed with the secret `whsec_example-secret-do-not-use-0123` (docs/events.md). */
export const DELIVERY_EXAMPLE = {
  headers: {
    'webhook-id': 'e1a4c2d0-6b7f-4e3a-9d18-2c5b7a9e0f31',
    'webhook-timestamp': '1767603600',
    'webhook-signature': 'v1,nV7GkQsGIJP4iPzIrtc3wwNv1XPR0RkWy6NFkyPf3D8=',
    'content-type': 'application/json',
    'user-agent': 'Switchboard-Webhooks/1',
  },
  payload: {
    webhookId: '5b0c8e2a-1f3d-4a6b-9c7e-0d2f4b6a8c1e',
    deliveryId: 'e1a4c2d0-6b7f-4e3a-9d18-2c5b7a9e0f31',
    sequence: 42,
    event: 'dndOn',
    observedParty: '102@1001',
    timestamp: '2026-01-05T09:00:00.000+00:00',
    version: 'v1',
  },
};

/**
 * One delivery message per event frame a webhook can receive: call, presence and park-location
 * events (a webhook has no emergency-alert subscription).
 */
function deliveryMessages(): MessageDoc[] {
  return VOICE_EVENT_MESSAGES.filter(
    (m) => m.action === 'send' && 'subscriptionSetId' in ((m.payload as TSchema).properties ?? {}),
  )
    .filter((m) => m.name !== 'emergencyCallAlert')
    .map((m) => ({
      name: `${m.name}Delivery`,
      title: `${m.title} (webhook)`,
      summary: `${m.summary} As a webhook delivery.`,
      headers: DeliveryHeadersSchema,
      payload: asDelivery(m.payload as TObject),
      action: 'send' as const,
      ...(m.name === 'presence' ? { examples: [{ name: 'dndOn', ...DELIVERY_EXAMPLE }] } : {}),
    }));
}

/** Publishes the AsyncAPI document of webhook deliveries as /openapi/voice-webhooks.json. */
export function registerWebhooksDocument(docs: ApiDocs): void {
  docs.addAsyncApi(WEBHOOKS_DOCUMENT, () =>
    renderAsyncApi(
      {
        name: WEBHOOKS_DOCUMENT,
        title: 'Switchboard voice webhook deliveries',
        version: '1.0.0',
        description:
          'The events a webhook (`POST /api/v1/webhooks`, see /openapi/voice.json) selects, POSTed to its ' +
          'URL as JSON: the socket frame of the event (/openapi/voice-events.json) with ' +
          '`subscriptionSetId` replaced by `webhookId` and `deliveryId`, and the event’s `sequence`. ' +
          'Signed in the Standard Webhooks scheme (headers `webhook-id`, `webhook-timestamp`, ' +
          '`webhook-signature`). Any 2xx answer is success; anything else (a 3xx too: redirects are ' +
          'not followed), a time-out or a refused connection is retried with exponential back-off ' +
          'and jitter, one delivery at a time, in order per webhook. Delivery is at least once: ' +
          'drop duplicates by `webhook-id`. docs/events.md has the verification snippet.',
        address: null,
        channelDescription:
          'The path of the URL the webhook was registered with (`https:`; `http:` only when the ' +
          'operator allows it).',
        sendBindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
        servers: {
          receiver: {
            host: '{receiver}',
            protocol: 'https',
            description:
              'The host of the webhook’s URL. Never a private, loopback or link-local address unless ' +
              'the operator allowed them (checked after DNS resolution).',
            variables: {
              receiver: {
                description: 'The host (and port) of the registered URL.',
                examples: ['hooks.example.com'],
              },
            },
          },
        },
        securitySchemes: {},
      },
      deliveryMessages(),
    ),
  );
}
