/**
 * A tenant's main DID and login URL each name one tenant at login (`101@<DID>.DID`, `.URI`). A
 * DID is found with and without its North American country code, so two tenants may not hold
 * one DID under its two spellings: the later would shadow the other at every login.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { ADMIN, call } from './provisioning-helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.stop());

const newTenant = (fields: object) =>
  call(s, 'POST', '/api/v1/tenants', ADMIN, { name: 'Initech', ...fields });

test('a main DID or login URL another tenant holds is refused 409, under any spelling', async () => {
  let r = await newTenant({ did: '+15555550100' }); // Acme's main DID
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal((r.body as { errorCode: string }).errorCode, 'DID_IN_USE');
  r = await newTenant({ webLoginUrl: 'ACME.example.test' });
  assert.equal((r.body as { errorCode: string }).errorCode, 'URL_IN_USE');

  // Acme's DID written without its country code; the new tenant asks for it with one.
  r = await call(s, 'PUT', '/api/v1/tenants/1001', ADMIN, { did: '+5555550177' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  r = await newTenant({ did: '+15555550177' });
  assert.equal(r.status, 409, 'the same DID at login');
  assert.equal((r.body as { errorCode: string }).errorCode, 'DID_IN_USE');
  // And the other way round.
  r = await call(s, 'PUT', '/api/v1/tenants/1001', ADMIN, { did: '+15555550188' });
  assert.equal(r.status, 200);
  r = await newTenant({ did: '+5555550188' });
  assert.equal(r.status, 409);
  assert.equal((await newTenant({ did: '+15555550199' })).status, 201, 'a free one is taken');
});
