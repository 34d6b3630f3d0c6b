import { parseAccountId } from '../../../core/accounts.js';
import { invalid, notFound } from '../../../core/errors.js';
import { uuid } from '../../../core/ids.js';
import type { AccessRule, Principal } from '../../../core/permissions.js';
import { fillTemplate, link } from '../hal/links.js';
import type { Entity, Links } from '../hal/model.js';
import { type Ctx, type KeptBy, listEntity, locationHeader, type ResourceDef } from '../hal/resource.js';
import { Type } from '@sinclair/typebox';
import { atMost, LIMITS } from '../../schema/bounds.js';
import type { ResponseDoc } from '../../schema/openapi.js';
import { halQuery } from '../hal/hal-schemas.js';
import { checkAccount, checkAccounts } from './account-rules.js';
import {
  CallEventAccounts,
  EmergencyCallAlertBodySchema,
  type EmergencyCallAlertBody,
  EmergencyCallAlertSchema,
  type EventAccountsBody,
  EventAccountsBodySchema,
  ParkLocationEventAccounts,
  type ParkLocationEventAccountsBody,
  ParkLocationEventAccountsBodySchema,
  PresenceEventAccounts,
  SubscriptionSetListSchema,
  SubscriptionSetSchema,
} from './subscription-schemas.js';
import type { AccountKind, ParkScope, SubscriptionSet } from './subscriptions.js';
import type { VoiceSocket, VoiceSockets } from './voice-sockets.js';

const WATCHERS: AccessRule[] = ['ST:CC', 'TA', 'U'];
const EMERGENCY: AccessRule[] = ['ST:CC', 'TA'];

const SETS = '/v1/subscriptions/ws/:webSocketId/subscriptionsets';
const SET = `${SETS}/:subscriptionSetId`;

const setsHref = (ws: string) => `/api/v1/subscriptions/ws/${ws}/subscriptionsets`;
const setHref = (s: SubscriptionSet) => `${setsHref(s.webSocketId)}/${s.id}`;

const TAGS = ['events'];
const WebSocketId = Type.String({ description: 'The id the WebSocket sent as its first message.' });
const SetsParams = Type.Object({ webSocketId: WebSocketId });
const SetParams = Type.Object({
  webSocketId: WebSocketId,
  subscriptionSetId: Type.String({ description: 'The subscription set’s id.' }),
});
const AccountParams = Type.Object({
  ...SetParams.properties,
  accountId: Type.String({ description: 'The account (`101@1001`, `PL2@1001`, or a group token).' }),
});
const ok = (description: string, schema?: ResponseDoc['schema']): Record<string, ResponseDoc> => ({
  '200': schema ? { description, schema } : { description },
});

/** Per kind of event account: its schemas and the words of its operations. */
const KIND_DOC: Record<AccountKind, { schemas: typeof CallEventAccounts; id: string; what: string }> = {
  call: {
    schemas: CallEventAccounts,
    id: 'CallEventAccount',
    what: 'accounts whose call events the set receives',
  },
  presence: {
    schemas: PresenceEventAccounts,
    id: 'PresenceEventAccount',
    what: 'accounts whose presence events the set receives',
  },
  park: {
    schemas: ParkLocationEventAccounts,
    id: 'ParkLocationEventAccount',
    what: 'park locations whose events the set receives',
  },
};

const KIND_PATH: Record<AccountKind, string> = {
  call: 'calleventaccounts',
  presence: 'presenceeventaccounts',
  park: 'parklocationeventaccounts',
};

export function setEntity(s: SubscriptionSet): Entity {
  const self = setHref(s);
  return {
    props: { subscriptionSetId: s.id, tenantId: s.tenantId },
    links: {
      self: link(self),
      'v1:callEventSubscriptions': link(`${self}/calleventaccounts`),
      'v1:emergencyCallAlertEventSubscriptions': link(`${self}/alertevent/emergencycall`),
      'v1:presenceEventSubscriptions': link(`${self}/presenceeventaccounts`),
      'v1:presenceStatusBySubscriptionSet': link(
        `/api/v1/presencestatus/${s.webSocketId}/subscriptionsets/${s.id}`,
      ),
      'v1:parkLocationEventSubscriptions': link(`${self}/parklocationeventaccounts`),
      'v1:parkLocationStatusBySubscriptionSet': link(
        `/api/v1/presencestatus/parklocationstatus/ws/${s.webSocketId}/subscriptionsets/${s.id}`,
      ),
    },
  };
}

