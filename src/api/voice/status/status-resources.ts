import type { FastifyRequest } from 'fastify';
import { forbidden, invalid, notFound } from '../../../core/errors.js';
import type { AccessRule } from '../../../core/permissions.js';
import type { Extension } from '../../../directory/model.js';
import type { ParkLocationStatus, PresenceStatus } from '../../../switch/types.js';
import { expandAccounts } from '../events/account-rules.js';
import type { SetView, VoiceSockets } from '../events/voice-sockets.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import { link } from '../hal/links.js';
import type { Entity, ItemSchema } from '../hal/model.js';
import { type Ctx, checkTenant, listEntity, type ResourceDef, TenantIdParam } from '../hal/resource.js';
import { voiceSwitch } from '../switch-port.js';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { halQuery } from '../hal/hal-schemas.js';
import {
  ParkLocationStatusBySubscriptionSetSchema,
  ParkLocationStatusListSchema,
  ParkLocationStatusSchema,
  PresenceStatusBySubscriptionSetSchema,
  PresenceStatusListSchema,
  PresenceStatusSchema,
} from './status-schemas.js';

const WATCHERS: AccessRule[] = ['ST:CC', 'TA', 'U'];

const TenantId = TenantIdParam;
const SetParams = Type.Object({
  webSocketId: Type.String({ description: 'The WebSocket that holds the set.' }),
  subscriptionSetId: Type.String({ description: 'The subscription set.' }),
});

/** The doc of a status GET. */
const statusDoc = (
  operationId: string,
  summary: string,
  schema: TSchema,
  params: TObject,
  list: boolean,
  description?: string,
) => ({
  operationId,
  summary,
  ...(description ? { description } : {}),
  tags: ['status'],
  params,
  ...(list ? { query: halQuery('list') } : {}),
  responses: { '200': { description: 'The current status.', schema } },
});

const presenceHref = (tenantId: number, ext: string) =>
  `/api/v1/presencestatus/tenants/${tenantId}/extensions/${ext}`;
const parkHref = (account: string) =>
  `/api/v1/presencestatus/parklocationstatus/${encodeURIComponent(account)}`;

const PRESENCE_SCHEMA: ItemSchema = {
  fields: {
    accountId: 'string',
    callActivity: 'string',
    reachability: 'string',
    acd: 'string',
    dnd: 'string',
  },
};
const PARK_SCHEMA: ItemSchema = {
  fields: {
    accountId: 'string',
    state: 'string',
    parkedParty: 'string',
    parkedPartyName: 'string',
    callId: 'string',
  },
};

function presenceEntity(s: PresenceStatus, tenantId: number): Entity {
  const ext = s.account.slice(0, s.account.lastIndexOf('@'));
  return {
    props: {
      accountId: s.account,
      callActivity: s.callActivity,
      reachability: s.reachability,
      acd: s.acd,
      dnd: s.dnd,
      groups: s.groups,
    },
    links: { self: link(presenceHref(tenantId, ext)) },
  };
}

function parkEntity(s: ParkLocationStatus): Entity {
  const props: Record<string, unknown> = { accountId: s.account, state: s.state };
  if (s.parkedParty !== undefined) props.parkedParty = s.parkedParty;
  if (s.parkedPartyName !== undefined) props.parkedPartyName = s.parkedPartyName;
  if (s.callObserverId !== undefined) props.callId = s.callObserverId;
  return { props, links: { self: link(parkHref(s.account)) } };
}

function presenceOf(ctx: Ctx, tenantId: number, ext: string): Entity | undefined {
  const s = voiceSwitch(ctx.runtime).presence(tenantId, ext);
  return s && presenceEntity(s, tenantId);
}

function parkStatusOf(ctx: Ctx, tenantId: number, n: number): Entity | undefined {
  const s = voiceSwitch(ctx.runtime).parkLocationStatus(tenantId, n);
  return s && parkEntity(s);
}

