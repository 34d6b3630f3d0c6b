import type { GenericEntity, StoredEntity } from './model.js';
import type { ProvisioningKind } from './provisioning-model.js';

/**
 * System-level provisioning of the demo world (docs/provisioning.md), so that every list has
 * something in it. Fixed ids, the same on every install and after every reset.
 */
export function demoProvisioning(): StoredEntity[] {
  const out: StoredEntity[] = [];
  const add = (kind: ProvisioningKind | 'site', data: GenericEntity) =>
    out.push({ kind, id: data.id, tenantId: data.tenantId ?? null, data });

  const languages: [string, string][] = [
    ['en', 'English'],
    ['fr', 'French'],
    ['es', 'Spanish'],
  ];
  for (const kind of ['language', 'aaLanguage', 'vmLanguage'] as const)
    for (const [id, name] of languages) add(kind, { id, langCode: id, name, enabled: true });

  add('announcement', {
    id: '1',
    name: 'Welcome',
    langCode: 'en',
    text: 'Thank you for calling.',
    fileName: 'welcome.wav',
    enabled: true,
  });
  add('defaultSystemAnnouncement', { id: 'system', announcementId: '1' });
  let file = 0;
  for (const [langCode] of languages) {
    for (const [fileName, description] of [
      ['welcome.wav', 'Welcome greeting'],
      ['voicemail-greeting.wav', 'Default voicemail greeting'],
      ['park-recall.wav', 'Parked call recall'],
    ]) {
      file++;
      add('defaultAnnouncementFile', {
        id: String(file),
        langCode,
        fileName,
        description,
        durationSeconds: 4,
      });
    }
  }
  add('customAnnouncementFile', {
    id: '1',
    langCode: 'en',
    fileName: 'holiday.wav',
    description: 'Holiday closure',
    durationSeconds: 9,
  });

  add('codecSet', {
    id: '1',
    name: 'Default',
    codecs: ['G722', 'G711U', 'G729'],
    packetizationInterval: 'ms20',
  });
  add('codecSet', { id: '2', name: 'Low bandwidth', codecs: ['G729'], packetizationInterval: 'ms30' });
  add('defaultCodecSet', { id: 'system', codecSetId: '1' });
  add('zone', {
    id: '1',
    name: 'US East',
    description: 'Primary zone',
    timezone: 'America/New_York',
    codecSetId: '1',
  });
  add('brandDetail', {
    id: '1',
    name: 'Switchboard',
    productName: 'Switchboard',
    supportLinkType: 'url',
    supportLink: 'https://support.example.test',
    supportLinkVisibility: 'visible',
    moreHelpLinkType: 'default',
  });
  add('serviceProvider', {
    id: '1',
    name: 'Example Telecom',
    contactEmail: 'noc@example.test',
    brandDetailId: '1',
  });
  add('enterprise', { id: '1', name: 'Acme Holdings', serviceProviderId: '1', tenantIds: [1001] });

  const server = (host: string, extra: Record<string, unknown> = {}) => ({
    id: '1',
    host,
    port: 5060,
    zoneId: '1',
    enabled: true,
    ...extra,
  });
  add('gateway', { ...server('gw1.example.test'), name: 'PSTN gateway', gatewayType: 'sip', channels: 24 });
  const { zoneId: _carriersHaveNoZone, ...carrierServer } = server('sip.carrier.example.test');
  add('carrier', {
    ...carrierServer,
    name: 'Example Carrier',
    signallingProtocol: 'sip',
    clidMatch: 'any',
    codecSetId: '1',
  });
  add('priGroup', {
    id: '1',
    name: 'PRI 1',
    gatewayId: '1',
    channels: 23,
    numberOfDigits: 'variable',
    enabled: true,
  });
  add('route', {
    id: '1',
    name: 'Carrier route',
    routeType: 'sip',
    carrierId: '1',
    priority: 1,
    enabled: true,
  });
  add('dialPlan', {
    id: '1',
    name: 'North America',
    outsideLinePrefix: '9',
    isDefault: true,
    enabled: true,
    rules: [
      ['911', 'emergency'],
      ['011', 'international'],
      ['1', 'national'],
      ['', 'local'],
    ].map(([pattern, destinationType]) => ({
      pattern,
      destinationType,
      routeId: '1',
      stripDigits: 0,
      prependDigits: '',
      classOfService: 'unrestricted',
    })),
  });
  add('crPlatform', {
    ...server('cr1.example.test'),
    name: 'Call routing platform 1',
    signallingProtocol: 'sip',
    siteIpAssignment: 'static',
  });
  add('voicemailServer', { ...server('vm1.example.test'), name: 'Voicemail 1', mailboxCapacity: 1000 });
  add('appServer', { ...server('app1.example.test'), name: 'Application server 1', role: 'web' });
  add('mediaServer', {
    ...server('media1.example.test'),
    name: 'Media 1',
    mediaServerType: 'primary',
    capacity: 500,
  });
  add('conferenceServer', {
    ...server('conf1.example.test'),
    name: 'Conference 1',
    conferenceServerType: 'audio',
    maxParticipants: 100,
  });
  add('rtpProxyServer', {
    ...server('rtp1.example.test'),
    name: 'RTP proxy 1',
    portRangeStart: 20000,
    portRangeEnd: 30000,
  });
  add('callpServer', { ...server('callp1.example.test'), name: 'Call processing 1', active: true });

  for (const [code, name, valueType, value] of [
    [66, 'TFTP server name', 'string', 'tftp.example.test'],
    [150, 'TFTP server address', 'ipAddress', '192.0.2.10'],
    [160, 'Provisioning URL', 'string', 'https://prov.example.test'],
  ] as const) {
    add('standardDhcpOption', { id: String(code), optionCode: code, name, valueType, value, enabled: true });
  }
  add('customDhcpOption', {
    id: '200',
    optionCode: 200,
    name: 'Phone VLAN',
    valueType: 'integer',
    value: '100',
    enabled: true,
  });
  add('phoneAccessEntry', { id: '1', subnet: '10.0.0.0/8', description: 'Private network', allowed: true });
  add('licensing', {
    id: 'system',
    licenseKey: 'DEMO-0000-0000',
    userSeatsLicensed: 1000,
    tenantsLicensed: 100,
    expiresOn: '2030-12-31',
  });
  add('pinNotificationSettings', {
    id: 'system',
    method: 'email',
    senderAddress: 'pins@example.test',
    minPinLength: 4,
    pinExpiryDays: 0,
  });
  add('systemProperties', {
    id: 'system',
    systemName: 'Switchboard',
    defaultTimezone: 'UTC',
    defaultLangCode: 'en',
    outsideLinePrefix: '9',
    emergencyNumbers: ['911', '112'],
    defaultRingTimeoutSeconds: 20,
    parkRecallSeconds: 180,
  });
  add('runningTask', {
    id: '1',
    taskType: 'backup',
    state: 'completed',
    progress: 100,
    startedAt: '2026-01-01T08:00:00Z',
    description: 'Nightly backup',
  });

  add('site', {
    id: 'site-1001-remote',
    tenantId: 1001,
    name: 'Acme remote workers',
    kind: 'dynamic',
    subnet: '10.20.0.0/16',
    address: '',
    timezone: 'America/New_York',
  });
  add('businessHoursProfile', {
    id: '1',
    tenantId: 1001,
    name: 'Office hours',
    timezone: 'America/New_York',
    schedule: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, open: '09:00', close: '17:00' })),
    holidays: ['2026-12-25'],
  });
  add('keyProfile', {
    id: '1',
    tenantId: 1001,
    name: 'Standard keys',
    phoneModel: 'phoneModelA',
    blfRingTone: 'beep',
    keys: [
      { keyNumber: 1, featureType: 'line' },
      { keyNumber: 2, featureType: 'parkLocation', featureData: '1', label: 'Park 1' },
    ],
  });
  add('callPermissionProfile', {
    id: '1',
    tenantId: 1001,
    name: 'Domestic',
    classOfService: 'national',
    allowedDestinations: ['internal', 'local', 'national', 'emergency', 'tollFree'],
    blockedPrefixes: ['1900'],
  });
  add('externalContact', {
    id: '1',
    tenantId: 1001,
    firstName: 'Pat',
    lastName: 'Partner',
    company: 'Initech',
    phoneNumber: '+15555550999',
    email: 'pat@initech.example.test',
  });
  return out;
}
