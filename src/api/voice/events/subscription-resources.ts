import { parseAccountId } from '../../../core/accounts.js';
import { invalid, notFound } from '../../../core/errors.js';
import { uuid } from '../../../core/ids.js';
import type { AccessRule, Principal } from '../../../core/permissions.js';
import { fillTemplate, link } from '../hal/links.js';
import type { Entity, Links } from '../hal/model.js';
import { type Ctx, listEntity, type ResourceDef } from '../hal/resource.js';
import { checkAccount } from './account-rules.js';
import type { AccountKind, ParkScope, SubscriptionSet } from './subscriptions.js';
import type { VoiceSocket, VoiceSockets } from './voice-sockets.js';

const WATCHERS: AccessRule[] = ['ST:CC', 'TA', 'U'];
const EMERGENCY: AccessRule[] = ['ST:CC', 'TA'];

const SETS = '/v1/subscriptions/ws/:webSocketId/subscriptionsets';
const SET = `${SETS}/:subscriptionSetId`;

const setsHref = (ws: string) => `/api/v1/subscriptions/ws/${ws}/subscriptionsets`;
const setHref = (s: SubscriptionSet) => `${setsHref(s.webSocketId)}/${s.id}`;

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
  const reindex = (ctx: Ctx, set: SubscriptionSet) => {
    const site = set.owner.ext
      ? ctx.runtime.directory.extension(set.tenantId, set.owner.ext)?.siteId
      : undefined;
    sockets.index.update(set, site);
  };

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

  const eventAccountsOf = (body: unknown, required: boolean): string[] | undefined => {
    const list = (body as { eventAccounts?: unknown } | null)?.eventAccounts;
    if (list === undefined || list === null) {
      if (required)
        throw invalid('MISSING_FIELD', 'eventAccounts is required.', [
          { type: 'field', value: 'eventAccounts' },
        ]);
      return undefined;
    }
    if (!Array.isArray(list) || list.some((a) => typeof a !== 'string')) {
      throw invalid('INVALID_FIELD', 'eventAccounts must be an array of account ids.', [
        { type: 'field', value: 'eventAccounts' },
      ]);
    }
    return list as string[];
  };

  const accountResources = (kind: AccountKind): ResourceDef[] => [
    {
      path: `${SET}/${KIND_PATH[kind]}`,
      verbs: {
        GET: { rules: WATCHERS, handle: (ctx) => ({ entity: accountList(ctx, setOf(ctx), kind) }) },
        PUT: {
          rules: WATCHERS,
          handle: (ctx) => {
            const set = setOf(ctx);
            let scope: ParkScope = 'set';
            if (kind === 'park') {
              const raw = (ctx.body as { scope?: unknown } | null)?.scope;
              if (raw !== 'all' && raw !== 'none' && raw !== 'set') {
                throw invalid('INVALID_FIELD', 'scope must be all, none or set.', [
                  { type: 'field', value: 'scope' },
                ]);
              }
              scope = raw;
            }
            const raw = scope === 'set' ? (eventAccountsOf(ctx.body, true) ?? []) : [];
            const checked = raw.map((a) =>
              checkAccount(kind, a, set.tenantId, ctx.principal, ctx.runtime.directory),
            );
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
          handle: (ctx) => {
            const set = setOf(ctx);
            const a = checkAccount(
              kind,
              ctx.params.accountId,
              set.tenantId,
              ctx.principal,
              ctx.runtime.directory,
            );
            set.accounts[kind].add(a);
            if (kind === 'park' && set.parkScope === 'none') set.parkScope = 'set';
            reindex(ctx, set);
            return { entity: accountEntity(set, kind, a, ctx.principal) };
          },
        },
        DELETE: {
          rules: WATCHERS,
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
          handle: (ctx) => {
            const socket = socketOf(ctx);
            const set: SubscriptionSet = {
              id: uuid(),
              webSocketId: socket.id,
              tenantId: ctx.principal.tenantId!,
              owner: ctx.principal,
              accounts: { call: new Set(), presence: new Set(), park: new Set() },
              parkScope: 'none',
              deliver: (frame) => {
                socket.slot.touch();
                socket.ws.send(frame);
              },
            };
            socket.sets.set(set.id, set);
            // DESIGN §3.6: 200 (as the spec's sample shows) with a Location header.
            return { entity: setEntity(set), status: 200, location: setHref(set) };
          },
        },
      },
    },
    { path: SET, verbs: { GET: { rules: WATCHERS, handle: (ctx) => ({ entity: setEntity(setOf(ctx)) }) } } },
    ...accountResources('call'),
    ...accountResources('presence'),
    ...accountResources('park'),
    {
      path: `${SET}/alertevent/emergencycall`,
      verbs: {
        GET: {
          rules: EMERGENCY,
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
          handle: (ctx) => {
            const set = setOf(ctx);
            const allSites = (ctx.body as { allSites?: unknown } | null)?.allSites;
            if (typeof allSites !== 'boolean') {
              throw invalid('INVALID_FIELD', 'allSites (boolean) is required.', [
                { type: 'field', value: 'allSites' },
              ]);
            }
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
