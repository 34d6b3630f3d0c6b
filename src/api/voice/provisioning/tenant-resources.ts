import { Type } from '@sinclair/typebox';
import { conflict } from '../../../core/errors.js';
import { UserPhoneSchema } from '../directory/directory-schemas.js';
import { type Principal, allows } from '../../../core/permissions.js';
import { type Device, type Did, PHONE_MODELS } from '../../../directory/model.js';
import { link, perPrincipal } from '../hal/links.js';
import type { Entity, Links } from '../hal/model.js';
import { type Row, type Scope, jsonKindBacking, nextNumericId, staticBacking, unusedId } from './backing.js';
import { type CollectionDef, hrefOf, listSchema, rowEntity } from './collection.js';
import { acds, autoAttendants, callGroups, locations, users } from './extension-resources.js';
import { type Fields, PATTERNS, f } from './fields.js';
import { tenantBacking } from './tenant-backing.js';
import {
  CONFIG,
  CONFIG_U,
  PERSON,
  T,
  choice,
  fieldError,
  rename,
  requireExtension,
  tenantCollection,
} from './tenant-collection.js';

/**
 * The tenant-scoped resources. The ones the switch routes by (phones, DIDs, park ranges, sites,
 * and the extensions of extension-resources.ts) read and write the directory's typed kinds; the
 * others are generic kinds of the tenant.
 */
// ---- phones, DIDs, park ranges, sites ------------------------------------------------------

const normalMac = (mac: string) =>
  mac
    .replace(/[^0-9a-fA-F]/g, '')
    .toLowerCase()
    .replace(/(..)(?!$)/g, '$1:');

const phoneFields = {
  ownerExtension: f.str({ required: true, adminOnly: true, ...PATTERNS.digits }),
  model: f.str({ required: true, adminOnly: true, ...choice(PHONE_MODELS) }),
  macAddress: f.str({ required: true, adminOnly: true, ...PATTERNS.mac }),
  registered: f.bool({ readOnly: true, always: true }),
  lineCount: f.int({ min: 1, max: 24, adminOnly: true }),
  acceptsReinvite: f.bool({ default: true, adminOnly: true }),
  sendsReinvite: f.bool({ default: true, adminOnly: true }),
  siteAssignment: f.enum('phoneSiteAssignmentType', { default: 'static', adminOnly: true }),
};

const phoneBacking = (select?: (d: Device, s: Scope) => boolean) =>
  jsonKindBacking({
    kind: 'device',
    idField: 'phoneId',
    tenantScoped: true,
    select: select as never,
    toWire: (e, s) => {
      const d = e as unknown as Device & { siteAssignment?: string };
      return {
        ownerExtension: d.ownerExt,
        model: d.model,
        macAddress: d.macAddress,
        // Live switch state, asked per phone: a snapshot of the whole switch read every tenant's
        // devices and calls (issue 19).
        registered: s.runtime.switch.isRegistered(d.id),
        lineCount: d.lineCount,
        acceptsReinvite: d.acceptsReinvite,
        sendsReinvite: d.sendsReinvite,
        siteAssignment: d.siteAssignment ?? 'static',
      };
    },
    // A new phone is logged out until it registers; a basic SIP terminal has two line appearances.
    initial: (w) => ({ registered: false, lineCount: w.model === 'bst' ? 2 : 6 }),
    fromWire: (w) => {
      const out = rename(w, { ownerExtension: 'ownerExt' });
      if (typeof out.macAddress === 'string') out.macAddress = normalMac(out.macAddress);
      return out;
    },
    newId: (s, w) => unusedId(s, 'device', `ph${s.tenantId}-${String(w.ownerExtension)}`),
  });

function checkPhone(s: Scope, rec: Record<string, unknown>, before?: { id: string }): void {
  requireExtension(s.runtime.directory, s.tenantId!, rec.ownerExtension, PERSON, 'ownerExtension');
  const mac = normalMac(String(rec.macAddress));
  const clash = s.runtime.directory.list('device').find((d) => d.macAddress === mac && d.id !== before?.id);
  if (clash)
    throw conflict('MAC_IN_USE', `MAC address ${mac} is already provisioned.`, [
      { type: 'field', value: 'macAddress' },
    ]);
}

