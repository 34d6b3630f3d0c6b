import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory } from '../../../src/directory/directory.js';
import type { StoredEntity } from '../../../src/directory/model.js';
import { scaledTenantId, scaleWorld } from '../../../src/directory/scale-world.js';

const load = (entities: StoredEntity[]) =>
  Directory.load({
    loadAll: async () => entities,
    load: async () => [],
    upsert: async () => {},
    insert: async () => true,
    remove: async () => {},
    replaceAll: async () => {},
  });

test('scale 1 is the demo world', () => {
  assert.deepEqual(scaleWorld(1), demoWorld());
});

test('scale 3: three of each demo tenant, every record of a copy its own, nothing shared or colliding', async () => {
  const demo = demoWorld();
  const world = scaleWorld(3);
  const keys = world.map((e) => `${e.kind}/${e.id}`);
  assert.equal(new Set(keys).size, keys.length, 'no two records share a kind and an id');
  const perTenant = (es: StoredEntity[]) => es.filter((e) => e.tenantId !== null).length;
  assert.equal(perTenant(world), 3 * perTenant(demo));
  assert.equal(world.length - perTenant(world), demo.length - perTenant(demo), 'system records once');

  const d = await load(world);
  assert.deepEqual(
    d.tenants().map((t) => [t.tenantId, t.name]),
    [
      [1001, 'Acme Corp'],
      [1002, 'Globex'],
      [1003, 'Acme Corp 2'],
      [1004, 'Globex 2'],
      [1005, 'Acme Corp 3'],
      [1006, 'Globex 3'],
    ],
  );
  assert.equal(scaledTenantId(1002, 3), 1006);
  const unique = (xs: string[], what: string) => assert.equal(new Set(xs).size, xs.length, what);
  unique(
    d.tenants().map((t) => t.cc.uuid),
    'contact-center uuids',
  );
  unique(
    d.tenants().map((t) => t.webLoginUrl!),
    'web-login names',
  );
  unique(
    d.tenants().map((t) => t.did!),
    'main numbers',
  );
  unique(
    d.list('extension').map((e) => e.uuid),
    'extension uuids',
  );
  unique(
    d.list('device').map((x) => x.macAddress),
    'MAC addresses',
  );
  unique(
    d.list('did').map((x) => x.number),
    'DIDs',
  );

  for (const t of [1003, 1004, 1005, 1006]) {
    const source = t % 2 === 1 ? 1001 : 1002;
    const tenant = d.tenant(t)!;
    assert.equal(d.tenantByDid(tenant.did!)?.tenantId, t);
    assert.equal(d.tenantByCcUuid(tenant.cc.uuid)?.tenantId, t);
    assert.equal(d.tenantByUrl(tenant.webLoginUrl!)?.tenantId, t);
    // The same extensions, phones and settings as the demo tenant, each pointing inside the copy.
    assert.deepEqual(
      d.extensions(t).map((e) => [e.ext, e.type, e.name, e.agent?.recordingType, e.acd?.agents]),
      d.extensions(source).map((e) => [e.ext, e.type, e.name, e.agent?.recordingType, e.acd?.agents]),
    );
    for (const e of d.extensions(t)) {
      assert.equal(d.extensionByUuid(e.uuid)?.tenantId, t);
      if (e.siteId) assert.equal(d.get('site', e.siteId)?.tenantId, t, `${e.id} site`);
      if (e.clickToCallDeviceId) assert.equal(d.device(e.clickToCallDeviceId)?.tenantId, t, `${e.id} phone`);
      assert.deepEqual(
        d.devicesOf(t, e.ext).map((x) => x.model),
        d.devicesOf(source, e.ext).map((x) => x.model),
      );
    }
    for (const did of d.list('did', t)) {
      assert.equal(d.didByNumber(did.number)?.tenantId, t);
      assert.ok(d.extension(t, did.targetExt), `${did.id} rings an extension of its tenant`);
    }
    for (const q of d.outboundQueues(t)) assert.equal(d.didByNumber(q.callerId)?.tenantId, t);
    assert.deepEqual(d.parkLocations(t), d.parkLocations(source));
    assert.deepEqual(
      d.presenceOptions(t).map((o) => o.name),
      d.presenceOptions(source).map((o) => o.name),
    );
    for (const kind of ['businessHoursProfile', 'keyProfile', 'callPermissionProfile', 'externalContact'])
      assert.equal(d.list(kind, t).length, d.list(kind, source).length, kind);
  }
});

test('a scale outside 1..1000 is refused', () => {
  for (const n of [0, 1001, 1.5, Number.NaN]) assert.throws(() => scaleWorld(n), RangeError);
});
