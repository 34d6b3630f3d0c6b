import type { AccessRule, Principal } from '../../../core/permissions.js';

/**
 * The spec's v1 root table, as data: relation, template, who sees it. "Telco(X)" is an unscoped
 * telco user holding X (`UT:X`); ST(CC) a scoped telco with CallControl; TA tenant admins; U
 * non-admin users and locations.
 */
export interface RootRow {
  rel: string;
  template: string;
  rules: readonly AccessRule[];
  /** Narrower conditions the table states in words. */
  only?: (p: Principal) => boolean;
}

const TBAM = ['UT:TBAM'];
const TBAM_SM = ['UT:TBAM', 'UT:SM'];
const SM = ['UT:SM'];
const EM = ['UT:EM'];
const CC_TA_U = ['ST:CC', 'TA', 'U'];
const CC_TA = ['ST:CC', 'TA'];

// One row per row of the spec's table (as uri-dictionary-table.ts): rows share a shape, not logic.
export const V1_ROOT: readonly RootRow[] = [
  { rel: 'tenants', template: '/api/v1/tenants{?expand,filter}', rules: TBAM },
  { rel: 'systemAnnouncements', template: '/api/v1/systemannouncements{?expand,filter}', rules: TBAM },
  { rel: 'defaultSystemAnnouncement', template: '/api/v1/defaultsystemannouncement{?expand}', rules: TBAM },
  {
    rel: 'customAnnouncementFiles',
    template: '/api/v1/customannouncementfiles/{langCode}{?filter}',
    rules: TBAM,
  },
  {
    rel: 'defaultAnnouncementFiles',
    template: '/api/v1/defaultannouncementfiles/{langCode}{?filter}',
    rules: TBAM,
  },
  { rel: 'languages', template: '/api/v1/languages{?filter}', rules: [...TBAM_SM, 'TA', 'U'] },
  { rel: 'aaLanguages', template: '/api/v1/aalanguages{?filter}', rules: [...TBAM_SM, 'TA'] },
  { rel: 'vmLanguages', template: '/api/v1/vmlanguages{?filter}', rules: [...TBAM_SM, 'TA', 'U'] },
  { rel: 'crPlatforms', template: '/api/v1/crplatforms{?expand,filter}', rules: TBAM_SM },
  { rel: 'priGroups', template: '/api/v1/prigroups{?expand,filter}', rules: SM },
  { rel: 'routes', template: '/api/v1/routes{?expand,filter}', rules: SM },
  { rel: 'dialPlans', template: '/api/v1/dialplans{?expand,filter}', rules: SM },
  { rel: 'enterprises', template: '/api/v1/enterprises{?expand,filter}', rules: TBAM },
  { rel: 'zones', template: '/api/v1/zones{?expand,filter}', rules: ['UT:SM', 'UT:TBAM', 'UT:SBAM'] },
  { rel: 'codecSets', template: '/api/v1/codecsets{?expand,filter}', rules: TBAM_SM },
  {
    rel: 'defaultSystemCodecSet',
    template: '/api/v1/defaultcodecset{?expand}',
    rules: ['UT:SM', 'UT:TBAM', 'UT:SBAM'],
  },
  { rel: 'brandDetails', template: '/api/v1/branddetails{?filter}', rules: TBAM_SM },
  { rel: 'standardDhcpOptions', template: '/api/v1/standarddhcpoptions{?expand,filter}', rules: SM },
  { rel: 'customDhcpOptions', template: '/api/v1/customdhcpoptions{?filter}', rules: SM },
  {
    rel: 'tenantPhoneModels',
    template: '/api/v1/tenants/{tenantId}/phonemodels{?expand,filter}',
    rules: ['U'],
  },
  { rel: 'macAddresses', template: '/api/v1/macaddresses?macAddress={macAddress}', rules: TBAM },
  { rel: 'serviceProviders', template: '/api/v1/serviceproviders{?expand,filter}', rules: TBAM_SM },
  { rel: 'voicemailServers', template: '/api/v1/voicemailservers', rules: EM },
  { rel: 'carriers', template: '/api/v1/carriers{?expand,filter}', rules: SM },
  { rel: 'appServers', template: '/api/v1/appservers{?expand,filter}', rules: ['UT:EM', 'UT:TBAM'] },
  { rel: 'gateways', template: '/api/v1/gateways{?expand,filter}', rules: EM },
  { rel: 'mediaServers', template: '/api/v1/mediaservers{?expand,filter}', rules: EM },
  { rel: 'conferenceServers', template: '/api/v1/conferenceservers{?expand,filter}', rules: TBAM_SM },
  { rel: 'rtpProxyServers', template: '/api/v1/rtpproxyservers{?expand,filter}', rules: TBAM_SM },
  { rel: 'phoneAccessEntries', template: '/api/v1/phoneaccessentries{?expand,filter}', rules: SM },
  { rel: 'callpServers', template: '/api/v1/callpservers{?expand}', rules: ['UT:EM', 'UT:TBAM'] },
  { rel: 'licensing', template: '/api/v1/licensing', rules: TBAM_SM },
  { rel: 'pinNotificationSettings', template: '/api/v1/pinnotificationsettings', rules: TBAM_SM },
  { rel: 'systemProperties', template: '/api/v1/systemproperties', rules: SM },
  { rel: 'runningTasks', template: '/api/v1/runningtasks{?expand,filter}', rules: TBAM },
  { rel: 'activeCalls', template: '/api/v1/calls', rules: CC_TA_U },
  { rel: 'deviceStates', template: '/api/v1/devicestates', rules: ['ST:TBAM', 'UT:TBAM'] },
  {
    rel: 'eventSubscriptionSets',
    template: '/api/v1/subscriptions/ws/{webSocketId}/subscriptionsets',
    rules: CC_TA_U,
  },
  // Beyond the spec: signed webhooks (docs/events.md).
  { rel: 'webhooks', template: '/api/v1/webhooks{?expand,filter}', rules: CC_TA_U },
  {
    rel: 'extensions',
    template: '/api/v1/tenants/{tenantId}/extensions{?expand,filter,extensionType,agent}',
    rules: CC_TA_U,
  },
  {
    rel: 'location',
    template: '/api/v1/tenants/{tenantId}/locations/{extension}',
    rules: ['TA', 'U'],
    // "only for a requester that belongs to a location": a location extension.
    only: (p) => p.authority === 'location',
  },
  {
    rel: 'presenceStatusByExtension',
    template: '/api/v1/presencestatus/tenants/{tenantId}/extensions/{extension}',
    rules: CC_TA_U,
  },
  {
    rel: 'presenceStatusTenantAccounts',
    template: '/api/v1/presencestatus/tenants/{tenantId}/extensions',
    rules: CC_TA,
  },
  {
    rel: 'presenceStatusTenantParkLocations',
    template: '/api/v1/presencestatus/tenants/{tenantId}/parklocations',
    rules: CC_TA_U,
  },
  {
    rel: 'parkLocationStatus',
    template: '/api/v1/presencestatus/parklocationstatus/{accountId}',
    rules: CC_TA_U,
  },
  { rel: 'sendMessageUsers', template: '/api/v1/sendmessage/tenants/{tenantId}/alertusers', rules: CC_TA },
  { rel: 'sendMessageSites', template: '/api/v1/sendmessage/tenants/{tenantId}/alertsites', rules: CC_TA },
  { rel: 'tenant', template: '/api/v1/tenants/{tenantId}', rules: CC_TA },
  {
    rel: 'user',
    template: '/api/v1/tenants/{tenantId}/users/{extension}',
    rules: ['TA', 'U'],
    only: (p) => p.authority === 'tenantAdmin' || p.authority === 'user',
  },
  {
    rel: 'userPhones',
    template: '/api/v1/tenants/{tenantId}/users/{extension}/phones{?expand,filter}',
    rules: ['TA', 'U'],
  },
  {
    rel: 'externalContacts',
    template: '/api/v1/tenants/{tenantId}/externalcontacts{?expand,filter}',
    rules: ['TA', 'U'],
  },
  { rel: 'uriDictionary', template: '/api/v1/uridictionary', rules: ['UT:*', 'ST:CC', 'TA'] },
];