const PRESENCE_EXTS = (type: string) => type === 'userExt' || type === 'locationExt';

/** Presence of the users and locations among `exts` (group tokens may name other extensions). */
function presenceList(
  ctx: Ctx,
  tenantId: number,
  exts: Extension[],
  self: string,
  props?: Record<string, unknown>,
) {
  const items = exts
    .filter((e) => PRESENCE_EXTS(e.type))
    .map((e) => presenceOf(ctx, tenantId, e.ext))
    .filter((e): e is Entity => e !== undefined);
  return {
    entity: listEntity(ctx, {
      name: 'presenceStatus',
      schema: PRESENCE_SCHEMA,
      items,
      props,
      links: { self: link(self) },
    }),
  };
}

function parkList(
  ctx: Ctx,
  tenantId: number,
  numbers: number[],
  self: string,
  props?: Record<string, unknown>,
) {
  const items = numbers
    .map((n) => parkStatusOf(ctx, tenantId, n))
    .filter((e): e is Entity => e !== undefined);
  return {
    entity: listEntity(ctx, {
      name: 'parkLocationStatus',
      schema: PARK_SCHEMA,
      items,
      props,
      links: { self: link(self) },
    }),
  };
}

/**
 * In a cluster, a status read by subscription set runs on the owner of the requester's tenant
 * (the live state it reads), which asks the node holding the socket for the set.
 */
const ownTenant = (req: FastifyRequest) => requestPrincipal(req)?.tenantId;

