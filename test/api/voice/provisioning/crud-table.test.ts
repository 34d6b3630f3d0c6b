import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, AUTHORITIES, BOB, LOBBY, OPERATOR, call } from './provisioning-helpers.js';

/**
 * The generated provisioning suite: one row per collection. For each row, the writer lists,
 * creates (201 + Location), reads, updates (unknown properties ignored), filters, is refused an
 * invalid body (400 naming the field) and deletes (200, empty); every authority outside the
 * row's readers gets 403.
 */
interface Row {
  /** List address. */
  list: string;
  /** `_embedded` name of the elements. */
  embed: string;
  idField: string;
  /** Who may read the list (the others get 403). */
  readers: readonly string[];
  writer: string;
  create: Record<string, unknown>;
  update: Record<string, unknown>;
  invalid: [body: Record<string, unknown>, field: string];
}

const TELCO = [ADMIN];
const TENANT_CONFIG = [ADMIN, OPERATOR, ALICE];
const t = (segment: string) => `/api/v1/tenants/1001/${segment}`;
const server = (name: string, extra: Record<string, unknown> = {}) => ({
  create: { name, host: `${name.toLowerCase()}.example.test`, ...extra },
  update: { port: 5080 },
  invalid: [{ name: 'x', host: 'not a host!', ...extra }, 'host'] as [Record<string, unknown>, string],
});

