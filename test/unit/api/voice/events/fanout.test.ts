import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventKeys } from '../../../../../src/api/voice/events/fanout.js';
import { eventBody, framer } from '../../../../../src/api/voice/events/frames.js';
import {
  SubscriptionIndex,
  type SubscriptionSet,
} from '../../../../../src/api/voice/events/subscriptions.js';
import type { Principal } from '../../../../../src/core/permissions.js';
import { demoWorld } from '../../../../../src/directory/demo-world.js';
import { Directory } from '../../../../../src/directory/directory.js';
import type { CallEvent } from '../../../../../src/switch/types.js';

const directory = await Directory.load({
  loadAll: async () => demoWorld(),
  load: async () => [],
  upsert: async () => {},
  insert: async () => true,
  remove: async () => {},
  replaceAll: async () => {},
});

const owner: Principal = {
  id: 'ext:1001:100',
  authority: 'tenantAdmin',
  username: '100@1001',
  tenantId: 1001,
  ext: '100',
  telcoPermissions: [],
  callControl: true,
  ccPermissions: [],
};

function set(
  id: string,
  accounts: Partial<Record<'call' | 'presence' | 'park', string[]>>,
  extra: Partial<SubscriptionSet> = {},
) {
  const got: string[] = [];
  const s: SubscriptionSet = {
    id,
    webSocketId: 'ws',
    tenantId: 1001,
    owner,
    accounts: {
      call: new Set(accounts.call ?? []),
      presence: new Set(accounts.presence ?? []),
      park: new Set(accounts.park ?? []),
    },
    parkScope: 'set',
    deliver: (f) => got.push(f),
    ...extra,
  };
  return { s, got };
}

const call = (observed: string, tenantId = 1001): CallEvent => ({
  type: 'call',
  name: 'ringback',
  tenantId,
  observed,
  callObserverId: '16',
  smdrCallId: '0',
  at: 0,
  fields: {},
});

describe('event index', () => {
  test('keys of an event: the account, ALL, ALL_USERS for users, the group token by extension type', () => {
    assert.deepEqual(eventKeys(call('101@1001'), directory), [
      'call|101@1001',
      'call|ALL@1001',
      'call|ALL_USERS@1001',
    ]);
    assert.deepEqual(eventKeys(call('500@1001'), directory), [
      'call|500@1001',
      'call|ALL@1001',
      'call|ALL_ACD_EXTENSIONS@1001',
    ]);
    assert.deepEqual(eventKeys(call('600@1001'), directory), [
      'call|600@1001',
      'call|ALL@1001',
      'call|ALL_CALL_GROUP_EXTENSIONS@1001',
    ]);
    assert.deepEqual(eventKeys(call('700@1001'), directory), [
      'call|700@1001',
      'call|ALL@1001',
      'call|ALL_AA_EXTENSIONS@1001',
    ]);
    assert.deepEqual(
      eventKeys(
        { type: 'parkLocation', name: 'idle', tenantId: 1001, observed: 'PL2@1001', at: 0 },
        directory,
      ),
      ['park|PL2@1001', 'park|ALL@1001'],
    );
  });

  test('sets are found by account or token, once each, and forgotten on remove', () => {
    const idx = new SubscriptionIndex();
    const a = set('a', { call: ['101@1001', 'ALL'] });
    const b = set('b', { call: ['ALL_ACD_EXTENSIONS'] });
    const c = set('c', { presence: ['101@1001'] });
    const d = set('d', {}, { parkScope: 'all' });
    for (const x of [a, b, c, d]) idx.update(x.s);
    const ids = (keys: string[]) => [...idx.collect(keys)].map((x) => x.id).sort();
    assert.deepEqual(ids(eventKeys(call('101@1001'), directory)), ['a']);
    assert.deepEqual(ids(eventKeys(call('501@1001'), directory)), ['a', 'b']);
    assert.deepEqual(ids(eventKeys(call('201@1002', 1002), directory)), []);
    assert.deepEqual(ids(['park|PL1@1001', 'park|ALL@1001']), ['d']);
    a.s.accounts.call = new Set(['102@1001']);
    idx.update(a.s);
    assert.deepEqual(ids(eventKeys(call('101@1001'), directory)), []);
    idx.remove(b.s);
    assert.deepEqual(ids(eventKeys(call('501@1001'), directory)), []);
  });

  test('emergency keys: all sites, or the owner’s site', () => {
    const idx = new SubscriptionIndex();
    const all = set('all', {}, { emergencyAllSites: true });
    const site = set('site', {}, { emergencyAllSites: false });
    const none = set('none', {});
    idx.update(all.s);
    idx.update(site.s, 'site-1001-hq');
    idx.update(none.s);
    const e = {
      type: 'emergency' as const,
      tenantId: 1001,
      observed: '103@1001',
      callObserverId: '1',
      smdrCallId: '1',
      from: '103',
      to: '911',
      siteId: 'site-1001-hq',
      siteName: 'Acme HQ',
      at: 0,
    };
    assert.deepEqual([...idx.collect(eventKeys(e, directory))].map((x) => x.id).sort(), ['all', 'site']);
  });
});

describe('event frames', () => {
  test('callId is a number, durations are ISO 8601, the set id leads', () => {
    const end: CallEvent = {
      type: 'call',
      name: 'end',
      tenantId: 1001,
      observed: '101@1001',
      callObserverId: '28723576573328016',
      smdrCallId: '28723576573328000',
      at: Date.UTC(2026, 0, 5, 9, 0, 1, 500),
      fields: {
        from: '101',
        to: '102',
        endingParty: '102@1001',
        endReason: 'normal',
        callDurationMs: 3_723_000,
      },
    };
    const body = eventBody(end);
    assert.equal(body.callId, 28723576573328016);
    assert.equal(body.callDuration, 'PT1H2M3S');
    assert.equal('callDurationMs' in body, false);
    assert.equal(body.timestamp, '2026-01-05T09:00:01.500+00:00');
    const frame = framer(end)('set-1');
    assert.ok(frame.startsWith('{"subscriptionSetId":"set-1","event":"end",'));
    assert.deepEqual(JSON.parse(frame), { subscriptionSetId: 'set-1', ...body });
  });

  test('presence and park frames carry only their fields', () => {
    assert.deepEqual(
      eventBody({ type: 'presence', name: 'dndOn', tenantId: 1001, observed: '101@1001', at: 0 }),
      {
        event: 'dndOn',
        observedParty: '101@1001',
        timestamp: '1970-01-01T00:00:00.000+00:00',
        version: 'v1',
      },
    );
    const left = eventBody({
      type: 'presence',
      name: 'leftGroup',
      tenantId: 1001,
      observed: '101@1001',
      at: 0,
      groupLeft: '600@1001',
    });
    assert.equal(left.groupLeft, '600@1001');
    const idle = eventBody({
      type: 'parkLocation',
      name: 'idle',
      tenantId: 1001,
      observed: 'PL1@1001',
      at: 0,
      parkedParty: 'x',
    });
    assert.equal('parkedParty' in idle, false);
  });
});