const phones = tenantCollection({
  name: 'phones',
  segment: 'phones',
  idField: 'phoneId',
  ownerField: 'ownerExtension',
  fields: phoneFields,
  summary: ['phoneId', 'ownerExtension', 'model', 'registered'],
  rules: { read: CONFIG_U, create: CONFIG, update: CONFIG, remove: CONFIG },
  backing: phoneBacking(),
  check(s, rec, before) {
    checkPhone(s, rec, before);
  },
});

/**
 * The phones of one extension as the phone resource renders them: the one representation of a
 * phone, embedded in users and extensions and listed as a user's phones.
 */
export function phonesOf(s: Scope, ext: string): Entity[] {
  const rows = s.runtime.directory
    .devicesOf(s.tenantId!, ext)
    .map((d) => phones.backing.get(s, d.id))
    .filter((r): r is Row => r !== undefined);
  return rows.map((r) => rowEntity(phones, s, r));
}

/** What `filter` may name on a phone. */
export const phoneFilterSchema = () => listSchema(phones);

const userPhones: CollectionDef = {
  ...phones,
  name: 'userPhones',
  listPath: `${T}/users/:extension/phones`,
  itemRoutesElsewhere: true,
  listGetElsewhere: true,
  rules: { read: ['TA', 'U', 'UT:TBAM', 'ST:TBAM'] },
  backing: phoneBacking((d, s) => d.ownerExt === s.params.extension),
};

const dids = tenantCollection({
  name: 'dids',
  segment: 'dids',
  idField: 'didId',
  fields: {
    number: f.str({ required: true, ...PATTERNS.e164 }),
    extension: f.str({ required: true, ...PATTERNS.digits }),
  },
  summary: ['didId', 'number', 'extension'],
  backing: jsonKindBacking({
    kind: 'did',
    idField: 'didId',
    tenantScoped: true,
    toWire: (e) => ({ number: (e as unknown as Did).number, extension: (e as unknown as Did).targetExt }),
    fromWire: (w) => rename(w, { extension: 'targetExt' }),
    newId: (s, w) => unusedId(s, 'did', `did-${s.tenantId}-${String(w.number).replace(/\D/g, '')}`),
  }),
  check(s, rec, before) {
    const dir = s.runtime.directory;
    requireExtension(
      dir,
      s.tenantId!,
      rec.extension,
      ['userExt', 'locationExt', 'acdExt', 'groupExt', 'autoAttendantExt'],
      'extension',
    );
    const clash = dir.didByNumber(String(rec.number));
    if (clash && clash.id !== before?.id)
      throw conflict('DID_IN_USE', `${String(rec.number)} is already provisioned.`, [
        { type: 'field', value: 'number' },
      ]);
  },
});

const parkLocationRanges = tenantCollection({
  name: 'parkLocationRanges',
  segment: 'parklocationranges',
  idField: 'parkLocationRangeId',
  fields: {
    first: f.int({ required: true, min: 1, max: 999 }),
    last: f.int({ required: true, min: 1, max: 999 }),
    rangeType: f.enum('parkLocationRange', { default: 'tenant' }),
    algorithm: f.enum('callparkLocationAlgorithm', { default: 'firstAvailable' }),
  },
  summary: ['parkLocationRangeId', 'first', 'last'],
  backing: jsonKindBacking({
    kind: 'parkRange',
    idField: 'parkLocationRangeId',
    tenantScoped: true,
    newId: (s) => nextNumericId(s.runtime.directory, 'parkRange', `park-${s.tenantId}-`),
  }),
  check(s, rec, before) {
    const first = rec.first as number;
    const last = rec.last as number;
    if (first > last) throw fieldError('last', 'must not be below first');
    const overlap = s.runtime.directory
      .list('parkRange', s.tenantId)
      .find((r) => r.id !== before?.id && r.first <= last && first <= r.last);
    if (overlap) throw fieldError('first', `overlaps park location range ${overlap.first}-${overlap.last}`);
  },
});