/** The status resources a client reads before relying on events. */
export function statusResources(sockets: VoiceSockets): ResourceDef[] {
  const setOf = async (ctx: Ctx): Promise<SetView> => {
    const set = await sockets.findSet(ctx.params.webSocketId, ctx.params.subscriptionSetId, ctx.principal);
    if (!set) {
      throw notFound(
        'SUBSCRIPTION_SET_NOT_FOUND',
        `No subscription set ${ctx.params.subscriptionSetId} on that WebSocket.`,
        [{ type: 'subscriptionSetId', value: ctx.params.subscriptionSetId }],
      );
    }
    return set;
  };

  return [
    {
      path: '/v1/presencestatus/tenants/:tenantId/extensions/:extension',
      verbs: {
        GET: {
          cached: 'live',
          rules: WATCHERS,
          doc: statusDoc(
            'getPresenceStatus',
            'The presence of one user or location',
            PresenceStatusSchema,
            Type.Object({ tenantId: TenantId, extension: Type.String({ description: 'The extension.' }) }),
            false,
            'A non-admin user reads only their own.',
          ),
          handle: (ctx) => {
            const tenantId = ctx.tenantId!;
            const ext = ctx.params.extension;
            const p = ctx.principal;
            if ((p.authority === 'user' || p.authority === 'location') && p.ext !== ext) {
              throw forbidden('OWN_EXTENSION_ONLY', 'A non-admin user may read only their own presence.');
            }
            const e = ctx.runtime.directory.extension(tenantId, ext) && presenceOf(ctx, tenantId, ext);
            if (!e)
              throw notFound('EXTENSION_NOT_FOUND', `No extension ${ext}.`, [
                { type: 'extension', value: ext },
              ]);
            return { entity: e };
          },
        },
      },
    },
    {
      path: '/v1/presencestatus/tenants/:tenantId/extensions',
      verbs: {
        GET: {
          cached: 'live',
          rules: ['ST:CC', 'TA'],
          doc: statusDoc(
            'listPresenceStatus',
            'The presence of every user and location of a tenant',
            PresenceStatusListSchema,
            Type.Object({ tenantId: TenantId }),
            true,
          ),
          handle: (ctx) =>
            presenceList(
              ctx,
              ctx.tenantId!,
              ctx.runtime.directory.extensions(ctx.tenantId!),
              `/api/v1/presencestatus/tenants/${ctx.tenantId}/extensions`,
            ),
        },
      },
    },
    {
      path: '/v1/presencestatus/tenants/:tenantId/parklocations',
      verbs: {
        GET: {
          cached: 'live',
          rules: WATCHERS,
          doc: statusDoc(
            'listParkLocationStatus',
            'The state of every park location of a tenant',
            ParkLocationStatusListSchema,
            Type.Object({ tenantId: TenantId }),
            true,
          ),
          handle: (ctx) =>
            parkList(
              ctx,
              ctx.tenantId!,
              ctx.runtime.directory.parkLocations(ctx.tenantId!),
              `/api/v1/presencestatus/tenants/${ctx.tenantId}/parklocations`,
            ),
        },
      },
    },
    {
      path: '/v1/presencestatus/parklocationstatus/:accountId',
      verbs: {
        GET: {
          cached: 'live',
          rules: WATCHERS,
          doc: statusDoc(
            'getParkLocationStatus',
            'The state of one park location',
            ParkLocationStatusSchema,
            Type.Object({
              accountId: Type.String({ description: 'The park location, `PL2@1001` (or `2@1001`).' }),
            }),
            false,
          ),
          handle: (ctx) => {
            const raw = ctx.params.accountId;
            const m = /^(?:PL)?(\d+)@(\d+)$/i.exec(raw);
            if (!m) {
              throw invalid(
                'INVALID_ACCOUNT',
                `"${raw}" is not a park location account (PL<n>@<tenantId>).`,
                [{ type: 'accountId', value: raw }],
              );
            }
            const tenantId = checkTenant(ctx.runtime, ctx.principal, m[2]);
            const n = Number(m[1]);
            const e =
              ctx.runtime.directory.parkLocations(tenantId).includes(n) && parkStatusOf(ctx, tenantId, n);
            if (!e)
              throw notFound('PARK_LOCATION_NOT_FOUND', `No park location ${raw}.`, [
                { type: 'accountId', value: raw },
              ]);
            return { entity: e };
          },
        },
      },
    },
    {
      path: '/v1/presencestatus/:webSocketId/subscriptionsets/:subscriptionSetId',
      place: ownTenant,
      verbs: {
        GET: {
          rules: WATCHERS,
          doc: statusDoc(
            'getPresenceStatusBySubscriptionSet',
            'The presence of every account a subscription set watches',
            PresenceStatusBySubscriptionSetSchema,
            SetParams,
            true,
            'Only the owner of the WebSocket reads it (others get 404).',
          ),
          handle: async (ctx) => {
            const set = await setOf(ctx);
            return presenceList(
              ctx,
              set.tenantId,
              expandAccounts(set.accounts.presence, set.tenantId, ctx.runtime.directory),
              `/api/v1/presencestatus/${set.webSocketId}/subscriptionsets/${set.id}`,
              { subscriptionSetId: set.id },
            );
          },
        },
      },
    },
    {
      path: '/v1/presencestatus/parklocationstatus/ws/:webSocketId/subscriptionsets/:subscriptionSetId',
      place: ownTenant,
      verbs: {
        GET: {
          rules: WATCHERS,
          doc: statusDoc(
            'getParkLocationStatusBySubscriptionSet',
            'The state of every park location a subscription set watches',
            ParkLocationStatusBySubscriptionSetSchema,
            SetParams,
            true,
            'Only the owner of the WebSocket reads it (others get 404).',
          ),
          handle: async (ctx) => {
            const set = await setOf(ctx);
            const numbers =
              set.parkScope === 'all'
                ? ctx.runtime.directory.parkLocations(set.tenantId)
                : [...set.accounts.park].map((a) => Number(/^PL(\d+)@/.exec(a)![1]));
            return parkList(
              ctx,
              set.tenantId,
              numbers,
              `/api/v1/presencestatus/parklocationstatus/ws/${set.webSocketId}/subscriptionsets/${set.id}`,
              { subscriptionSetId: set.id, scope: set.parkScope },
            );
          },
        },
      },
    },
  ];
}
