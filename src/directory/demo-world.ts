import { CC_PERMISSIONS, type CcPermission } from '../core/permissions.js';
import { hashSecret } from '../core/secrets.js';
import { DEMO, demoUuid } from './demo-ids.js';
import { DEMO_SECRET_HASHES } from './demo-secret-hashes.js';
import { demoProvisioning } from './demo-provisioning.js';
import type {
  AgentSettings,
  CcTenant,
  Device,
  Did,
  EntityKinds,
  Extension,
  Kind,
  ParkLocationRange,
  StoredEntity,
  Tenant,
} from './model.js';
import { extensionKey } from './model.js';
import { DEFAULT_CC_LIMITS } from './provisioning-model.js';

/** Created-on instant of every demo record, fixed so resets are reproducible. */
const DEMO_CREATED = Date.UTC(2026, 0, 1, 8, 0, 0);

/**
 * The records sharing a public demo secret share its hash: kept in the source for the demo PIN and
 * passwords (demo-secret-hashes.ts), made once per process for any other; a PIN provisioned later
 * is hashed with its own salt as always.
 */
const hashMemo = new Map<string, string>(Object.entries(DEMO_SECRET_HASHES));
function memoHash(secret: string): string {
  let h = hashMemo.get(secret);
  if (!h) {
    h = hashSecret(secret);
    hashMemo.set(secret, h);
  }
  return h;
}

/** An operator's password gets its own salt; only the public demo ones share the memo. */
const telcoHash = (operatorSet: string | undefined, demo: string) =>
  operatorSet ? hashSecret(operatorSet) : memoHash(demo);

const AGENT_ROLE: CcPermission[] = ['API', 'Agent Control', 'Agent Events', 'Calls View'];

function ccTenant(uuid: string, n: number, name: string): CcTenant {
  return {
    uuid,
    sid: `CC${n}`,
    name,
    status: 'enable',
    timezone: 'America/New_York',
    productIds: [DEMO.products.voice, DEMO.products.contactCenter],
    productName: 'Contact Center',
    agentBilling: 'Named',
    limits: { ...DEFAULT_CC_LIMITS, chat_licenses: '10', multimedia_licenses: '5' },
    createdOn: DEMO_CREATED,
    modifiedOn: DEMO_CREATED,
    createdBy: 'admin',
    modifiedBy: [],
  };
}

interface ExtSpec {
  ext: string;
  first: string;
  last: string;
  type?: Extension['type'];
  admin?: boolean;
  pin?: string;
  agent?: Partial<AgentSettings>;
  roles?: string[];
  model?: Device['model'];
}

function extension(tenantId: number, s: ExtSpec): Extension {
  const type = s.type ?? 'userExt';
  const hasPin = type === 'userExt' || type === 'locationExt';
  return {
    id: extensionKey(tenantId, s.ext),
    tenantId,
    ext: s.ext,
    type,
    uuid: DEMO.extensionUuid(tenantId, s.ext),
    firstName: s.first,
    lastName: s.last,
    name: s.last ? `${s.first} ${s.last}` : s.first,
    pinHash: hasPin ? memoHash(s.pin ?? '1234') : undefined,
    admin: s.admin ?? false,
    enabled: true,
    dnd: false,
    ringTimeoutMs: 20_000,
    confirmBeforeDial: false,
    agent: s.agent
      ? {
          isAgent: true,
          recordingType: 'None',
          monitor: false,
          maxChats: 0,
          multimediaEnabled: false,
          ...s.agent,
        }
      : type === 'userExt'
        ? { isAgent: false, recordingType: 'None', monitor: false, maxChats: 0, multimediaEnabled: false }
        : undefined,
    ccRoleIds: s.roles ?? [],
  };
}

/** The MAC address of a demo phone: locally administered, unique per tenant and extension. */
export function demoMacAddress(tenantId: number, ext: string): string {
  const n = tenantId * 1000 + Number(ext);
  const byte = (shift: number) => ((n >> shift) & 0xff).toString(16).padStart(2, '0');
  return `02:5b:0a:${byte(16)}:${byte(8)}:${byte(0)}`;
}

function phone(tenantId: number, ext: string, model: Device['model']): Device {
  return {
    id: DEMO.deviceId(tenantId, ext),
    tenantId,
    ownerExt: ext,
    model,
    registered: true,
    macAddress: demoMacAddress(tenantId, ext),
    lineCount: model === 'bst' ? 2 : 6,
    acceptsReinvite: true,
    sendsReinvite: true,
  };
}

