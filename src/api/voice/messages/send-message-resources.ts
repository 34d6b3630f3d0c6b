import { parseAccountId } from '../../../core/accounts.js';
import { invalid } from '../../../core/errors.js';
import type { AccessRule } from '../../../core/permissions.js';
import { type TSchema, Type } from '@sinclair/typebox';
import { link } from '../hal/links.js';
import { type Ctx, type ResourceDef, TenantIdParam } from '../hal/resource.js';
import { voiceSwitch } from '../switch-port.js';
import {
  type AlertSitesBody,
  AlertSitesBodySchema,
  type AlertUsersBody,
  AlertUsersBodySchema,
  SentMessageSchema,
} from './send-message-schemas.js';

const SENDERS: AccessRule[] = ['ST:CC', 'TA'];
const TenantParams = Type.Object({ tenantId: TenantIdParam });

const sendDoc = (operationId: string, summary: string, body: TSchema) => ({
  operationId,
  summary,
  tags: ['messages'],
  params: TenantParams,
  body,
  responses: { '200': { description: 'The message was delivered.', schema: SentMessageSchema } },
});

function deliver(ctx: Ctx, deviceIds: string[], body: AlertUsersBody | AlertSitesBody, href: string) {
  const { message, priority = 'normal' } = body;
  voiceSwitch(ctx.runtime).sendMessage(ctx.tenantId!, deviceIds, message, priority);
  return { entity: { props: { message, priority, deviceIds }, links: { self: link(href) } } };
}

/**
 * Text alerts to phones. Bodies (not shown in the spec): alertusers
 * `{accountIds: ["101@1001"], message, priority?}`; alertsites `{siteIds: [...], message, priority?}`.
 */
export const sendMessageResources: ResourceDef[] = [
  {
    path: '/v1/sendmessage/tenants/:tenantId/alertusers',
    verbs: {
      POST: {
        rules: SENDERS,
        doc: sendDoc('alertUsers', 'Send a text alert to the phones of extensions', AlertUsersBodySchema),
        handle: (ctx) => {
          const body = ctx.body as AlertUsersBody;
          const dir = ctx.runtime.directory;
          const deviceIds = body.accountIds.flatMap((a) => {
            const ref = parseAccountId(a);
            if (!ref || ref.tenantId !== ctx.tenantId || !dir.extension(ref.tenantId, ref.ext)) {
              throw invalid('UNKNOWN_ACCOUNT', `${a} is not an extension of tenant ${ctx.tenantId}.`, [
                { type: 'accountId', value: a },
              ]);
            }
            return dir.devicesOf(ref.tenantId, ref.ext).map((d) => d.id);
          });
          return deliver(ctx, deviceIds, body, `/api/v1/sendmessage/tenants/${ctx.tenantId}/alertusers`);
        },
      },
    },
  },
  // As alertusers (deliver and sendDoc shared), but the phones are found by site, not by extension.
  {
    path: '/v1/sendmessage/tenants/:tenantId/alertsites',
    verbs: {
      POST: {
        rules: SENDERS,
        doc: sendDoc('alertSites', 'Send a text alert to the phones of sites', AlertSitesBodySchema),
        handle: (ctx) => {
          const body = ctx.body as AlertSitesBody;
          const dir = ctx.runtime.directory;
          const sites = body.siteIds;
          for (const s of sites) {
            const site = dir.get('site', s);
            if (!site || site.tenantId !== ctx.tenantId) {
              throw invalid('UNKNOWN_SITE', `${s} is not a site of tenant ${ctx.tenantId}.`, [
                { type: 'value', value: s },
              ]);
            }
          }
          const deviceIds = dir
            .extensions(ctx.tenantId!)
            .filter((e) => e.siteId !== undefined && sites.includes(e.siteId))
            .flatMap((e) => dir.devicesOf(e.tenantId, e.ext).map((d) => d.id));
          return deliver(ctx, deviceIds, body, `/api/v1/sendmessage/tenants/${ctx.tenantId}/alertsites`);
        },
      },
    },
  },
];
