import { ENUMS } from '../enums/enum-values.js';
import { URI_DICTIONARY } from './uri-dictionary-table.js';
import { V1_ROOT } from './v1-root-table.js';

/** The documents served at the curies addresses: one per relation the API uses. */
export interface RelationDoc {
  description: string;
  template?: string;
}

const docs = new Map<string, RelationDoc>([
  [
    'createWebsocket',
    { description: 'Open the event WebSocket (HTTP Basic on the upgrade).', template: '/api/ws' },
  ],
  ['v1', { description: 'The v1 root of the API.', template: '/api/v1' }],
  ['subscriptionSets', { description: 'The subscription sets of a WebSocket.' }],
  ['callEventSubscriptions', { description: 'Accounts whose call events a subscription set receives.' }],
  [
    'presenceEventSubscriptions',
    { description: 'Accounts whose presence events a subscription set receives.' },
  ],
  [
    'parkLocationEventSubscriptions',
    { description: 'Park locations whose events a subscription set receives.' },
  ],
  [
    'emergencyCallAlertEventSubscriptions',
    { description: 'Whether a subscription set receives emergency call alerts.' },
  ],
  [
    'presenceStatusBySubscriptionSet',
    { description: 'Presence of every account a subscription set watches.' },
  ],
  [
    'parkLocationStatusBySubscriptionSet',
    { description: 'Status of every park location a subscription set watches.' },
  ],
  [
    'callRequest',
    {
      description: 'The call requests a Call accepts (enum callRequest).',
      template: '/api/v1/enums/callrequest',
    },
  ],
  [
    'deviceIdType',
    {
      description: 'Device id types for makeCall (enum deviceIdType).',
      template: '/api/v1/enums/deviceidtype',
    },
  ],
  [
    'deviceState',
    { description: 'Registration state of one device.', template: '/api/v1/devicestates/{deviceId}' },
  ],
  [
    'extension',
    {
      description: 'One extension of a tenant.',
      template: '/api/v1/tenants/{tenantId}/extensions/{extension}',
    },
  ],
  ['call', { description: 'One party’s leg of a call.', template: '/api/v1/calls/{callObserverId}' }],
  ['enum', { description: 'One enum of the API.', template: '/api/v1/enums/{enumName}' }],
  [
    'webhookDeliveries',
    {
      description: 'The delivery log of a webhook: each delivery and its attempts.',
      template: '/api/v1/webhooks/{webhookId}/deliveries',
    },
  ],
  [
    'redeliver',
    {
      description: 'Send a logged webhook delivery again (POST).',
      template: '/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    },
  ],
]);
for (const row of V1_ROOT)
  docs.set(row.rel, { description: `v1 root relation ${row.rel}.`, template: row.template });
for (const row of URI_DICTIONARY) {
  if (!docs.has(row.name))
    docs.set(row.name, { description: `URI template ${row.name}.`, template: row.template });
}
for (const name of Object.keys(ENUMS)) {
  if (!docs.has(name))
    docs.set(name, { description: `Enum ${name}.`, template: `/api/v1/enums/${name.toLowerCase()}` });
}

export const RELATION_DOCS: ReadonlyMap<string, RelationDoc> = docs;
