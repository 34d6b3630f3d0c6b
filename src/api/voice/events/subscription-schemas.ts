import { type Static, Type } from '@sinclair/typebox';
import { halList, halObject } from '../hal/hal-schemas.js';

const SubscriptionSetId = Type.String({ format: 'uuid', description: 'The subscription set’s id.' });

export const SubscriptionSetSchema = halObject(
  {
    subscriptionSetId: SubscriptionSetId,
    tenantId: Type.Integer({ description: 'The tenant whose events the set selects.' }),
  },
  {
    links: [
      'self',
      'v1:callEventSubscriptions',
      'v1:emergencyCallAlertEventSubscriptions',
      'v1:presenceEventSubscriptions',
      'v1:presenceStatusBySubscriptionSet',
      'v1:parkLocationEventSubscriptions',
      'v1:parkLocationStatusBySubscriptionSet',
    ],
    closedLinks: true,
  },
  { $id: 'SubscriptionSet', description: 'A selection of events delivered on one WebSocket.' },
);
export type SubscriptionSet = Static<typeof SubscriptionSetSchema>;

export const SubscriptionSetListSchema = halList('subscriptionSets', SubscriptionSetSchema, {
  closedLinks: true,
  $id: 'SubscriptionSetList',
});
export type SubscriptionSetList = Static<typeof SubscriptionSetListSchema>;

/** One kind of event account (call, presence, park location): its element and list schemas. */
function eventAccountSchemas(name: string, rel: string, description: string, listProps = {}) {
  const item = halObject(
    { accountId: Type.String({ description }) },
    { links: ['self', rel], closedLinks: true },
    { $id: `${name}EventAccount` },
  );
  const list = halList('eventAccount', item, {
    props: listProps,
    links: ['self', rel],
    closedLinks: true,
    $id: `${name}EventAccountList`,
  });
  return { item, list };
}

export const CallEventAccounts = eventAccountSchemas(
  'Call',
  'v1:extensions',
  'An extension (`101@1001`) or a group token (`ALL`, `ALL_ACD_EXTENSIONS`, …).',
);
export const PresenceEventAccounts = eventAccountSchemas(
  'Presence',
  'v1:presenceStatusByExtension',
  'A user or location (`101@1001`) or a group token (`ALL_USERS@1001`, …).',
);

export const ParkScopeSchema = Type.Union([Type.Literal('all'), Type.Literal('none'), Type.Literal('set')], {
  $id: 'ParkScope',
  description: '`all`: every park location of the tenant; `none`: no park events; `set`: the listed ones.',
});

export const ParkLocationEventAccounts = eventAccountSchemas(
  'ParkLocation',
  'v1:parkLocationStatus',
  'A park location, `PL<n>@<tenantId>`.',
  { scope: ParkScopeSchema },
);

export type EventAccount = Static<typeof CallEventAccounts.item>;

const AccountList = (what: string) =>
  Type.Array(Type.String(), {
    description: `The ${what} to watch; replaces the whole list ([] empties it).`,
  });

export const EventAccountsBodySchema = Type.Object(
  { eventAccounts: AccountList('accounts') },
  { $id: 'EventAccountsRequest' },
);
export type EventAccountsBody = Static<typeof EventAccountsBodySchema>;

export const ParkLocationEventAccountsBodySchema = Type.Object(
  {
    scope: ParkScopeSchema,
    eventAccounts: Type.Optional(AccountList('park locations (`PL2@1001`); required when scope is `set`')),
  },
  { $id: 'ParkLocationEventAccountsRequest' },
);
export type ParkLocationEventAccountsBody = Static<typeof ParkLocationEventAccountsBodySchema>;

const AllSites = Type.Boolean({
  description:
    '`true`: every emergency call of the tenant; `false`: calls from the set owner’s own site ' +
    '(400 for a requester without a site).',
});

export const EmergencyCallAlertSchema = halObject(
  { allSites: AllSites },
  { closedLinks: true },
  {
    $id: 'EmergencyCallAlertSubscription',
  },
);
export type EmergencyCallAlert = Static<typeof EmergencyCallAlertSchema>;

export const EmergencyCallAlertBodySchema = Type.Object(
  { allSites: AllSites },
  { $id: 'EmergencyCallAlertRequest' },
);
export type EmergencyCallAlertBody = Static<typeof EmergencyCallAlertBodySchema>;
