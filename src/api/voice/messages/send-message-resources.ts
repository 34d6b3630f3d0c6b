import { parseAccountId } from '../../../core/accounts.js';
import { invalid } from '../../../core/errors.js';
import type { AccessRule } from '../../../core/permissions.js';
import { ENUMS } from '../enums/enum-values.js';
import { link } from '../hal/links.js';
import type { Ctx, ResourceDef } from '../hal/resource.js';
import { voiceSwitch } from '../switch-port.js';

const SENDERS: AccessRule[] = ['ST:CC', 'TA'];
const PRIORITIES = ENUMS.alertPriority as readonly string[];

function messageOf(body: unknown): { message: string; priority: string } {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.message !== 'string' || b.message.trim() === '') {
    throw invalid('MISSING_FIELD', 'message is required.', [{ type: 'field', value: 'message' }]);
  }
  const priority = b.priority === undefined ? 'normal' : b.priority;
  if (typeof priority !== 'string' || !PRIORITIES.includes(priority)) {
    throw invalid('INVALID_FIELD', `priority must be one of ${PRIORITIES.join(', ')}.`, [
      { type: 'field', value: 'priority' },
    ]);
  }
  return { message: b.message, priority };
}

function stringList(body: unknown, name: string): string[] {
  const v = (body as Record<string, unknown> | null)?.[name];
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string')) {
    throw invalid('INVALID_FIELD', `${name} must be a non-empty array of strings.`, [
      { type: 'field', value: name },
    ]);
  }
  return v as string[];
}

function deliver(ctx: Ctx, deviceIds: string[], message: string, priority: string, href: string) {
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
        handle: (ctx) => {
          const { message, priority } = messageOf(ctx.body);
          const dir = ctx.runtime.directory;
          const deviceIds = stringList(ctx.body, 'accountIds').flatMap((a) => {
            const ref = parseAccountId(a);
            if (!ref || ref.tenantId !== ctx.tenantId || !dir.extension(ref.tenantId, ref.ext)) {
              throw invalid('UNKNOWN_ACCOUNT', `${a} is not an extension of tenant ${ctx.tenantId}.`, [
                { type: 'accountId', value: a },
              ]);
            }
            return dir.devicesOf(ref.tenantId, ref.ext).map((d) => d.id);
          });
          return deliver(
            ctx,
            deviceIds,
            message,
            priority,
            `/api/v1/sendmessage/tenants/${ctx.tenantId}/alertusers`,
          );
        },
      },
    },
  },
  {
    path: '/v1/sendmessage/tenants/:tenantId/alertsites',
    verbs: {
      POST: {
        rules: SENDERS,
        handle: (ctx) => {
          const { message, priority } = messageOf(ctx.body);
          const dir = ctx.runtime.directory;
          const sites = stringList(ctx.body, 'siteIds');
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
          return deliver(
            ctx,
            deviceIds,
            message,
            priority,
            `/api/v1/sendmessage/tenants/${ctx.tenantId}/alertsites`,
          );
        },
      },
    },
  },
];
