import type { Scope } from './backing.js';
import { singletonBacking } from './backing.js';
import type { SingletonDef } from './collection.js';
import { PATTERNS, f } from './fields.js';
import { SYSTEM } from './system-resources.js';

/** The system settings of the v1 root table: one record each, read with GET, changed with PUT. */
const TBAM = ['UT:TBAM'];
const SM = ['UT:SM'];
const TBAM_SM = ['UT:TBAM', 'UT:SM'];

const userSeats = (s: Scope) =>
  s.runtime.directory.list('extension').filter((e) => e.type === 'userExt').length;

export const SETTINGS: SingletonDef[] = [
  {
    name: 'defaultSystemAnnouncement',
    path: '/v1/defaultsystemannouncement',
    fields: { announcementId: f.str() },
    rules: { read: TBAM, update: TBAM },
    backing: singletonBacking('defaultSystemAnnouncement'),
    refs: { announcement: { field: 'announcementId', target: () => SYSTEM.systemAnnouncements } },
  },
  {
    name: 'defaultSystemCodecSet',
    path: '/v1/defaultcodecset',
    fields: { codecSetId: f.str() },
    rules: { read: ['UT:SM', 'UT:TBAM', 'UT:SBAM'], update: TBAM_SM },
    backing: singletonBacking('defaultCodecSet'),
    refs: { codecSet: { field: 'codecSetId', target: () => SYSTEM.codecSets } },
  },
  {
    name: 'licensing',
    path: '/v1/licensing',
    fields: {
      licenseKey: f.str({ default: '' }),
      userSeatsLicensed: f.int({ min: 0, default: 1000 }),
      userSeatsUsed: f.int({ readOnly: true }),
      tenantsLicensed: f.int({ min: 0, default: 100 }),
      tenantsUsed: f.int({ readOnly: true }),
      expiresOn: f.str({ pattern: /^\d{4}-\d{2}-\d{2}$/, hint: 'a date YYYY-MM-DD' }),
    },
    rules: { read: TBAM_SM, update: TBAM_SM },
    backing: singletonBacking('licensing'),
    computed: (s) => ({ userSeatsUsed: userSeats(s), tenantsUsed: s.runtime.directory.tenants().length }),
  },
  {
    name: 'pinNotificationSettings',
    path: '/v1/pinnotificationsettings',
    fields: {
      method: f.enum('pinNotificationMethodType', { default: 'email' }),
      senderAddress: f.str({ default: '' }),
      minPinLength: f.int({ min: 4, max: 12, default: 4 }),
      pinExpiryDays: f.int({ min: 0, default: 0 }),
    },
    rules: { read: TBAM_SM, update: TBAM_SM },
    backing: singletonBacking('pinNotificationSettings'),
  },
  {
    name: 'systemProperties',
    path: '/v1/systemproperties',
    fields: {
      systemName: f.str({ default: 'Switchboard' }),
      defaultTimezone: f.str({ default: 'UTC' }),
      defaultLangCode: f.str({ default: 'en', ...PATTERNS.langCode }),
      outsideLinePrefix: f.str({ default: '9', ...PATTERNS.prefix }),
      emergencyNumbers: f.list(f.str(PATTERNS.digits), { default: ['911', '112'] }),
      defaultRingTimeoutSeconds: f.int({ min: 5, max: 120, default: 20 }),
      parkRecallSeconds: f.int({ min: 10, max: 3600, default: 180 }),
    },
    rules: { read: SM, update: SM },
    backing: singletonBacking('systemProperties'),
  },
];