/**
 * The telco users' passwords. The operator sets them (flags or environment); a password left
 * unset is the demo world's public one (`admin`, `operator`), which the banner prints.
 */
export interface TelcoPasswords {
  admin?: string;
  operator?: string;
}
export const DEMO_TELCO_PASSWORDS: Required<TelcoPasswords> = { admin: 'admin', operator: 'operator' };

/** Builds the demo world of docs/decisions.md §1.11. Same ids every time. */
export function demoWorld(telco: TelcoPasswords = {}): StoredEntity[] {
  const out: StoredEntity[] = [];
  const add = <K extends Kind>(kind: K, data: EntityKinds[K]) => {
    // JSON-clean (no undefined members), exactly as it will read back from the database.
    const d = JSON.parse(JSON.stringify(data)) as StoredEntity['data'];
    out.push({ kind, id: d.id, tenantId: (d.tenantId as number | undefined) ?? null, data: d });
  };

  add('telcoUser', {
    id: 'admin',
    passwordHash: telcoHash(telco.admin, DEMO_TELCO_PASSWORDS.admin),
    telcoPermissions: ['TBAM', 'SM', 'EM', 'SBAM'],
    callControl: false,
    ccPermissions: [...CC_PERMISSIONS],
    enabled: true,
  });
  add('telcoUser', {
    id: 'operator',
    passwordHash: telcoHash(telco.operator, DEMO_TELCO_PASSWORDS.operator),
    telcoPermissions: ['TBAM'],
    scopedTenantId: 1001,
    callControl: true,
    ccPermissions: ['API', 'Tenants View', 'Calls View', 'Calls Listing View', 'Call Events', 'Agent Events'],
    enabled: true,
  });

  for (const [id, name, notes] of [
    [DEMO.products.voice, 'Voice', 'Hosted PBX voice service'],
    [DEMO.products.contactCenter, 'Contact Center', 'ACD queues, agents and reporting'],
    [DEMO.products.recording, 'Call Recording', ''],
  ] as const) {
    add('product', { id, name, notes });
  }
  add('role', { id: DEMO.roles.tenantAdmin, name: 'Tenant Admin', permissions: [...CC_PERMISSIONS] });
  add('role', { id: DEMO.roles.agent, name: 'Agent', permissions: AGENT_ROLE });
  add('role', {
    id: DEMO.roles.supervisor,
    name: 'Supervisor',
    permissions: [
      'API',
      'Agent Control',
      'Agent Events',
      'Call Events',
      'Inbound Queue Events',
      'Calls View',
      'Calls Listing View',
      'Call Control',
      'Voice IQs View',
      'Voice OQs View',
    ],
  });

  // ---- Tenant 1001 Acme Corp -------------------------------------------------------------
  const acme: Tenant = {
    id: '1001',
    tenantId: 1001,
    name: 'Acme Corp',
    active: true,
    did: '+15555550100',
    webLoginUrl: 'acme.example.test',
    cc: ccTenant(DEMO.acme.ccUuid, 1001, 'Acme Corp'),
  };
  add('tenant', acme);
  add('site', { id: 'site-1001-hq', tenantId: 1001, name: 'Acme HQ', kind: 'static' });
  const acmeUsers: ExtSpec[] = [
    { ext: '100', first: 'Alice', last: 'Adams', admin: true, roles: [DEMO.roles.tenantAdmin] },
    {
      ext: '101',
      first: 'Bob',
      last: 'Brown',
      agent: { recordingType: 'Mandatory' },
      roles: [DEMO.roles.agent],
    },
    {
      ext: '102',
      first: 'Carol',
      last: 'Chen',
      agent: { recordingType: 'On Demand' },
      roles: [DEMO.roles.agent],
    },
    { ext: '103', first: 'Dan', last: 'Diaz', agent: {}, roles: [DEMO.roles.agent] },
    { ext: '104', first: 'Erin', last: 'Evans', agent: {}, roles: [DEMO.roles.agent], model: 'bst' },
    { ext: '105', first: 'Frank', last: 'Fox' },
    { ext: '150', first: 'Lobby', last: '', type: 'locationExt' },
  ];
  for (const u of acmeUsers) {
    const e = extension(1001, u);
    e.siteId = 'site-1001-hq';
    e.clickToCallDeviceId = DEMO.deviceId(1001, u.ext);
    add('extension', e);
    add('device', phone(1001, u.ext, u.model ?? (u.ext === '150' ? 'phoneModelB' : 'phoneModelA')));
  }
  const sales = extension(1001, { ext: '500', first: 'Sales', last: '', type: 'acdExt' });
  sales.acd = { agents: ['101', '102', '103'], ringTimeMs: 15_000, maxMissed: 3 };
  add('extension', sales);
  const support = extension(1001, { ext: '501', first: 'Support', last: '', type: 'acdExt' });
  support.acd = { agents: ['103', '104'], ringTimeMs: 15_000, maxMissed: 3 };
  add('extension', support);
  const hunt = extension(1001, { ext: '600', first: 'Hunt group', last: '', type: 'groupExt' });
  hunt.group = { groupType: 'hunt', members: ['101', '102'] };
  add('extension', hunt);
  const menu = extension(1001, { ext: '700', first: 'Main menu', last: '', type: 'autoAttendantExt' });
  menu.autoAttendant = {
    menu: {
      '1': { action: 'transferToAcd', target: '500' },
      '2': { action: 'transferToAcd', target: '501' },
    },
    timeoutAction: { action: 'disconnect' },
  };
  add('extension', menu);
  const dids: Did[] = [
    { id: 'did-1001-0100', tenantId: 1001, number: '+15555550100', targetExt: '700' },
    { id: 'did-1001-0150', tenantId: 1001, number: '+15555550150', targetExt: '500' },
  ];
  for (const d of dids) add('did', d);
  const acmePark: ParkLocationRange = { id: 'park-1001', tenantId: 1001, first: 1, last: 5 };
  add('parkRange', acmePark);
  const acmeOptions: [number, 'away' | 'sign_out', string][] = [
    [1, 'away', 'Lunch'],
    [2, 'away', 'Break'],
    [3, 'away', 'Meeting'],
    [4, 'sign_out', 'Signed Out'],
    [5, 'sign_out', 'End of Shift'],
  ];
  for (const [n, type, name] of acmeOptions) {
    add('presenceOption', { id: demoUuid('presenceOption', 1001_00 + n), tenantId: 1001, type, name });
  }
  add('outboundQueue', {
    id: demoUuid('outboundQueue', 1001_01),
    tenantId: 1001,
    name: 'Outbound Sales',
    extension: '510',
    callerId: '+15555550150',
  });

  // ---- Tenant 1002 Globex --------------------------------------------------------------
  add('tenant', {
    id: '1002',
    tenantId: 1002,
    name: 'Globex',
    active: true,
    did: '+15555550200',
    webLoginUrl: 'globex.example.test',
    cc: ccTenant(DEMO.globex.ccUuid, 1002, 'Globex'),
  });
  add('site', { id: 'site-1002-hq', tenantId: 1002, name: 'Globex HQ', kind: 'static' });
  const globexUsers: ExtSpec[] = [
    { ext: '200', first: 'Grace', last: 'Green', admin: true, roles: [DEMO.roles.tenantAdmin] },
    { ext: '201', first: 'Hank', last: 'Hill', agent: {}, roles: [DEMO.roles.agent] },
    { ext: '202', first: 'Ivy', last: 'Irwin', agent: {}, roles: [DEMO.roles.agent] },
  ];
  for (const u of globexUsers) {
    const e = extension(1002, u);
    e.siteId = 'site-1002-hq';
    e.clickToCallDeviceId = DEMO.deviceId(1002, u.ext);
    add('extension', e);
    add('device', phone(1002, u.ext, 'phoneModelA'));
  }
  add('parkRange', { id: 'park-1002', tenantId: 1002, first: 1, last: 2 });
  for (const [n, type, name] of acmeOptions) {
    add('presenceOption', { id: demoUuid('presenceOption', 1002_00 + n), tenantId: 1002, type, name });
  }
  out.push(...demoProvisioning());
  return out;
}

/** The credentials printed at start (unless the operator set them) and shown in the README. */
export const DEMO_CREDENTIALS = [
  { who: 'telco admin (all permissions)', username: 'admin', password: DEMO_TELCO_PASSWORDS.admin },
  {
    who: 'scoped telco for 1001 (TBAM, CallControl)',
    username: 'operator',
    password: DEMO_TELCO_PASSWORDS.operator,
  },
  { who: 'Acme tenant admin, ext 100', username: '100@1001', password: '1234' },
  { who: 'Acme agents 101-104, user 105, location 150', username: '101@1001', password: '1234' },
  { who: 'Globex tenant admin, ext 200', username: '200@1002', password: '1234' },
] as const;