function sites(kind: 'static' | 'dynamic'): CollectionDef {
  return tenantCollection({
    name: `${kind}Sites`,
    segment: `${kind}sites`,
    idField: 'siteId',
    fields: {
      name: f.str({ required: true }),
      address: f.str({ default: '' }),
      timezone: f.str({ default: 'UTC' }),
      emergencyCallbackNumber: f.str(PATTERNS.number),
      ...(kind === 'dynamic' ? { subnet: f.str({ required: true, ...PATTERNS.cidr }) } : {}),
      zoneId: f.str(),
    },
    backing: jsonKindBacking({
      kind: 'site',
      idField: 'siteId',
      tenantScoped: true,
      select: (e) => e.kind === kind,
      toWire: ({ id: _i, tenantId: _t, kind: _k, ...rest }) => rest,
      fromWire: (w) => ({ ...w, kind }),
      newId: (s) => nextNumericId(s.runtime.directory, 'site', `site-${s.tenantId}-`),
    }),
  });
}

// ---- generic tenant records --------------------------------------------------------------

const tenantJson = (
  name: string,
  kind: string,
  segment: string,
  idField: string,
  fields: Fields,
  who = CONFIG,
) =>
  tenantCollection({
    name,
    segment,
    idField,
    fields,
    rules: { read: who, create: who, update: who, remove: who },
    backing: jsonKindBacking({ kind, idField, tenantScoped: true }),
  });

const DAY = {
  pattern: /^(mon|tue|wed|thu|fri|sat|sun)$/,
  hint: 'mon, tue, wed, thu, fri, sat or sun',
  oneOf: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
};

const businessHours = tenantJson(
  'businessHoursProfiles',
  'businessHoursProfile',
  'businesshours',
  'businessHourId',
  {
    name: f.str({ required: true }),
    timezone: f.str({ default: 'UTC' }),
    schedule: f.list(
      f.obj({
        day: f.str({ required: true, ...DAY }),
        open: f.str({ required: true, ...PATTERNS.time }),
        close: f.str({ required: true, ...PATTERNS.time }),
      }),
      { default: [] },
    ),
    holidays: f.list(f.str({ pattern: /^\d{4}-\d{2}-\d{2}$/, hint: 'a date YYYY-MM-DD' }), { default: [] }),
  },
);

const keyProfiles = tenantJson('keyProfiles', 'keyProfile', 'keyprofiles', 'keyProfileId', {
  name: f.str({ required: true }),
  phoneModel: f.str({ required: true, ...choice(PHONE_MODELS) }),
  blfRingTone: f.enum('phoneModelABlfRingToneType', { default: 'beep' }),
  keys: f.list(
    f.obj({
      keyNumber: f.int({ required: true, min: 1, max: 100 }),
      featureType: f.enum('keyFeatureDataType', { required: true }),
      featureData: f.str(),
      label: f.str(),
    }),
    { default: [] },
  ),
});

const callPermissionProfiles = tenantJson(
  'callPermissionProfiles',
  'callPermissionProfile',
  'callpermissionprofiles',
  'callPermissionProfileId',
  {
    name: f.str({ required: true }),
    classOfService: f.enum('classOfService', { required: true }),
    allowedDestinations: f.list(f.enum('callDestinationType'), {
      default: ['internal', 'local', 'emergency'],
    }),
    blockedPrefixes: f.list(f.str(PATTERNS.prefix), { default: [] }),
  },
);

const externalContacts = tenantJson(
  'externalContacts',
  'externalContact',
  'externalcontacts',
  'externalContactId',
  {
    firstName: f.str({ default: '' }),
    lastName: f.str({ required: true }),
    company: f.str({ default: '' }),
    phoneNumber: f.str({ required: true, ...PATTERNS.number }),
    email: f.str({ pattern: /^[^@\s]+@[^@\s]+$/, hint: 'an e-mail address' }),
  },
  ['TA', 'U'],
);

