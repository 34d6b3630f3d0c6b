import { notFound } from '../../../core/errors.js';
import type { Scope } from './backing.js';
import type { CollectionDef } from './collection.js';
import { jsonCollection, refsTo } from './define.js';
import { PATTERNS, f } from './fields.js';

/**
 * The system-level resources of the v1 root table: one row each. Readers are the root table's
 * authorities; writers the telco users among them. Item paths are the uridictionary's templates,
 * or `<list>/{id}` where the dictionary names none.
 */
const TBAM = ['UT:TBAM'];
const SM = ['UT:SM'];
const EM = ['UT:EM'];
const TBAM_SM = ['UT:TBAM', 'UT:SM'];
const SM_TBAM_SBAM = ['UT:SM', 'UT:TBAM', 'UT:SBAM'];
const EM_TBAM = ['UT:EM', 'UT:TBAM'];

const name = () => f.str({ required: true });
const host = () => f.str({ required: true, ...PATTERNS.host });
const port = (dflt: number) => f.int({ min: 1, max: 65535, default: dflt });
const enabled = () => f.bool({ default: true });
const ref = () => f.str();

const refs = (pairs: Record<string, [string, string]>) => refsTo(() => SYSTEM, pairs);

function language(list: string, kind: string, collection: string, read: string[]): CollectionDef {
  return jsonCollection({
    name: collection,
    kind,
    listPath: `/v1/${list}`,
    itemPath: `/v1/${list}/:langCode`,
    idField: 'langCode',
    naturalKey: true,
    fields: { langCode: f.str({ required: true, ...PATTERNS.langCode }), name: name(), enabled: enabled() },
    read,
    write: TBAM_SM,
  });
}

function announcementFiles(list: string, kind: string, collection: string, verbs: 'crud' | 'read') {
  const def = jsonCollection({
    name: collection,
    kind,
    listPath: `/v1/${list}/:langCode`,
    itemPath: `/v1/${list}/:langCode/:fileId`,
    idField: 'fileId',
    partition: ['langCode'],
    fields: {
      langCode: f.str({ readOnly: true }),
      fileName: f.str({ required: true, pattern: /^[\w.-]{1,128}$/, hint: 'a file name' }),
      description: f.str(),
      durationSeconds: f.int({ min: 0, default: 0 }),
    },
    summary: ['fileId', 'fileName'],
    read: TBAM,
    verbs,
  });
  return { ...def, checkPath: knownLanguage };
}

/** Announcement files are per provisioned language. */
function knownLanguage(s: Scope): void {
  const code = s.params.langCode;
  if (!SYSTEM.languages.backing.get(s, code)) {
    throw notFound('LANGUAGE_NOT_FOUND', `No language ${code}.`, [{ type: 'value', value: code }]);
  }
}

function server(
  collection: string,
  kind: string,
  list: string,
  idField: string,
  read: string[],
  extra: Parameters<typeof jsonCollection>[0]['fields'] = {},
): CollectionDef {
  return jsonCollection({
    name: collection,
    kind,
    listPath: `/v1/${list}`,
    itemPath: `/v1/${list}/:${idField}`,
    idField,
    fields: { name: name(), host: host(), port: port(5060), zoneId: ref(), enabled: enabled(), ...extra },
    read,
    refs: refs({ zone: ['zoneId', 'zones'] }),
  });
}