// One row per collection: the rows share a shape, each its own bodies and rules.
const ROWS: Row[] = [
  {
    list: '/api/v1/systemannouncements',
    embed: 'systemAnnouncements',
    idField: 'announcementId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'Closed', text: 'We are closed' },
    update: { text: 'Back soon' },
    invalid: [{ name: 7 }, 'name'],
  },
  {
    list: '/api/v1/customannouncementfiles/en',
    embed: 'customAnnouncementFiles',
    idField: 'fileId',
    readers: TELCO,
    writer: ADMIN,
    create: { fileName: 'promo.wav' },
    update: { description: 'Promotion' },
    invalid: [{ fileName: 'bad name!' }, 'fileName'],
  },
  ...(
    [
      ['languages', 'languages', [ADMIN, ALICE, BOB, LOBBY]],
      ['aalanguages', 'aaLanguages', [ADMIN, ALICE]],
      ['vmlanguages', 'vmLanguages', [ADMIN, ALICE, BOB, LOBBY]],
    ] as const
  ).map(([path, embed, readers]): Row => ({
    list: `/api/v1/${path}`,
    embed,
    idField: 'langCode',
    readers,
    writer: ADMIN,
    create: { langCode: 'de', name: 'German' },
    update: { enabled: false },
    invalid: [{ langCode: 'german', name: 'German' }, 'langCode'],
  })),
  {
    list: '/api/v1/crplatforms',
    embed: 'crPlatforms',
    idField: 'crPlatformId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'CR2', host: 'cr2.example.test' },
    update: { port: 5080 },
    invalid: [{ name: 'x', host: 'cr.example.test', signallingProtocol: 'pigeon' }, 'signallingProtocol'],
  },
  {
    list: '/api/v1/prigroups',
    embed: 'priGroups',
    idField: 'priGroupId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'PRI 2', gatewayId: '1' },
    update: { channels: 30 },
    invalid: [{ name: 'x', gatewayId: '99' }, 'gatewayId'],
  },
  {
    list: '/api/v1/routes',
    embed: 'routes',
    idField: 'routeId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'Backup route', routeType: 'sip', carrierId: '1' },
    update: { priority: 2 },
    invalid: [{ name: 'x' }, 'routeType'],
  },
  {
    list: '/api/v1/dialplans',
    embed: 'dialPlans',
    idField: 'dialPlanId',
    readers: TELCO,
    writer: ADMIN,
    create: {
      name: 'DP2',
      rules: [
        {
          pattern: '1',
          destinationType: 'national',
          routeId: '1',
          stripDigits: 1,
          prependDigits: '+1',
          classOfService: 'national',
        },
      ],
    },
    update: { outsideLinePrefix: '8' },
    invalid: [
      { name: 'x', rules: [{ pattern: '1', destinationType: 'national', routeId: '99' }] },
      'rules[0].routeId',
    ],
  },
  {
    list: '/api/v1/enterprises',
    embed: 'enterprises',
    idField: 'enterpriseId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'Globex Group', tenantIds: [1002] },
    update: { serviceProviderId: '1' },
    invalid: [{ name: 'x', tenantIds: ['a'] }, 'tenantIds[0]'],
  },
  {
    list: '/api/v1/zones',
    embed: 'zones',
    idField: 'zoneId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'US West', codecSetId: '2' },
    update: { timezone: 'America/Los_Angeles' },
    invalid: [{ name: 'x', codecSetId: '99' }, 'codecSetId'],
  },
  {
    list: '/api/v1/codecsets',
    embed: 'codecSets',
    idField: 'codecSetId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'HD', codecs: ['OPUS', 'G722'] },
    update: { packetizationInterval: 'ms10' },
    invalid: [{ name: 'x', codecs: ['MP3'] }, 'codecs[0]'],
  },
  {
    list: '/api/v1/branddetails',
    embed: 'brandDetails',
    idField: 'brandDetailId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'Reseller brand' },
    update: { supportLinkType: 'email', supportLink: 'help@example.test' },
    invalid: [{ name: 'x', moreHelpLinkType: 'sometimes' }, 'moreHelpLinkType'],
  },
  {
    list: '/api/v1/customdhcpoptions',
    embed: 'customDhcpOptions',
    idField: 'optionCode',
    readers: TELCO,
    writer: ADMIN,
    create: { optionCode: 201, name: 'Syslog', valueType: 'ipAddress', value: '192.0.2.5' },
    update: { value: '192.0.2.6' },
    invalid: [{ optionCode: 99, name: 'x', valueType: 'string', value: 'v' }, 'optionCode'],
  },
  {
    list: '/api/v1/serviceproviders',
    embed: 'serviceProviders',
    idField: 'serviceProviderId',
    readers: TELCO,
    writer: ADMIN,
    create: { name: 'Reseller', brandDetailId: '1' },
    update: { contactEmail: 'ops@reseller.example.test' },
    invalid: [{ name: 'x', brandDetailId: '77' }, 'brandDetailId'],
  },
  {
    list: '/api/v1/voicemailservers',
    embed: 'voicemailServers',
    idField: 'voicemailServerId',
    readers: TELCO,
    writer: ADMIN,
    ...server('VM2'),
  },
  {
    list: '/api/v1/carriers',
    embed: 'carriers',
    idField: 'carrierId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Carrier2', { clidMatch: 'prefix' }),
  },
  {
    list: '/api/v1/appservers',
    embed: 'appServers',
    idField: 'appServerId',
    readers: TELCO,
    writer: ADMIN,
    ...server('App2'),
  },
  {
    list: '/api/v1/gateways',
    embed: 'gateways',
    idField: 'gatewayId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Gw2', { gatewayType: 'analog' }),
  },
  {
    list: '/api/v1/mediaservers',
    embed: 'mediaServers',
    idField: 'mediaServerId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Media2'),
  },
  {
    list: '/api/v1/conferenceservers',
    embed: 'conferenceServers',
    idField: 'conferenceServerId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Conf2'),
  },
  {
    list: '/api/v1/rtpproxyservers',
    embed: 'rtpProxyServers',
    idField: 'rtpProxyServerId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Rtp2'),
  },
  {
    list: '/api/v1/callpservers',
    embed: 'callpServers',
    idField: 'callpId',
    readers: TELCO,
    writer: ADMIN,
    ...server('Callp2'),
  },
  {
    list: '/api/v1/phoneaccessentries',
    embed: 'phoneAccessEntries',
    idField: 'phoneAccessEntryId',
    readers: TELCO,
    writer: ADMIN,
    create: { subnet: '192.168.0.0/16' },
    update: { allowed: false },
    invalid: [{ subnet: 'everywhere' }, 'subnet'],
  },
  {
    list: '/api/v1/tenants',
    embed: 'tenants',
    idField: 'tenantId',
    readers: TELCO,
    writer: ADMIN,
    create: { tenantId: 1003, name: 'Initech' },
    update: { name: 'Initech Ltd' },
    invalid: [{ name: 'x', did: '12' }, 'did'],
  },
  // ---- tenant-scoped ----
  {
    list: t('users'),
    embed: 'users',
    idField: 'extension',
    readers: [...TENANT_CONFIG, BOB, LOBBY],
    writer: ALICE,
    create: { extension: '120', firstName: 'Yan', pin: '5678' },
    update: { lastName: 'Young' },
    invalid: [{ extension: '121', firstName: 'x', pin: '12' }, 'pin'],
  },
  {
    list: t('locations'),
    embed: 'locations',
    idField: 'extension',
    readers: [...TENANT_CONFIG, BOB, LOBBY],
    writer: OPERATOR,
    create: { extension: '151', name: 'Kiosk', pin: '5678' },
    update: { name: 'Kiosk 2' },
    invalid: [{ extension: 'x1', name: 'x', pin: '1234' }, 'extension'],
  },
  {
    list: t('callinggroups'),
    embed: 'callGroups',
    idField: 'callGroupId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { extension: '610', name: 'Front desk', callGroupType: 'broadcast', members: ['101'] },
    update: { members: ['101', '102'] },
    invalid: [{ extension: '611', name: 'x', callGroupType: 'ringAll' }, 'callGroupType'],
  },
  {
    list: t('acds'),
    embed: 'acds',
    idField: 'acdId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { extension: '520', name: 'Billing', agents: ['105'] },
    update: { ringTimeSeconds: 30 },
    invalid: [{ extension: '521', name: 'x', agents: ['150'] }, 'agents[0]'],
  },
  {
    list: t('autoattendants'),
    embed: 'autoAttendants',
    idField: 'autoAttendantId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: {
      extension: '710',
      name: 'After hours',
      menu: [{ key: '1', action: 'transferToAcd', target: '500' }],
    },
    update: { timeoutAction: { action: 'repeatMenu' } },
    invalid: [
      { extension: '711', name: 'x', menu: [{ key: '1', action: 'transferToAcd', target: '101' }] },
      'menu[0].target',
    ],
  },
  {
    list: t('phones'),
    embed: 'phones',
    idField: 'phoneId',
    readers: [...TENANT_CONFIG, BOB, LOBBY],
    writer: ALICE,
    create: { ownerExtension: '105', model: 'phoneModelB', macAddress: '02:aa:bb:cc:dd:ee' },
    update: { lineCount: 4 },
    invalid: [{ ownerExtension: '105', model: 'rotary', macAddress: '02:aa:bb:cc:dd:ef' }, 'model'],
  },
  {
    list: t('dids'),
    embed: 'dids',
    idField: 'didId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { number: '+15555550177', extension: '101' },
    update: { extension: '102' },
    invalid: [{ number: '555', extension: '101' }, 'number'],
  },
  {
    list: t('parklocationranges'),
    embed: 'parkLocationRanges',
    idField: 'parkLocationRangeId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { first: 10, last: 12 },
    update: { last: 14 },
    invalid: [{ first: 3, last: 4 }, 'first'],
  },
  {
    list: t('staticsites'),
    embed: 'staticSites',
    idField: 'siteId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { name: 'Branch office' },
    update: { address: '1 Main St' },
    invalid: [{ name: '' }, 'name'],
  },
  {
    list: t('dynamicsites'),
    embed: 'dynamicSites',
    idField: 'siteId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { name: 'Remote workers', subnet: '10.9.0.0/16' },
    update: { name: 'Remote' },
    invalid: [{ name: 'x' }, 'subnet'],
  },
  {
    list: t('businesshours'),
    embed: 'businessHoursProfiles',
    idField: 'businessHourId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { name: 'Weekend', schedule: [{ day: 'sat', open: '10:00', close: '14:00' }] },
    update: { holidays: ['2026-01-01'] },
    invalid: [{ name: 'x', schedule: [{ day: 'sat', open: '25:00', close: '14:00' }] }, 'schedule[0].open'],
  },
  {
    list: t('keyprofiles'),
    embed: 'keyProfiles',
    idField: 'keyProfileId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { name: 'Reception keys', phoneModel: 'phoneModelB' },
    update: { keys: [{ keyNumber: 1, featureType: 'speedDial', featureData: '+15555550100' }] },
    invalid: [
      { name: 'x', phoneModel: 'phoneModelB', keys: [{ keyNumber: 1, featureType: 'teleport' }] },
      'keys[0].featureType',
    ],
  },
  {
    list: t('callpermissionprofiles'),
    embed: 'callPermissionProfiles',
    idField: 'callPermissionProfileId',
    readers: TENANT_CONFIG,
    writer: ALICE,
    create: { name: 'International', classOfService: 'international' },
    update: { blockedPrefixes: ['011'] },
    invalid: [{ name: 'x' }, 'classOfService'],
  },
  {
    list: t('externalcontacts'),
    embed: 'externalContacts',
    idField: 'externalContactId',
    readers: [ALICE, BOB, LOBBY],
    writer: BOB,
    create: { lastName: 'Doe', phoneNumber: '+15555550123' },
    update: { company: 'Acme' },
    invalid: [{ lastName: 'x', phoneNumber: 'call me' }, 'phoneNumber'],
  },
];

