import { type Static, Type } from '@sinclair/typebox';
import { LIMITS } from '../../schema/bounds.js';
import { halList, halObject } from '../hal/hal-schemas.js';

const Accounts = (what: string) =>
  Type.Array(Type.String({ maxLength: LIMITS.stringLength }), {
    maxItems: LIMITS.arrayItems,
    description: `The ${what} whose events are delivered, as in a subscription set.`,
  });

const WebhookProps = {
  webhookId: Type.String({ format: 'uuid', description: 'The webhook’s id.' }),
  tenantId: Type.Integer({ description: 'The tenant whose events the webhook receives.' }),
  url: Type.String({ description: 'Where deliveries are POSTed.' }),
  callEventAccounts: Accounts('accounts (`101@1001`, group tokens)'),
  presenceEventAccounts: Accounts('users and locations (`101@1001`, group tokens)'),
  parkLocationEventAccounts: Accounts('park locations (`PL2@1001`)'),
  failing: Type.Boolean({
    description: 'A delivery was given up after its last try; cleared by the next delivery that succeeds.',
  }),
  pendingDeliveries: Type.Integer({ description: 'Deliveries waiting to be sent or retried.' }),
  createdAt: Type.String({ description: 'When the webhook was registered (ISO 8601).' }),
};

const webhookLinks = { links: ['self', 'v1:webhookDeliveries'], closedLinks: true } as const;

export const WebhookSchema = halObject(WebhookProps, webhookLinks, {
  $id: 'Webhook',
  description: 'A URL the tenant’s selected events are POSTed to, signed (docs/events.md).',
});

export const CreatedWebhookSchema = halObject(
  {
    ...WebhookProps,
    secret: Type.String({ description: 'The signing secret; shown only in this answer.' }),
  },
  webhookLinks,
  { $id: 'CreatedWebhook' },
);

export const WebhookListSchema = halList('webhooks', WebhookSchema, {
  closedLinks: true,
  $id: 'WebhookList',
});

const Secret = Type.String({
  minLength: 16,
  maxLength: LIMITS.stringLength,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'The signing secret (printable ASCII, 16 to 255); generated when absent.',
});

export const RotateSecretBodySchema = Type.Object(
  { secret: Type.Optional(Secret) },
  { $id: 'WebhookSecretRequest', additionalProperties: false },
);
export type RotateSecretBody = Static<typeof RotateSecretBodySchema>;

export const WebhookBodySchema = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'An `https:` URL (`http:` only when the operator allows it).',
    }),
    secret: Type.Optional(Secret),
    callEventAccounts: Type.Optional(Accounts('accounts')),
    presenceEventAccounts: Type.Optional(Accounts('users and locations')),
    parkLocationEventAccounts: Type.Optional(Accounts('park locations')),
  },
  { $id: 'WebhookRequest', additionalProperties: false },
);
export type WebhookBody = Static<typeof WebhookBodySchema>;

const AttemptSchema = Type.Object(
  {
    time: Type.String({ description: 'When the attempt began, on the server’s clock (ISO 8601).' }),
    statusCode: Type.Optional(Type.Integer({ description: 'The receiver’s status code, if it answered.' })),
    latencyMs: Type.Integer({ description: 'How long the attempt took, in milliseconds.' }),
    error: Type.Optional(
      Type.String({
        description: 'Why it failed: `status 503`, `timeout`, `connection refused`, `refused: …`.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'WebhookAttempt' },
);

export const DeliverySchema = halObject(
  {
    deliveryId: Type.String({ format: 'uuid', description: 'This log entry’s id.' }),
    messageId: Type.String({
      format: 'uuid',
      description: 'The `webhook-id` header and body `deliveryId`: the same for a redelivery.',
    }),
    sequence: Type.Optional(Type.Integer({ description: 'The event’s sequence in the tenant’s stream.' })),
    event: Type.String({ description: 'The event’s name.' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Array(AttemptSchema),
  },
  { links: ['self', 'v1:redeliver'], closedLinks: true },
  { $id: 'WebhookDelivery' },
);

export const DeliveryListSchema = halList('deliveries', DeliverySchema, {
  closedLinks: true,
  $id: 'WebhookDeliveryList',
});
