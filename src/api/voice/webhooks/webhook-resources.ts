import { Type } from '@sinclair/typebox';
import { isoWithOffset } from '../../../core/durations.js';
import { invalid, notFound } from '../../../core/errors.js';
import type { AccessRule } from '../../../core/permissions.js';
import type { StoredDelivery } from '../../../core/webhooks.js';
import { atMost } from '../../schema/bounds.js';
import type { ResponseDoc } from '../../schema/openapi.js';
import { checkAccounts } from '../events/account-rules.js';
import type { AccountKind } from '../events/subscriptions.js';
import { halQuery } from '../hal/hal-schemas.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';
import { type Ctx, type KeptBy, listEntity, locationHeader, type ResourceDef } from '../hal/resource.js';
import { newSecret } from './signing.js';
import type { Webhook, WebhookRegistry } from './webhook-registry.js';
import {
  CreatedWebhookSchema,
  DeliveryListSchema,
  DeliverySchema,
  type RotateSecretBody,
  RotateSecretBodySchema,
  type WebhookBody,
  WebhookBodySchema,
  WebhookListSchema,
  WebhookSchema,
} from './webhook-schemas.js';

/** As for subscription sets: scoped telco users with CallControl, tenant admins, users. */
const WATCHERS: AccessRule[] = ['ST:CC', 'TA', 'U'];
/** Webhooks per tenant (409 LIMIT_REACHED above). */
export const MAX_WEBHOOKS_PER_TENANT = 20;

const HOOKS = '/v1/webhooks';
const HOOK = `${HOOKS}/:webhookId`;
const DELIVERIES = `${HOOK}/deliveries`;
const hookHref = (w: Webhook) => `/api/v1/webhooks/${w.id}`;
const deliveryHref = (w: Webhook, d: StoredDelivery) => `${hookHref(w)}/deliveries/${d.id}`;

const TAGS = ['webhooks'];
const HookParams = Type.Object({ webhookId: Type.String({ description: 'The webhook’s id.' }) });
const DeliveryParams = Type.Object({
  ...HookParams.properties,
  deliveryId: Type.String({ description: 'The delivery log entry’s id.' }),
});
const ok = (
  description: string,
  schema?: ResponseDoc['schema'],
  status = '200',
): Record<string, ResponseDoc> => ({
  [status]: schema ? { description, schema } : { description },
});

export function webhookEntity(w: Webhook): Entity {
  const s = w.state;
  return {
    props: {
      webhookId: w.id,
      tenantId: w.tenantId,
      url: s.url,
      callEventAccounts: s.accounts.call,
      presenceEventAccounts: s.accounts.presence,
      parkLocationEventAccounts: s.accounts.park,
      failing: s.failing,
      pendingDeliveries: w.queue.pending.length,
      createdAt: isoWithOffset(s.createdAt),
    },
    links: { self: link(hookHref(w)), 'v1:webhookDeliveries': link(`${hookHref(w)}/deliveries`) },
  };
}

function deliveryEntity(w: Webhook, d: StoredDelivery): Entity {
  const body = JSON.parse(d.body) as { deliveryId: string; sequence?: number; event: string };
  return {
    props: {
      deliveryId: d.id,
      messageId: body.deliveryId,
      ...(body.sequence !== undefined ? { sequence: body.sequence } : {}),
      event: body.event,
      status: d.status,
      attempts: d.attempts.map((a) => ({
        time: isoWithOffset(a.at),
        ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
        latencyMs: a.latencyMs,
        ...(a.error !== undefined ? { error: a.error } : {}),
      })),
    },
    links: { self: link(deliveryHref(w, d)), 'v1:redeliver': link(`${deliveryHref(w, d)}/redeliver`) },
  };
}

/** The registered URL, refused unless https (or http by flag) with a host and no credentials. */
function checkUrl(raw: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('INVALID_FIELD', 'url must be an absolute URL.', [{ type: 'field', value: 'url' }]);
  }
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol) || !url.hostname || url.username || url.password) {
    const words = allowHttp ? 'an https: or http:' : 'an https:';
    throw invalid('INVALID_FIELD', `url must be ${words} URL with a host and no credentials.`, [
      { type: 'field', value: 'url' },
    ]);
  }
  return url.href;
}