const phoneModels = tenantCollection({
  name: 'phoneModels',
  segment: 'phonemodels',
  idField: 'model',
  fields: {
    name: f.str({ readOnly: true }),
    proprietary: f.bool({ readOnly: true }),
    lineCount: f.int({ readOnly: true }),
  },
  rules: { read: ['U', 'TA', 'UT:TBAM', 'ST:TBAM'] },
  backing: staticBacking((s) =>
    PHONE_MODELS.map((m) => ({
      id: m,
      props: {
        model: m,
        tenantId: s.tenantId,
        name: m === 'bst' ? 'Basic SIP terminal' : m,
        proprietary: m !== 'bst',
        lineCount: m === 'bst' ? 2 : 6,
      },
    })),
  ),
});

/**
 * Users and locations embed their phones and link their extension and phone list: the one
 * representation of a user, for GET, the users list expanded, and the answers to POST and PUT.
 */
function withPhones(def: CollectionDef): CollectionDef {
  const own = def.links;
  return {
    ...def,
    links: (row, s) => {
      // Only the two path parameters: spreading the whole row for each link showed in the profile.
      const params = { tenantId: row.props.tenantId as number | undefined, extension: row.id };
      return {
        ...own?.(row, s),
        'v1:extension': link(hrefOf(`${T}/extensions/:extension`, params)),
        'v1:userPhones': link(hrefOf(`${T}/users/:extension/phones`, params)),
      };
    },
    children: {
      phones: { schema: Type.Array(UserPhoneSchema), of: (row, s) => phonesOf(s, row.id) },
    },
  };
}

/** The collections of a tenant, linked from the tenant resource. */
export const TENANT_COLLECTIONS: Record<string, CollectionDef> = {
  users: withPhones(users),
  locations: withPhones(locations),
  callGroups,
  acds,
  autoAttendants,
  phones,
  userPhones,
  dids,
  parkLocationRanges,
  staticSites: sites('static'),
  dynamicSites: sites('dynamic'),
  businessHoursProfiles: businessHours,
  keyProfiles,
  callPermissionProfiles,
  externalContacts,
  phoneModels,
};

/** Links from a tenant to the collections the requester may read (also for the voice API's tenant view). */
export const tenantCollectionLinks = (tenantId: number | string, principal: Principal): Links =>
  collectionLinksOf(principal, String(tenantId));
const collectionLinksOf = perPrincipal((principal: Principal, tenantId: string): Links => {
  const links: Links = {};
  for (const [rel, def] of Object.entries(TENANT_COLLECTIONS)) {
    if (def === userPhones || !allows(principal, def.rules.list ?? def.rules.read)) continue;
    links[`v1:${rel}`] = link(hrefOf(def.listPath, { tenantId }));
  }
  return links;
});

export const tenants: CollectionDef = {
  name: 'tenants',
  listPath: '/v1/tenants',
  itemPath: '/v1/tenants/:tenantId',
  idField: 'tenantId',
  fields: {
    tenantId: f.int({ min: 1, max: 99_999_999 }),
    name: f.str({ required: true }),
    active: f.bool({ default: true }),
    did: f.str(PATTERNS.e164),
    webLoginUrl: f.str({ ...PATTERNS.host }),
    emergencyNumbers: f.list(f.str(PATTERNS.digits)),
    parkRecallSeconds: f.int({ min: 10, max: 3600 }),
    timezone: f.str(),
  },
  summary: ['tenantId', 'name', 'active'],
  rules: {
    list: ['UT:TBAM'],
    read: ['UT:TBAM', 'ST:TBAM', 'ST:CC', 'TA'],
    create: ['UT:TBAM'],
    update: ['UT:TBAM', 'ST:TBAM'],
    remove: ['UT:TBAM'],
  },
  backing: tenantBacking,
  // The one representation of a tenant (GET, the list expanded, POST and PUT answers).
  links: (row, s) => ({
    'v1:extensions': link(hrefOf(`${T}/extensions`, { tenantId: row.id })),
    ...tenantCollectionLinks(row.id, s.principal),
  }),
};
