import type { AutoAttendantAction, ExtensionType, RecordingType } from '../../../directory/model.js';
import { RECORDING_TYPES } from '../../../directory/model.js';
import type { Scope } from './backing.js';
import { PATTERNS, f } from './fields.js';
import {
  CONFIG,
  CONFIG_U,
  PERSON,
  checkMembers,
  checkSite,
  choice,
  extensionCollection,
  fieldError,
  requireExtension,
} from './tenant-collection.js';

/**
 * Users, locations, call groups, ACDs and auto attendants: views of the directory's `extension`
 * entities, which the switch routes to (group membership changes raise joinedGroup/leftGroup there).
 */
// ---- users and locations ----------------------------------------------------------------

export const users = extensionCollection({
  name: 'users',
  segment: 'users',
  ownerField: 'extension',
  fields: {
    firstName: f.str({ required: true, adminOnly: true }),
    lastName: f.str({ default: '', adminOnly: true }),
    name: f.str({ readOnly: true, always: true }),
    pin: f.str({ required: true, writeOnly: true, ...PATTERNS.pin }),
    admin: f.bool({ default: false, adminOnly: true }),
    dnd: f.bool({ default: false }),
    ringTimeoutSeconds: f.int({ min: 5, max: 120, default: 20 }),
    siteId: f.str({ adminOnly: true }),
    clickToCallDeviceId: f.str(),
    confirmBeforeDial: f.bool({ default: false }),
    twinningNumber: f.str(PATTERNS.number),
    isAgent: f.bool({ default: false, adminOnly: true }),
    recordingType: f.str({ default: 'None', adminOnly: true, ...choice(RECORDING_TYPES) }),
  },
  rules: { read: CONFIG_U, create: CONFIG, update: CONFIG_U, remove: CONFIG },
  types: ['userExt'],
  toWire: (e) => ({
    firstName: e.firstName,
    lastName: e.lastName,
    admin: e.admin,
    dnd: e.dnd,
    ringTimeoutSeconds: e.ringTimeoutMs / 1000,
    siteId: e.siteId,
    clickToCallDeviceId: e.clickToCallDeviceId,
    confirmBeforeDial: e.confirmBeforeDial,
    twinningNumber: e.twinningNumber,
    isAgent: e.agent?.isAgent ?? false,
    recordingType: e.agent?.recordingType ?? 'None',
  }),
  apply(e, p) {
    if (typeof p.firstName === 'string') e.firstName = p.firstName;
    if (typeof p.lastName === 'string') e.lastName = p.lastName;
    e.name = [e.firstName, e.lastName].filter(Boolean).join(' ');
    if (typeof p.admin === 'boolean') e.admin = p.admin;
    if (typeof p.dnd === 'boolean') e.dnd = p.dnd;
    if (typeof p.ringTimeoutSeconds === 'number') e.ringTimeoutMs = p.ringTimeoutSeconds * 1000;
    if (p.clickToCallDeviceId !== undefined)
      e.clickToCallDeviceId = (p.clickToCallDeviceId as string) ?? undefined;
    if (typeof p.confirmBeforeDial === 'boolean') e.confirmBeforeDial = p.confirmBeforeDial;
    if (p.twinningNumber !== undefined) e.twinningNumber = (p.twinningNumber as string) ?? undefined;
    if (p.isAgent !== undefined || p.recordingType !== undefined) {
      e.agent = {
        isAgent: false,
        recordingType: 'None',
        monitor: false,
        maxChats: 0,
        multimediaEnabled: false,
        ...e.agent,
      };
      if (typeof p.isAgent === 'boolean') e.agent.isAgent = p.isAgent;
      if (typeof p.recordingType === 'string') e.agent.recordingType = p.recordingType as RecordingType;
    }
  },
  check(s, rec) {
    checkSite(s, rec.siteId);
    const device = rec.clickToCallDeviceId;
    if (typeof device === 'string') {
      const d = s.runtime.directory.device(device);
      if (!d || d.tenantId !== s.tenantId || d.ownerExt !== rec.extension)
        throw fieldError(
          'clickToCallDeviceId',
          `${device} is not a phone of extension ${String(rec.extension)}`,
        );
    }
  },
});

export const locations = extensionCollection({
  name: 'locations',
  segment: 'locations',
  ownerField: 'extension',
  fields: {
    name: f.str({ required: true, adminOnly: true }),
    pin: f.str({ required: true, writeOnly: true, ...PATTERNS.pin }),
    siteId: f.str({ adminOnly: true }),
  },
  rules: { read: CONFIG_U, create: CONFIG, update: CONFIG_U, remove: CONFIG },
  types: ['locationExt'],
  toWire: (e) => ({ siteId: e.siteId }),
  apply: () => {},
  check: (s, rec) => checkSite(s, rec.siteId),
});