/** Webhooks (docs/events.md "Webhooks"): register, list, read, delete; the delivery log; redeliver. */
export function webhookResources(registry: WebhookRegistry): ResourceDef[] {
  const hookOf = (ctx: Ctx): Webhook => {
    const w = registry.ownedBy(ctx.params.webhookId, ctx.principal);
    if (!w) {
      throw notFound('WEBHOOK_NOT_FOUND', `No webhook ${ctx.params.webhookId} of this user.`, [
        { type: 'webhookId', value: ctx.params.webhookId },
      ]);
    }
    return w;
  };
  const deliveryOf = (ctx: Ctx, w: Webhook): StoredDelivery => {
    const d = w.queue.find(ctx.params.deliveryId);
    if (!d) {
      throw notFound('DELIVERY_NOT_FOUND', `No delivery ${ctx.params.deliveryId} in the log.`, [
        { type: 'deliveryId', value: ctx.params.deliveryId },
      ]);
    }
    return d;
  };

  /** The reads are kept while no webhook or delivery changed. */
  const cached: KeptBy = { count: () => registry.generation };

  // Declared like subscription-resources.ts; the shared logic is checkAccounts and locationHeader.
  return [
    {
      path: HOOKS,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'listWebhooks',
            summary: 'The webhooks the requester registered',
            tags: TAGS,
            query: halQuery('list'),
            responses: ok('The webhooks.', WebhookListSchema),
          },
          handle: (ctx) => ({
            entity: listEntity(ctx, {
              name: 'webhooks',
              schema: { fields: { webhookId: 'string', url: 'string', failing: 'boolean' } },
              items: registry.listOf(ctx.principal).map(webhookEntity),
              links: { self: link('/api/v1/webhooks') },
            }),
          }),
        },
        POST: {
          rules: WATCHERS,
          doc: {
            operationId: 'createWebhook',
            summary: 'Register a webhook',
            description:
              'Accounts follow the rules of subscription sets. The secret is returned only in this answer.',
            tags: TAGS,
            body: WebhookBodySchema,
            responses: {
              '201': {
                description: 'The webhook, with its secret.',
                schema: CreatedWebhookSchema,
                headers: locationHeader('The webhook’s address.'),
              },
            },
          },
          handle: async (ctx) => {
            const body = ctx.body as WebhookBody;
            const tenantId = ctx.principal.tenantId!;
            const url = checkUrl(body.url, registry.settings.allowHttp);
            const check = (kind: AccountKind, list: string[] | undefined) =>
              checkAccounts(kind, list ?? [], tenantId, ctx.principal, ctx.runtime.directory);
            const accounts = {
              call: check('call', body.callEventAccounts),
              presence: check('presence', body.presenceEventAccounts),
              park: check('park', body.parkLocationEventAccounts),
            };
            atMost(registry.countOf(tenantId), MAX_WEBHOOKS_PER_TENANT, 'webhooks per tenant');
            const secret = body.secret ?? newSecret();
            const hook = await registry.create(tenantId, ctx.principal, {
              url,
              secret,
              accounts,
              failing: false,
              createdAt: ctx.runtime.clock.now(),
            });
            const entity = webhookEntity(hook);
            entity.props = { ...entity.props, secret };
            return { entity, status: 201, location: hookHref(hook) };
          },
        },
      },
    },
    {
      path: HOOK,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'getWebhook',
            summary: 'One webhook (without its secret)',
            tags: TAGS,
            params: HookParams,
            responses: ok('The webhook.', WebhookSchema),
          },
          handle: (ctx) => ({ entity: webhookEntity(hookOf(ctx)) }),
        },
        DELETE: {
          rules: WATCHERS,
          doc: {
            operationId: 'deleteWebhook',
            summary: 'Delete a webhook, its queue and its log',
            tags: TAGS,
            params: HookParams,
            responses: ok('Deleted; empty body.'),
          },
          handle: async (ctx) => {
            await registry.delete(hookOf(ctx));
            return { empty: true };
          },
        },
      },
    },
    {
      path: `${HOOK}/secret`,
      verbs: {
        POST: {
          rules: WATCHERS,
          doc: {
            operationId: 'rotateWebhookSecret',
            summary: 'Rotate the signing secret; the old one also signs for 24 hours',
            description: 'The new secret (given, or generated when absent) is shown only in this answer.',
            tags: TAGS,
            params: HookParams,
            body: RotateSecretBodySchema,
            responses: ok('The webhook, with its new secret.', CreatedWebhookSchema),
          },
          handle: async (ctx) => {
            const hook = hookOf(ctx);
            const secret = (ctx.body as RotateSecretBody).secret ?? newSecret();
            await registry.rotate(hook, secret);
            const entity = webhookEntity(hook);
            entity.props = { ...entity.props, secret };
            return { entity };
          },
        },
      },
    },
    {
      path: DELIVERIES,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'listWebhookDeliveries',
            summary:
              'The delivery log: pending deliveries and the last finished ones, each with its attempts',
            tags: TAGS,
            params: HookParams,
            query: halQuery('list'),
            responses: ok('The log, oldest first.', DeliveryListSchema),
          },
          handle: (ctx) => {
            const w = hookOf(ctx);
            const all = [...w.queue.finished, ...w.queue.pending];
            return {
              entity: listEntity(ctx, {
                name: 'deliveries',
                schema: { fields: { deliveryId: 'string', status: 'string', event: 'string' } },
                items: all.map((d) => deliveryEntity(w, d)),
                links: { self: link(`${hookHref(w)}/deliveries`) },
              }),
            };
          },
        },
      },
    },
    {
      path: `${DELIVERIES}/:deliveryId`,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'getWebhookDelivery',
            summary: 'One delivery and its attempts',
            tags: TAGS,
            params: DeliveryParams,
            responses: ok('The delivery.', DeliverySchema),
          },
          handle: (ctx) => {
            const w = hookOf(ctx);
            return { entity: deliveryEntity(w, deliveryOf(ctx, w)) };
          },
        },
      },
    },
    {
      path: `${DELIVERIES}/:deliveryId/redeliver`,
      verbs: {
        POST: {
          rules: WATCHERS,
          doc: {
            operationId: 'redeliverWebhookDelivery',
            summary: 'Send a logged delivery again (same message id and body), after those queued',
            tags: TAGS,
            params: DeliveryParams,
            responses: ok('The new log entry, pending.', DeliverySchema, '202'),
          },
          handle: (ctx) => {
            const w = hookOf(ctx);
            const again = registry.redeliver(w, deliveryOf(ctx, w));
            return { entity: deliveryEntity(w, again), status: 202, location: deliveryHref(w, again) };
          },
        },
      },
    },
  ];
}