describe('provisioning collections, one generated row each', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  for (const row of ROWS) {
    test(`${row.list}: list, create, read, update, filter, invalid, delete; 403 for the others`, async () => {
      const listed = await call(s, 'GET', row.list, row.writer);
      assert.equal(listed.status, 200, listed.text);
      assert.ok(Array.isArray(listed.body._embedded[row.embed]), `embeds ${row.embed}`);
      const before = listed.body._embedded[row.embed].length;

      const created = await call(s, 'POST', row.list, row.writer, { ...row.create, unknownProperty: 1 });
      assert.equal(created.status, 201, created.text);
      const location = created.headers.get('location');
      assert.ok(location?.startsWith('/api/v1/'), `Location ${location}`);
      assert.equal(created.body.unknownProperty, undefined);
      const id = String(created.body[row.idField]);

      const read = await call(s, 'GET', location!, row.writer);
      assert.equal(read.status, 200, read.text);
      for (const [k, v] of Object.entries(row.create)) {
        if (k !== 'pin') assert.deepEqual(read.body[k], v, `${k} after create`);
      }
      assert.equal(read.body.pin, undefined, 'a PIN is never rendered');

      const updated = await call(s, 'PUT', location!, row.writer, { ...row.update, alsoUnknown: true });
      assert.equal(updated.status, 200, updated.text);
      const reread = await call(s, 'GET', location!, row.writer);
      for (const [k, v] of Object.entries(row.update))
        assert.deepEqual(reread.body[k], v, `${k} after update`);
      for (const [k, v] of Object.entries(row.create)) {
        if (!(k in row.update) && k !== 'pin') assert.deepEqual(reread.body[k], v, `${k} kept by PUT`);
      }

      const all = await call(s, 'GET', row.list, row.writer);
      assert.equal(all.body._embedded[row.embed].length, before + 1);
      const numeric = typeof created.body[row.idField] === 'number';
      const filtered = await call(
        s,
        'GET',
        `${row.list}?filter=eq(${row.idField},${encodeURIComponent(id)})`,
        row.writer,
      );
      assert.equal(filtered.status, 200, filtered.text);
      assert.deepEqual(
        filtered.body._embedded[row.embed].map((e: Record<string, unknown>) => String(e[row.idField])),
        [id],
        numeric ? 'integer id filter' : 'string id filter',
      );
      const badFilter = await call(s, 'GET', `${row.list}?filter=eq(noSuchKey,1)`, row.writer);
      assert.equal(badFilter.status, 400);

      const [badBody, field] = row.invalid;
      const refused = await call(s, 'POST', row.list, row.writer, badBody);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.deepEqual(refused.body.parameters, [{ type: 'field', value: field }]);

      const removed = await call(s, 'DELETE', location!, row.writer);
      assert.equal(removed.status, 200, removed.text);
      assert.equal(removed.text, '');
      assert.equal((await call(s, 'GET', location!, row.writer)).status, 404);
      assert.equal((await call(s, 'GET', row.list, row.writer)).body._embedded[row.embed].length, before);

      for (const who of AUTHORITIES.filter((a) => !row.readers.includes(a))) {
        assert.equal((await call(s, 'GET', row.list, who)).status, 403, `GET by ${who}`);
        assert.equal((await call(s, 'POST', row.list, who, row.create)).status, 403, `POST by ${who}`);
      }
    });
  }
});