const requiredList = (list: string[] | undefined, message: string): string[] => {
  if (list === undefined)
    throw invalid('MISSING_FIELD', message, [{ type: 'field', value: 'eventAccounts' }]);
  return list;
};

/** Subscription sets, their event accounts and the emergency alert subscription. */
export function subscriptionResources(sockets: VoiceSockets): ResourceDef[] {
  const socketOf = (ctx: Ctx): VoiceSocket => {
    const s = sockets.ownedBy(ctx.params.webSocketId, ctx.principal);
    if (!s) {
      throw notFound('WEBSOCKET_NOT_FOUND', `No open WebSocket ${ctx.params.webSocketId} of this user.`, [
        { type: 'webSocketId', value: ctx.params.webSocketId },
      ]);
    }
    return s;
  };
  const setOf = (ctx: Ctx): SubscriptionSet => {
    const set = socketOf(ctx).sets.get(ctx.params.subscriptionSetId);
    if (!set) {
      throw notFound('SUBSCRIPTION_SET_NOT_FOUND', `No subscription set ${ctx.params.subscriptionSetId}.`, [
        { type: 'subscriptionSetId', value: ctx.params.subscriptionSetId },
      ]);
    }
    return set;
  };
  const reindex = (_ctx: Ctx, set: SubscriptionSet) => sockets.reindex(set);
  /** The reads are kept while no socket or set changed (and the directory, for park scope `all`). */
  const cached: KeptBy = { count: () => sockets.generation };

  const accountListLink = (kind: AccountKind, p: Principal): Links =>
    kind === 'call'
      ? {
          'v1:extensions': fillTemplate(
            '/api/v1/tenants/{tenantId}/extensions{?expand,filter,extensionType,agent}',
            p,
          ),
        }
      : kind === 'presence'
        ? {
            'v1:presenceStatusByExtension': fillTemplate(
              '/api/v1/presencestatus/tenants/{tenantId}/extensions/{extension}',
              p,
            ),
          }
        : {
            'v1:parkLocationStatus': fillTemplate('/api/v1/presencestatus/parklocationstatus/{accountId}', p),
          };

  /** An element's status link names the element's own account (a group token keeps the list's). */
  const accountLinks = (kind: AccountKind, accountId: string, p: Principal): Links => {
    if (kind === 'park') {
      return {
        'v1:parkLocationStatus': fillTemplate('/api/v1/presencestatus/parklocationstatus/{accountId}', p, {
          accountId,
        }),
      };
    }
    const ref = kind === 'presence' ? parseAccountId(accountId) : null;
    if (!ref) return accountListLink(kind, p);
    return {
      'v1:presenceStatusByExtension': fillTemplate(
        '/api/v1/presencestatus/tenants/{tenantId}/extensions/{extension}',
        p,
        { tenantId: String(ref.tenantId), extension: ref.ext },
      ),
    };
  };

  const accountEntity = (
    set: SubscriptionSet,
    kind: AccountKind,
    accountId: string,
    p: Principal,
  ): Entity => ({
    props: { accountId },
    links: {
      self: link(`${setHref(set)}/${KIND_PATH[kind]}/${encodeURIComponent(accountId)}`),
      ...accountLinks(kind, accountId, p),
    },
  });

  /** The accounts a set watches; park scope `all` includes every park location of the tenant. */
  const watched = (ctx: Ctx, set: SubscriptionSet, kind: AccountKind): string[] =>
    kind === 'park' && set.parkScope === 'all'
      ? ctx.runtime.directory.parkLocations(set.tenantId).map((n) => `PL${n}@${set.tenantId}`)
      : [...set.accounts[kind]];

  const accountList = (ctx: Ctx, set: SubscriptionSet, kind: AccountKind): Entity =>
    listEntity(ctx, {
      name: 'eventAccount',
      schema: { fields: { accountId: 'string' } },
      items: watched(ctx, set, kind).map((a) => accountEntity(set, kind, a, ctx.principal)),
      props: kind === 'park' ? { scope: set.parkScope } : {},
      links: { self: link(`${setHref(set)}/${KIND_PATH[kind]}`), ...accountListLink(kind, ctx.principal) },
    });

  const accountResources = (kind: AccountKind): ResourceDef[] => [
    {
      path: `${SET}/${KIND_PATH[kind]}`,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: `list${KIND_DOC[kind].id}s`,
            summary: `The ${KIND_DOC[kind].what}`,
            tags: TAGS,
            params: SetParams,
            query: halQuery('list'),
            responses: ok('The list.', KIND_DOC[kind].schemas.list),
          },
          handle: (ctx) => ({ entity: accountList(ctx, setOf(ctx), kind) }),
        },
        PUT: {
          rules: WATCHERS,
          catchUp: true,
          doc: {
            operationId: `replace${KIND_DOC[kind].id}s`,
            summary: `Replace the ${KIND_DOC[kind].what}`,
            description:
              kind === 'park'
                ? '`eventAccounts` is required when scope is `set` (400 MISSING_FIELD).'
                : 'Every account must be of the set’s tenant; a non-admin user may name only their own extension.',
            tags: TAGS,
            params: SetParams,
            body: kind === 'park' ? ParkLocationEventAccountsBodySchema : EventAccountsBodySchema,
            responses: ok('The updated list.', KIND_DOC[kind].schemas.list),
          },
          handle: (ctx) => {
            const set = setOf(ctx);
            let scope: ParkScope = 'set';
            let raw: string[];
            if (kind === 'park') {
              const body = ctx.body as ParkLocationEventAccountsBody;
              scope = body.scope;
              raw =
                scope === 'set'
                  ? requiredList(body.eventAccounts, 'eventAccounts is required when scope is set.')
                  : [];
            } else {
              raw = (ctx.body as EventAccountsBody).eventAccounts;
            }
            const checked = checkAccounts(kind, raw, set.tenantId, ctx.principal, ctx.runtime.directory);
            set.accounts[kind] = new Set(checked);
            if (kind === 'park') set.parkScope = scope === 'set' && checked.length === 0 ? 'none' : scope;
            reindex(ctx, set);
            return { entity: accountList(ctx, set, kind) };
          },
        },
      },
    },
    {
      path: `${SET}/${KIND_PATH[kind]}/:accountId`,
      verbs: {
        PUT: {
          rules: WATCHERS,
          catchUp: true,
          doc: {
            operationId: `add${KIND_DOC[kind].id}`,
            summary: `Add one of the ${KIND_DOC[kind].what}`,
            tags: TAGS,
            params: AccountParams,
            responses: ok('The account, now watched.', KIND_DOC[kind].schemas.item),
          },
          handle: (ctx) => {
            const set = setOf(ctx);
            const a = checkAccount(
              kind,
              ctx.params.accountId,
              set.tenantId,
              ctx.principal,
              ctx.runtime.directory,
            );
            if (!set.accounts[kind].has(a))
              atMost(set.accounts[kind].size, LIMITS.arrayItems, 'accounts in one set');
            set.accounts[kind].add(a);
            if (kind === 'park' && set.parkScope === 'none') set.parkScope = 'set';
            reindex(ctx, set);
            return { entity: accountEntity(set, kind, a, ctx.principal) };
          },
        },
        DELETE: {
          rules: WATCHERS,
          catchUp: true,
          doc: {
            operationId: `remove${KIND_DOC[kind].id}`,
            summary: `Remove one of the ${KIND_DOC[kind].what}`,
            description: 'Answers 200 also when the account was not watched.',
            tags: TAGS,
            params: AccountParams,
            responses: ok('Removed; empty body.'),
          },
          handle: (ctx) => {
            const set = setOf(ctx);
            const raw = ctx.params.accountId;
            if (kind === 'park' && set.parkScope === 'all') {
              // Removing one location from "all" leaves the others watched.
              set.accounts.park = new Set(watched(ctx, set, kind));
              set.parkScope = 'set';
            }
            const canonical = [...set.accounts[kind]].find((a) => a.toLowerCase() === raw.toLowerCase());
            if (canonical) set.accounts[kind].delete(canonical);
            if (kind === 'park' && set.accounts.park.size === 0 && set.parkScope === 'set')
              set.parkScope = 'none';
            reindex(ctx, set);
            return { empty: true };
          },
        },
      },
    },
  ];

  return [
    {
      path: SETS,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'listSubscriptionSets',
            summary: 'The subscription sets of a WebSocket',
            description: 'Only the user who opened the WebSocket sees it (others get 404).',
            tags: TAGS,
            params: SetsParams,
            query: halQuery('list'),
            responses: ok('The sets.', SubscriptionSetListSchema),
          },
          handle: (ctx) => {
            const socket = socketOf(ctx);
            return {
              entity: listEntity(ctx, {
                name: 'subscriptionSets',
                schema: { fields: { subscriptionSetId: 'string', tenantId: 'integer' } },
                items: [...socket.sets.values()].map(setEntity),
                links: { self: link(setsHref(socket.id)) },
              }),
            };
          },
        },
        POST: {
          rules: WATCHERS,
          doc: {
            operationId: 'createSubscriptionSet',
            summary: 'Create a subscription set on a WebSocket',
            description: 'No body is needed. Answers 200 (as the spec’s sample) with a Location header.',
            tags: TAGS,
            params: SetsParams,
            responses: {
              '200': {
                description: 'The new, empty set.',
                schema: SubscriptionSetSchema,
                headers: locationHeader('The new set’s address.'),
              },
            },
          },
          handle: (ctx) => {
            const socket = socketOf(ctx);
            atMost(socket.sets.size, LIMITS.subscriptionSetsPerSocket, 'subscription sets on one WebSocket');
            const set = sockets.newSet(socket, uuid(), ctx.principal.tenantId!);
            socket.sets.set(set.id, set);
            sockets.changed(socket.id);
            // docs/decisions.md §1.6: 200 (as the spec's sample shows) with a Location header.
            return { entity: setEntity(set), status: 200, location: setHref(set) };
          },
        },
      },
    },
    {
      path: SET,
      verbs: {
        GET: {
          rules: WATCHERS,
          cached,
          doc: {
            operationId: 'getSubscriptionSet',
            summary: 'One subscription set',
            tags: TAGS,
            params: SetParams,
            responses: ok('The set.', SubscriptionSetSchema),
          },
          handle: (ctx) => ({ entity: setEntity(setOf(ctx)) }),
        },
      },
    },
    ...accountResources('call'),
    ...accountResources('presence'),
    ...accountResources('park'),
    {
      path: `${SET}/alertevent/emergencycall`,
      verbs: {
        GET: {
          rules: EMERGENCY,
          cached,
          doc: {
            operationId: 'getEmergencyCallAlertSubscription',
            summary: 'Whether the set receives emergency call alerts, and from where',
            tags: TAGS,
            params: SetParams,
            responses: ok('The subscription.', EmergencyCallAlertSchema),
          },
          handle: (ctx) => {
            const set = setOf(ctx);
            return {
              entity: {
                props: { allSites: set.emergencyAllSites ?? false },
                links: { self: link(`${setHref(set)}/alertevent/emergencycall`) },
              },
            };
          },
        },
        PUT: {
          rules: EMERGENCY,
          catchUp: true,
          doc: {
            operationId: 'setEmergencyCallAlertSubscription',
            summary: 'Receive emergency call alerts: of every site, or of the owner’s own site',
            tags: TAGS,
            params: SetParams,
            body: EmergencyCallAlertBodySchema,
            responses: ok('The subscription.', EmergencyCallAlertSchema),
          },
          handle: (ctx) => {
            const set = setOf(ctx);
            const { allSites } = ctx.body as EmergencyCallAlertBody;
            const owner = set.owner.ext
              ? ctx.runtime.directory.extension(set.tenantId, set.owner.ext)
              : undefined;
            if (!allSites && !owner?.siteId) {
              // false watches the owner's own site; a scoped telco user has none, so it would watch nothing.
              throw invalid('INVALID_FIELD', 'allSites false needs a requester with a site; use true.', [
                { type: 'field', value: 'allSites' },
              ]);
            }
            set.emergencyAllSites = allSites;
            reindex(ctx, set);
            return {
              entity: {
                props: { allSites },
                links: { self: link(`${setHref(set)}/alertevent/emergencycall`) },
              },
            };
          },
        },
      },
    },
  ];
}
