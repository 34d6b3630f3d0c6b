import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, call } from './provisioning-helpers.js';

test('what provisioning writes survives a restart on the same database', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-prov-'));
  const db = join(dir, 'same.db');
  try {
    const first = await startTestServer({ db });
    try {
      assert.equal((await call(first, 'POST', '/api/v1/zones', ADMIN, { name: 'Durable zone' })).status, 201);
      const user = await call(first, 'POST', '/api/v1/tenants/1001/users', ALICE, {
        extension: '140',
        firstName: 'Dora',
        pin: '1357',
      });
      assert.equal(user.status, 201, user.text);
      assert.equal(
        (await call(first, 'PUT', '/api/v1/tenants/1001/callinggroups/600', ALICE, { members: ['103'] }))
          .status,
        200,
      );
      assert.equal(
        (await call(first, 'PUT', '/api/v1/systemproperties', ADMIN, { systemName: 'Durable' })).status,
        200,
      );
      assert.equal((await call(first, 'PUT', '/api/v1/tenants/1002', ADMIN, { active: false })).status, 200);
      assert.equal((await call(first, 'DELETE', '/api/v1/phoneaccessentries/1', ADMIN)).status, 200);
    } finally {
      await first.stop();
    }

    const second = await startTestServer({ db });
    try {
      const zones = await call(second, 'GET', '/api/v1/zones?filter=eq(name,Durable%20zone)', ADMIN);
      assert.equal(zones.body._embedded.zones.length, 1);
      assert.equal(
        (await call(second, 'GET', '/api/v1', '140@1001:1357')).status,
        200,
        'the new user and PIN',
      );
      const group = await call(second, 'GET', '/api/v1/tenants/1001/callinggroups/600', ALICE);
      assert.deepEqual(group.body.members, ['103']);
      assert.equal((await call(second, 'GET', '/api/v1/systemproperties', ADMIN)).body.systemName, 'Durable');
      assert.equal((await call(second, 'GET', '/api/v1', '200@1002:1234')).status, 401, 'still inactive');
      assert.equal(
        (await call(second, 'GET', '/api/v1/phoneaccessentries/1', ADMIN)).status,
        404,
        'still deleted',
      );
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
