import { type Static, Type } from '@sinclair/typebox';
import { ParkScopeSchema } from '../events/subscription-schemas.js';
import { halList, halObject } from '../hal/hal-schemas.js';

export const PresenceStatusSchema = halObject(
  {
    accountId: Type.String({ description: 'The user or location, `101@1001`.' }),
    callActivity: Type.Union([Type.Literal('idle'), Type.Literal('busy')]),
    reachability: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
    acd: Type.Union([Type.Literal('signedInAcd'), Type.Literal('signedOutAcd')]),
    dnd: Type.Union([Type.Literal('dndOn'), Type.Literal('dndOff')]),
    groups: Type.Array(Type.String(), {
      description: 'The accountIds of the groups the account belongs to.',
    }),
  },
  { closedLinks: true },
  { $id: 'PresenceStatus', description: 'The presence of one user or location.' },
);
export type PresenceStatus = Static<typeof PresenceStatusSchema>;

export const ParkLocationStatusSchema = halObject(
  {
    accountId: Type.String({ description: 'The park location, `PL2@1001`.' }),
    state: Type.Union([Type.Literal('idle'), Type.Literal('busy')]),
    parkedParty: Type.Optional(Type.String({ description: 'Who is parked (while busy).' })),
    parkedPartyName: Type.Optional(Type.String()),
    callId: Type.Optional(Type.String({ description: 'The parked leg’s callObserverId.' })),
  },
  { closedLinks: true },
  { $id: 'ParkLocationStatus', description: 'The state of one park location.' },
);
export type ParkLocationStatus = Static<typeof ParkLocationStatusSchema>;

const SubscriptionSetId = Type.String({ description: 'The subscription set the list is for.' });

export const PresenceStatusListSchema = halList('presenceStatus', PresenceStatusSchema, {
  closedLinks: true,
  $id: 'PresenceStatusList',
  description: 'The presence of every user and location of the tenant.',
});
export type PresenceStatusList = Static<typeof PresenceStatusListSchema>;

export const PresenceStatusBySubscriptionSetSchema = halList('presenceStatus', PresenceStatusSchema, {
  props: { subscriptionSetId: SubscriptionSetId },
  closedLinks: true,
  $id: 'PresenceStatusBySubscriptionSet',
  description: 'The presence of every user and location the set watches (group tokens expanded).',
});
export type PresenceStatusBySubscriptionSet = Static<typeof PresenceStatusBySubscriptionSetSchema>;

// The list schemas here and in directory-schemas.ts share halList's shape; each has its own items.
export const ParkLocationStatusListSchema = halList('parkLocationStatus', ParkLocationStatusSchema, {
  closedLinks: true,
  $id: 'ParkLocationStatusList',
  description: 'The state of every park location of the tenant.',
});
export type ParkLocationStatusList = Static<typeof ParkLocationStatusListSchema>;

export const ParkLocationStatusBySubscriptionSetSchema = halList(
  'parkLocationStatus',
  ParkLocationStatusSchema,
  {
    props: {
      subscriptionSetId: SubscriptionSetId,
      scope: ParkScopeSchema,
    },
    closedLinks: true,
    $id: 'ParkLocationStatusBySubscriptionSet',
    description: 'The state of every park location the set watches.',
  },
);
export type ParkLocationStatusBySubscriptionSet = Static<typeof ParkLocationStatusBySubscriptionSetSchema>;
