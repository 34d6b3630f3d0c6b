import type { AccessRule } from '../../../core/permissions.js';

/** The spec's URI template dictionary, as data, with its visibility rules. */
export interface DictionaryRow {
  name: string;
  template: string;
  rules: readonly AccessRule[];
}

const CALLS = ['ST:CC', 'TA', 'U'];
const SUBS = '/api/v1/subscriptions/ws/{webSocketId}/subscriptionsets/{subscriptionSetId}';
const TENANT_CONFIG = ['UT:TBAM', 'ST:TBAM', 'TA'];
const TENANT_CONFIG_U = [...TENANT_CONFIG, 'U'];

// One row per entry of the spec's dictionary (as v1-root-table.ts): rows share a shape, not logic.
export const URI_DICTIONARY: readonly DictionaryRow[] = [
  { name: 'call', template: '/api/v1/calls/{callObserverId}', rules: CALLS },
  { name: 'deviceState', template: '/api/v1/devicestates/{deviceId}', rules: ['ST:CC'] },
  { name: 'subscriptionSets', template: SUBS, rules: CALLS },
  { name: 'callEventAccount', template: `${SUBS}/calleventaccounts/{accountId}`, rules: CALLS },
  { name: 'presenceEventAccount', template: `${SUBS}/presenceeventaccounts/{accountId}`, rules: CALLS },
  {
    name: 'parkLocationEventAccount',
    template: `${SUBS}/parklocationeventaccounts/{accountId}`,
    rules: CALLS,
  },
  {
    name: 'presenceStatusByExtension',
    template: '/api/v1/presencestatus/tenants/{tenantId}/extensions/{extension}',
    rules: CALLS,
  },
  {
    name: 'parkLocationStatus',
    template: '/api/v1/presencestatus/parklocationstatus/{accountId}',
    rules: CALLS,
  },
  { name: 'announcement', template: '/api/v1/announcements/{announcementId}', rules: ['UT:TBAM'] },
  { name: 'priGroup', template: '/api/v1/prigroups/{priGroupId}', rules: ['UT:SM'] },
  { name: 'route', template: '/api/v1/routes/{routeId}', rules: ['UT:SM'] },
  { name: 'dialPlan', template: '/api/v1/dialplans/{dialPlanId}', rules: ['UT:SM'] },
  { name: 'zone', template: '/api/v1/zones/{zoneId}', rules: ['UT:SM', 'UT:TBAM', 'UT:SBAM'] },
  { name: 'codecSet', template: '/api/v1/codecsets/{codecSetId}', rules: ['UT:SM', 'UT:TBAM'] },
  { name: 'gateway', template: '/api/v1/gateways/{gatewayId}', rules: ['UT:EM'] },
  { name: 'crPlatform', template: '/api/v1/crplatforms/{crPlatformId}', rules: ['UT:SM', 'UT:TBAM'] },
  { name: 'brandDetail', template: '/api/v1/branddetails/{brandDetailId}', rules: ['UT:SM', 'UT:TBAM'] },
  { name: 'carrier', template: '/api/v1/carriers/{carrierId}', rules: ['UT:SM'] },
  { name: 'mediaServer', template: '/api/v1/mediaservers/{mediaServerId}', rules: ['UT:EM'] },
  { name: 'enterprise', template: '/api/v1/enterprises/{enterpriseId}', rules: ['UT:TBAM'] },
  {
    name: 'conferenceServer',
    template: '/api/v1/conferenceservers/{conferenceServerId}',
    rules: ['UT:SM', 'UT:TBAM'],
  },
  {
    name: 'rtpProxyServer',
    template: '/api/v1/rtpproxyservers/{rtpProxyServerId}',
    rules: ['UT:SM', 'UT:TBAM'],
  },
  { name: 'tenant', template: '/api/v1/tenants/{tenantId}', rules: ['UT:TBAM', 'ST:TBAM', 'ST:CC', 'TA'] },
  { name: 'staticSite', template: '/api/v1/tenants/{tenantId}/staticsites/{siteId}', rules: TENANT_CONFIG },
  { name: 'dynamicSite', template: '/api/v1/tenants/{tenantId}/dynamicsites/{siteId}', rules: TENANT_CONFIG },
  { name: 'did', template: '/api/v1/tenants/{tenantId}/dids/{didId}', rules: TENANT_CONFIG },
  {
    name: 'businessHoursProfile',
    template: '/api/v1/tenants/{tenantId}/businesshours/{businessHourId}',
    rules: TENANT_CONFIG,
  },
  {
    name: 'callGroup',
    template: '/api/v1/tenants/{tenantId}/callinggroups/{callGroupId}',
    rules: TENANT_CONFIG,
  },
  {
    name: 'keyProfile',
    template: '/api/v1/tenants/{tenantId}/keyprofiles/{keyProfileId}',
    rules: TENANT_CONFIG,
  },
  {
    name: 'callPermissionProfile',
    template: '/api/v1/tenants/{tenantId}/callpermissionprofiles/{callPermissionProfileId}',
    rules: TENANT_CONFIG,
  },
  {
    name: 'extension',
    template: '/api/v1/tenants/{tenantId}/extensions/{extension}',
    rules: [...TENANT_CONFIG_U, 'ST:CC'],
  },
  { name: 'user', template: '/api/v1/tenants/{tenantId}/users/{extension}', rules: TENANT_CONFIG_U },
  { name: 'location', template: '/api/v1/tenants/{tenantId}/locations/{extension}', rules: TENANT_CONFIG_U },
  { name: 'acd', template: '/api/v1/tenants/{tenantId}/acds/{acdId}', rules: TENANT_CONFIG },
  {
    name: 'autoAttendant',
    template: '/api/v1/tenants/{tenantId}/autoattendants/{autoAttendantId}',
    rules: TENANT_CONFIG,
  },
  { name: 'phone', template: '/api/v1/tenants/{tenantId}/phones/{phoneId}', rules: TENANT_CONFIG_U },
  {
    name: 'externalContact',
    template: '/api/v1/tenants/{tenantId}/externalcontacts/{externalContactId}',
    rules: ['TA', 'U'],
  },
  { name: 'callpServer', template: '/api/v1/callpservers/{callpId}', rules: ['UT:EM', 'UT:TBAM'] },
  {
    name: 'serviceProvider',
    template: '/api/v1/serviceproviders/{serviceProviderId}',
    rules: ['UT:SM', 'UT:TBAM'],
  },
  { name: 'voicemailServer', template: '/api/v1/voicemailservers/{voicemailServerId}', rules: ['UT:EM'] },
];