// ---- call groups, ACDs, auto attendants --------------------------------------------------

export const callGroups = extensionCollection({
  name: 'callGroups',
  segment: 'callinggroups',
  idField: 'callGroupId',
  fields: {
    name: f.str({ required: true }),
    callGroupType: f.enum('callGroupType', { required: true }),
    members: f.list(f.str(PATTERNS.digits), { default: [] }),
  },
  summary: ['callGroupId', 'name', 'callGroupType'],
  types: ['groupExt'],
  toWire: (e) => ({ callGroupType: e.group?.groupType, members: e.group?.members ?? [] }),
  apply(e, p) {
    e.group ??= { groupType: 'hunt', members: [] };
    if (typeof p.callGroupType === 'string') e.group.groupType = p.callGroupType as typeof e.group.groupType;
    if (Array.isArray(p.members)) e.group.members = p.members as string[];
  },
  check: (s, rec) => checkMembers(s, rec.members, 'members', PERSON),
});

export const acds = extensionCollection({
  name: 'acds',
  segment: 'acds',
  idField: 'acdId',
  fields: {
    name: f.str({ required: true }),
    agents: f.list(f.str(PATTERNS.digits), { default: [] }),
    ringTimeSeconds: f.int({ min: 5, max: 120, default: 15 }),
    maxMissed: f.int({ min: 1, max: 20, default: 3 }),
  },
  summary: ['acdId', 'name'],
  types: ['acdExt'],
  toWire: (e) => ({
    agents: e.acd?.agents ?? [],
    ringTimeSeconds: (e.acd?.ringTimeMs ?? 15_000) / 1000,
    maxMissed: e.acd?.maxMissed ?? 3,
  }),
  apply(e, p) {
    e.acd ??= { agents: [], ringTimeMs: 15_000, maxMissed: 3 };
    if (Array.isArray(p.agents)) e.acd.agents = p.agents as string[];
    if (typeof p.ringTimeSeconds === 'number') e.acd.ringTimeMs = p.ringTimeSeconds * 1000;
    if (typeof p.maxMissed === 'number') e.acd.maxMissed = p.maxMissed;
  },
  check: (s, rec) => checkMembers(s, rec.agents, 'agents', ['userExt']),
});

/** What extension type each auto-attendant action transfers to. */
const ACTION_TARGETS: Record<AutoAttendantAction['action'], readonly ExtensionType[] | undefined> = {
  transferToExtension: PERSON,
  transferToAcd: ['acdExt'],
  transferToGroup: ['groupExt'],
  repeatMenu: undefined,
  disconnect: undefined,
};

const actionSpec = (required: boolean) =>
  f.obj(
    {
      ...(required
        ? { key: f.str({ required: true, pattern: /^[0-9*#]$/, hint: 'one key 0-9, * or #' }) }
        : {}),
      action: f.enum('autoAttendantActionType', { required: true }),
      target: f.str(PATTERNS.digits),
    },
    required ? {} : { default: { action: 'disconnect' } },
  );

function checkAction(s: Scope, a: AutoAttendantAction, field: string): void {
  const types = ACTION_TARGETS[a.action];
  if (types) requireExtension(s.runtime.directory, s.tenantId!, a.target, types, `${field}.target`);
}

export const autoAttendants = extensionCollection({
  name: 'autoAttendants',
  segment: 'autoattendants',
  idField: 'autoAttendantId',
  fields: {
    name: f.str({ required: true }),
    menu: f.list(actionSpec(true), { default: [] }),
    timeoutAction: actionSpec(false),
  },
  summary: ['autoAttendantId', 'name'],
  types: ['autoAttendantExt'],
  toWire: (e) => ({
    menu: Object.entries(e.autoAttendant?.menu ?? {}).map(([key, a]) => ({ key, ...a })),
    timeoutAction: e.autoAttendant?.timeoutAction,
  }),
  apply(e, p) {
    e.autoAttendant ??= { menu: {} };
    if (Array.isArray(p.menu)) {
      e.autoAttendant.menu = Object.fromEntries(
        (p.menu as (AutoAttendantAction & { key: string })[]).map(({ key, ...a }) => [key, a]),
      );
    }
    if (p.timeoutAction !== undefined) e.autoAttendant.timeoutAction = p.timeoutAction as AutoAttendantAction;
  },
  check(s, rec) {
    const menu = (rec.menu ?? []) as (AutoAttendantAction & { key: string })[];
    menu.forEach((a, i) => {
      checkAction(s, a, `menu[${i}]`);
      if (menu.findIndex((b) => b.key === a.key) !== i)
        throw fieldError(`menu[${i}].key`, `key ${a.key} is used twice`);
    });
    if (rec.timeoutAction) checkAction(s, rec.timeoutAction as AutoAttendantAction, 'timeoutAction');
  },
});