export const SYSTEM: Record<string, CollectionDef> = {
  systemAnnouncements: jsonCollection({
    name: 'systemAnnouncements',
    kind: 'announcement',
    listPath: '/v1/systemannouncements',
    itemPath: '/v1/announcements/:announcementId',
    idField: 'announcementId',
    fields: {
      name: name(),
      langCode: f.str({ default: 'en', ...PATTERNS.langCode }),
      text: f.str({ default: '' }),
      fileName: f.str(),
      enabled: enabled(),
    },
    read: TBAM,
  }),
  customAnnouncementFiles: announcementFiles(
    'customannouncementfiles',
    'customAnnouncementFile',
    'customAnnouncementFiles',
    'crud',
  ),
  defaultAnnouncementFiles: announcementFiles(
    'defaultannouncementfiles',
    'defaultAnnouncementFile',
    'defaultAnnouncementFiles',
    'read',
  ),
  languages: language('languages', 'language', 'languages', [...TBAM_SM, 'TA', 'U']),
  aaLanguages: language('aalanguages', 'aaLanguage', 'aaLanguages', [...TBAM_SM, 'TA']),
  vmLanguages: language('vmlanguages', 'vmLanguage', 'vmLanguages', [...TBAM_SM, 'TA', 'U']),
  crPlatforms: jsonCollection({
    name: 'crPlatforms',
    kind: 'crPlatform',
    listPath: '/v1/crplatforms',
    itemPath: '/v1/crplatforms/:crPlatformId',
    idField: 'crPlatformId',
    fields: {
      name: name(),
      host: host(),
      port: port(5060),
      signallingProtocol: f.enum('signallingProtocol', { default: 'sip' }),
      siteIpAssignment: f.enum('platformSiteIPAssignType', { default: 'static' }),
      zoneId: ref(),
      enabled: enabled(),
    },
    read: TBAM_SM,
    refs: refs({ zone: ['zoneId', 'zones'] }),
  }),
  priGroups: jsonCollection({
    name: 'priGroups',
    kind: 'priGroup',
    listPath: '/v1/prigroups',
    itemPath: '/v1/prigroups/:priGroupId',
    idField: 'priGroupId',
    fields: {
      name: name(),
      gatewayId: ref(),
      channels: f.int({ min: 1, max: 31, default: 23 }),
      numberOfDigits: f.enum('numberOfDigitsType', { default: 'variable' }),
      enabled: enabled(),
    },
    read: SM,
    refs: refs({ gateway: ['gatewayId', 'gateways'] }),
  }),
  routes: jsonCollection({
    name: 'routes',
    kind: 'route',
    listPath: '/v1/routes',
    itemPath: '/v1/routes/:routeId',
    idField: 'routeId',
    fields: {
      name: name(),
      routeType: f.enum('routeType', { required: true }),
      carrierId: ref(),
      priGroupId: ref(),
      gatewayId: ref(),
      priority: f.int({ min: 1, max: 100, default: 1 }),
      callerIdOverride: f.str(PATTERNS.number),
      enabled: enabled(),
    },
    read: SM,
    refs: refs({
      carrier: ['carrierId', 'carriers'],
      priGroup: ['priGroupId', 'priGroups'],
      gateway: ['gatewayId', 'gateways'],
    }),
  }),
  dialPlans: jsonCollection({
    name: 'dialPlans',
    kind: 'dialPlan',
    listPath: '/v1/dialplans',
    itemPath: '/v1/dialplans/:dialPlanId',
    idField: 'dialPlanId',
    fields: {
      name: name(),
      outsideLinePrefix: f.str({ default: '9', ...PATTERNS.prefix }),
      isDefault: f.bool({ default: false }),
      rules: f.list(
        f.obj({
          pattern: f.str({ required: true, ...PATTERNS.prefix }),
          destinationType: f.enum('callDestinationType', { required: true }),
          routeId: f.str({ required: true }),
          stripDigits: f.int({ min: 0, max: 16, default: 0 }),
          prependDigits: f.str({ default: '', ...PATTERNS.prefix }),
          classOfService: f.enum('classOfService', { default: 'unrestricted' }),
        }),
        { default: [] },
      ),
      enabled: enabled(),
    },
    read: SM,
    refs: refs({ routes: ['rules[].routeId', 'routes'] }),
  }),
  enterprises: jsonCollection({
    name: 'enterprises',
    kind: 'enterprise',
    listPath: '/v1/enterprises',
    itemPath: '/v1/enterprises/:enterpriseId',
    idField: 'enterpriseId',
    fields: {
      name: name(),
      serviceProviderId: ref(),
      tenantIds: f.list(f.int({ min: 1 }), { default: [] }),
    },
    read: TBAM,
    refs: refs({ serviceProvider: ['serviceProviderId', 'serviceProviders'] }),
  }),
  zones: jsonCollection({
    name: 'zones',
    kind: 'zone',
    listPath: '/v1/zones',
    itemPath: '/v1/zones/:zoneId',
    idField: 'zoneId',
    fields: {
      name: name(),
      description: f.str({ default: '' }),
      timezone: f.str({ default: 'UTC' }),
      codecSetId: ref(),
    },
    read: SM_TBAM_SBAM,
    write: ['UT:SM', 'UT:TBAM'],
    refs: refs({ codecSet: ['codecSetId', 'codecSets'] }),
  }),
  codecSets: jsonCollection({
    name: 'codecSets',
    kind: 'codecSet',
    listPath: '/v1/codecsets',
    itemPath: '/v1/codecsets/:codecSetId',
    idField: 'codecSetId',
    fields: {
      name: name(),
      codecs: f.list(f.enum('codecType'), { required: true }),
      packetizationInterval: f.enum('packetizationIntervalType', { default: 'ms20' }),
    },
    read: TBAM_SM,
  }),
  brandDetails: jsonCollection({
    name: 'brandDetails',
    kind: 'brandDetail',
    listPath: '/v1/branddetails',
    itemPath: '/v1/branddetails/:brandDetailId',
    idField: 'brandDetailId',
    fields: {
      name: name(),
      productName: f.str({ default: 'Switchboard' }),
      logoUrl: f.str(),
      supportLinkType: f.enum('supportLinkType', { default: 'url' }),
      supportLink: f.str(),
      supportLinkVisibility: f.enum('supportLinkVisibilityType', { default: 'visible' }),
      moreHelpLinkType: f.enum('moreHelpLinkType', { default: 'default' }),
      moreHelpLink: f.str(),
    },
    read: TBAM_SM,
  }),
  standardDhcpOptions: jsonCollection({
    name: 'standardDhcpOptions',
    kind: 'standardDhcpOption',
    listPath: '/v1/standarddhcpoptions',
    itemPath: '/v1/standarddhcpoptions/:optionCode',
    idField: 'optionCode',
    naturalKey: true,
    fields: {
      optionCode: f.int({ readOnly: true }),
      name: f.str({ readOnly: true }),
      valueType: f.enum('dhcpOptionValueType', { readOnly: true }),
      value: f.str({ default: '' }),
      enabled: enabled(),
    },
    summary: ['optionCode', 'name'],
    read: SM,
    verbs: 'update',
  }),
  customDhcpOptions: jsonCollection({
    name: 'customDhcpOptions',
    kind: 'customDhcpOption',
    listPath: '/v1/customdhcpoptions',
    itemPath: '/v1/customdhcpoptions/:optionCode',
    idField: 'optionCode',
    naturalKey: true,
    fields: {
      optionCode: f.int({ required: true, min: 128, max: 254 }),
      name: name(),
      valueType: f.enum('dhcpOptionValueType', { required: true }),
      value: f.str({ required: true }),
      enabled: enabled(),
    },
    summary: ['optionCode', 'name'],
    read: SM,
  }),
  serviceProviders: jsonCollection({
    name: 'serviceProviders',
    kind: 'serviceProvider',
    listPath: '/v1/serviceproviders',
    itemPath: '/v1/serviceproviders/:serviceProviderId',
    idField: 'serviceProviderId',
    fields: {
      name: name(),
      contactEmail: f.str(),
      contactNumber: f.str(PATTERNS.number),
      brandDetailId: ref(),
    },
    read: TBAM_SM,
    refs: refs({ brandDetail: ['brandDetailId', 'brandDetails'] }),
  }),
  voicemailServers: server(
    'voicemailServers',
    'voicemailServer',
    'voicemailservers',
    'voicemailServerId',
    EM,
    {
      mailboxCapacity: f.int({ min: 0, default: 1000 }),
    },
  ),
  carriers: jsonCollection({
    name: 'carriers',
    kind: 'carrier',
    listPath: '/v1/carriers',
    itemPath: '/v1/carriers/:carrierId',
    idField: 'carrierId',
    fields: {
      name: name(),
      host: host(),
      port: port(5060),
      signallingProtocol: f.enum('signallingProtocol', { default: 'sip' }),
      clidMatch: f.enum('clidMatchType', { default: 'any' }),
      codecSetId: ref(),
      enabled: enabled(),
    },
    read: SM,
    refs: refs({ codecSet: ['codecSetId', 'codecSets'] }),
  }),
  appServers: server('appServers', 'appServer', 'appservers', 'appServerId', EM_TBAM, {
    role: f.str({ default: 'web' }),
  }),
  gateways: server('gateways', 'gateway', 'gateways', 'gatewayId', EM, {
    gatewayType: f.enum('gatewayType', { required: true }),
    channels: f.int({ min: 1, max: 1024, default: 24 }),
  }),
  mediaServers: server('mediaServers', 'mediaServer', 'mediaservers', 'mediaServerId', EM, {
    mediaServerType: f.enum('mediaServerType', { default: 'primary' }),
    capacity: f.int({ min: 1, default: 500 }),
  }),
  conferenceServers: server(
    'conferenceServers',
    'conferenceServer',
    'conferenceservers',
    'conferenceServerId',
    TBAM_SM,
    {
      conferenceServerType: f.enum('conferenceServerType', { default: 'audio' }),
      maxParticipants: f.int({ min: 2, default: 100 }),
    },
  ),
  rtpProxyServers: server(
    'rtpProxyServers',
    'rtpProxyServer',
    'rtpproxyservers',
    'rtpProxyServerId',
    TBAM_SM,
    {
      portRangeStart: f.int({ min: 1024, max: 65535, default: 20000 }),
      portRangeEnd: f.int({ min: 1024, max: 65535, default: 30000 }),
    },
  ),
  callpServers: server('callpServers', 'callpServer', 'callpservers', 'callpId', EM_TBAM, {
    active: f.bool({ default: true }),
  }),
  phoneAccessEntries: jsonCollection({
    name: 'phoneAccessEntries',
    kind: 'phoneAccessEntry',
    listPath: '/v1/phoneaccessentries',
    itemPath: '/v1/phoneaccessentries/:phoneAccessEntryId',
    idField: 'phoneAccessEntryId',
    fields: {
      subnet: f.str({ required: true, ...PATTERNS.cidr }),
      description: f.str({ default: '' }),
      allowed: f.bool({ default: true }),
    },
    summary: ['phoneAccessEntryId', 'subnet'],
    read: SM,
  }),
  runningTasks: jsonCollection({
    name: 'runningTasks',
    kind: 'runningTask',
    listPath: '/v1/runningtasks',
    itemPath: '/v1/runningtasks/:taskId',
    idField: 'taskId',
    fields: {
      taskType: f.enum('runningTaskType', { readOnly: true }),
      state: f.enum('runningTaskState', { readOnly: true }),
      progress: f.int({ readOnly: true }),
      startedAt: f.str({ readOnly: true }),
      description: f.str({ readOnly: true }),
    },
    summary: ['taskId', 'taskType', 'state'],
    read: TBAM,
    verbs: 'read',
  }),
};
