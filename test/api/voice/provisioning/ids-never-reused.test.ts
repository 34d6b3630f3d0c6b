import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, call } from './provisioning-helpers.js';

/**
 * Issue 14: the id of a deleted record is never given to a new one, so a client holding an old
 * self link gets 404 instead of someone else's record, also after a restart on the same database.
 * Each case deletes the record whose id the server would otherwise hand out next.
 */
interface Case {
  name: string;
  auth: string;
  list: string;
  body: (n: number) => Record<string, unknown>;
}

const CASES: Case[] = [
  { name: 'zones (numeric ids)', auth: ADMIN, list: '/api/v1/zones', body: (n) => ({ name: `Zone ${n}` }) },
  {
    name: 'tenants (numeric ids when none is given)',
    auth: ADMIN,
    list: '/api/v1/tenants',
    body: (n) => ({ name: `Tenant ${n}` }),
  },
  {
    name: 'static sites (prefixed numeric ids)',
    auth: ALICE,
    list: '/api/v1/tenants/1001/staticsites',
    body: (n) => ({ name: `Site ${n}` }),
  },
  {
    name: 'phones (ids made from the owner)',
    auth: ALICE,
    list: '/api/v1/tenants/1001/phones',
    body: (n) => ({ ownerExtension: '104', model: 'bst', macAddress: `02:00:00:00:00:0${n}` }),
  },
  {
    name: 'DIDs (ids made from the number)',
    auth: ALICE,
    list: '/api/v1/tenants/1001/dids',
    body: () => ({ number: '+15555550177', extension: '101' }),
  },
];

/** Creates a record, answering its self link. */
async function create(s: TestServer, c: Case, n: number): Promise<string> {
  const r = await call(s, 'POST', c.list, c.auth, c.body(n));
  assert.equal(r.status, 201, `${c.name}: ${r.text}`);
  const self = r.body._links.self.href as string;
  assert.equal(r.headers.get('location'), self);
  return self;
}

async function createAndDelete(s: TestServer, c: Case, n: number): Promise<string> {
  const self = await create(s, c, n);
  assert.equal((await call(s, 'DELETE', self, c.auth)).status, 200, `${c.name}: delete ${self}`);
  assert.equal((await call(s, 'GET', self, c.auth)).status, 404);
  return self;
}

test('a deleted record’s id is never handed out again, across a restart too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-ids-'));
  const db = join(dir, 'ids.db');
  const gone = new Map<string, string[]>();
  try {
    const first = await startTestServer({ db });
    try {
      for (const c of CASES) {
        const old = await createAndDelete(first, c, 1);
        const next = await create(first, c, 2);
        assert.notEqual(next, old, `${c.name}: a new record got the deleted one's id`);
        assert.equal((await call(first, 'GET', old, c.auth)).status, 404, `${c.name}: old link`);
        assert.equal((await call(first, 'DELETE', next, c.auth)).status, 200);
        gone.set(c.name, [old, next]);
      }
    } finally {
      await first.stop();
    }

    const second = await startTestServer({ db });
    try {
      for (const c of CASES) {
        const next = await create(second, c, 3);
        assert.ok(!gone.get(c.name)!.includes(next), `${c.name}: ${next} was used before the restart`);
        for (const old of gone.get(c.name)!)
          assert.equal((await call(second, 'GET', old, c.auth)).status, 404, `${c.name}: ${old}`);
      }
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
