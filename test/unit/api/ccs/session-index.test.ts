import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionIndex } from '../../../../src/api/ccs/session-index.js';
import type { Authority, Principal } from '../../../../src/core/permissions.js';

const session = (name: string, authority: Authority, tenantId?: number) => ({
  name,
  principal: {
    id: name,
    authority,
    username: name,
    tenantId,
    telcoPermissions: [],
    callControl: false,
    ccPermissions: [],
  } satisfies Principal,
});

test("an event's audience is its tenant's sockets and the unscoped telco users', not the others'", () => {
  const index = new SessionIndex<ReturnType<typeof session>>();
  const all = [
    session('admin', 'telco'),
    session('100@1001', 'tenantAdmin', 1001),
    session('operator', 'scopedTelco', 1001),
    session('101@1001', 'user', 1001),
    session('200@1002', 'tenantAdmin', 1002),
  ];
  for (const s of all) index.add(s);
  const names = (tenantId: number) => [...index.audience(tenantId)].map((s) => s.name);
  assert.deepEqual(names(1001), ['100@1001', 'operator', '101@1001', 'admin']);
  assert.deepEqual(names(1002), ['200@1002', 'admin']);
  assert.deepEqual(names(1003), ['admin']);
  assert.equal(index.size, 5);

  assert.equal(index.delete(all[3]), true);
  assert.equal(index.delete(all[3]), false, 'gone already');
  assert.equal(index.delete(all[0]), true);
  assert.deepEqual(names(1001), ['100@1001', 'operator']);
  assert.deepEqual(names(1003), []);
  assert.deepEqual(
    [...index.values()].map((s) => s.name),
    ['100@1001', 'operator', '200@1002'],
  );
  assert.equal(index.size, 3);
});
