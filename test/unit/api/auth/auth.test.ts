import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createAuthenticator,
  LockedOutError,
  parseBasic,
  UnauthorizedError,
} from '../../../../src/api/auth/index.js';
import { dummySecretHash, hashSecret, sha256, verifySecret } from '../../../../src/core/secrets.js';
import { demoWorld } from '../../../../src/directory/demo-world.js';
import { Directory, type EntityStore } from '../../../../src/directory/directory.js';
import type { Extension } from '../../../../src/directory/model.js';
import { DEFAULTS } from '../../../../src/server/config.js';

const memoryStore = (): EntityStore => ({
  loadAll: async () => demoWorld(),
  load: async () => [],
  upsert: async () => {},
  insert: async () => true,
  remove: async () => {},
  replaceAll: async () => {},
});

async function setup(overrides: Partial<typeof DEFAULTS> = {}) {
  const directory = await Directory.load(memoryStore());
  const hooks: (() => void)[] = [];
  let now = 1_000_000;
  const config = { ...DEFAULTS, ...overrides };
  /** The hashes each verification was asked to check against, in order. */
  const checked: string[] = [];
  const auth = createAuthenticator(
    { directory, config, onReset: (h) => hooks.push(h as () => void) },
    {
      now: () => now,
      verify: (secret, hash) => {
        checked.push(hash);
        return verifySecret(secret, hash);
      },
    },
  );
  return { directory, auth, hooks, checked, advance: (ms: number) => (now += ms) };
}

describe('authenticator', () => {
  test('every username form resolves to the same tenant user', async () => {
    const { auth } = await setup();
    for (const u of [
      '101@1001',
      '101@1001.ID',
      '101@5555550100.DID',
      '101@15555550100.DID',
      '101@acme.example.test.URI',
    ]) {
      const p = await auth.authenticate(u, '1234', '10.0.0.1');
      assert.equal(p.authority, 'user', u);
      assert.equal(p.tenantId, 1001, u);
      assert.equal(p.ext, '101', u);
      assert.ok(p.ccPermissions.includes('Agent Events'), u);
    }
  });

  test('lowercase suffixes and unknown domains are refused', async () => {
    const { auth } = await setup({ lockoutFailures: 100 });
    for (const u of [
      '101@1001.id',
      '101@5555550100.did',
      '101@nowhere.example.URI',
      '101@9999',
      '999@1001',
    ]) {
      await assert.rejects(auth.authenticate(u, '1234', '10.0.0.1'), UnauthorizedError, u);
    }
  });

  test('authorities: admin, location, telco, scoped telco', async () => {
    const { auth } = await setup();
    assert.equal((await auth.authenticate('100@1001', '1234', 'a')).authority, 'tenantAdmin');
    assert.equal((await auth.authenticate('150@1001', '1234', 'a')).authority, 'location');
    const admin = await auth.authenticate('admin', 'admin', 'a');
    assert.equal(admin.authority, 'telco');
    assert.equal(admin.tenantId, undefined);
    const op = await auth.authenticate('operator', 'operator', 'a');
    assert.equal(op.authority, 'scopedTelco');
    assert.equal(op.tenantId, 1001);
    assert.equal(op.callControl, true);
  });

  test('wrong PIN is refused; a PIN change drops the cached credential', async () => {
    const { auth, directory } = await setup({ lockoutFailures: 100 });
    await assert.rejects(auth.authenticate('101@1001', '9999', 'a'), UnauthorizedError);
    await auth.authenticate('101@1001', '1234', 'a');
    const ext = directory.extension(1001, '101') as Extension;
    await directory.put('extension', { ...ext, pinHash: hashSecret('4321') });
    await assert.rejects(auth.authenticate('101@1001', '1234', 'a'), UnauthorizedError);
    assert.equal((await auth.authenticate('101@1001', '4321', 'a')).ext, '101');
  });

  test('disabled users and inactive tenants are refused even when cached', async () => {
    const { auth, directory } = await setup({ lockoutFailures: 100 });
    await auth.authenticate('102@1001', '1234', 'a');
    const ext = directory.extension(1001, '102') as Extension;
    await directory.put('extension', { ...ext, enabled: false });
    await assert.rejects(auth.authenticate('102@1001', '1234', 'a'), UnauthorizedError);
    await auth.authenticate('200@1002', '1234', 'a');
    await auth.authenticate('operator', 'operator', 'a');
    await directory.put('tenant', { ...directory.tenant(1002)!, active: false });
    await assert.rejects(auth.authenticate('200@1002', '1234', 'a'), UnauthorizedError);
    await directory.put('tenant', { ...directory.tenant(1001)!, active: false });
    await assert.rejects(auth.authenticate('operator', 'operator', 'a'), UnauthorizedError);
  });

  test('lock-out per (username, IP), even with the right PIN; expires; cleared by reset', async () => {
    const { auth, advance, hooks } = await setup({
      lockoutFailures: 3,
      lockoutWindowMs: 60_000,
      lockoutPeriodMs: 120_000,
    });
    await auth.authenticate('101@1001', '1234', 'ip1'); // cached before the failures
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip1'), UnauthorizedError);
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip1'), UnauthorizedError);
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip1'), LockedOutError);
    await assert.rejects(
      auth.authenticate('101@1001', '1234', 'ip1'),
      (e: unknown) => e instanceof LockedOutError && e.retryAfterSeconds === 120,
    );
    assert.equal((await auth.authenticate('101@1001', '1234', 'ip2')).ext, '101');
    assert.equal((await auth.authenticate('102@1001', '1234', 'ip1')).ext, '102');
    advance(119_000);
    await assert.rejects(auth.authenticate('101@1001', '1234', 'ip1'), LockedOutError);
    advance(2_000);
    assert.equal((await auth.authenticate('101@1001', '1234', 'ip1')).ext, '101');
    for (let i = 0; i < 3; i++) await assert.rejects(auth.authenticate('103@1001', 'x', 'ip1'));
    await assert.rejects(auth.authenticate('103@1001', '1234', 'ip1'), LockedOutError);
    for (const h of hooks) h();
    assert.equal((await auth.authenticate('103@1001', '1234', 'ip1')).ext, '103');
  });

  test('failures outside the window do not add up', async () => {
    const { auth, advance } = await setup({ lockoutFailures: 3, lockoutWindowMs: 60_000 });
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip'), UnauthorizedError);
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip'), UnauthorizedError);
    advance(61_000);
    await assert.rejects(auth.authenticate('101@1001', 'x', 'ip'), UnauthorizedError);
    assert.equal((await auth.authenticate('101@1001', '1234', 'ip')).ext, '101');
  });

  test('a successful login in between does not forget failures within the window', async () => {
    const { auth } = await setup({ lockoutFailures: 3, lockoutWindowMs: 60_000 });
    await assert.rejects(auth.authenticate('104@1001', 'x', 'ip'), UnauthorizedError);
    assert.equal((await auth.authenticate('104@1001', '1234', 'ip')).ext, '104'); // first, uncached success
    await assert.rejects(auth.authenticate('104@1001', 'x', 'ip'), UnauthorizedError);
    await assert.rejects(auth.authenticate('104@1001', 'x', 'ip'), LockedOutError);
    await assert.rejects(auth.authenticate('104@1001', '1234', 'ip'), LockedOutError);
  });

  test('a Basic header seen before is a lookup that still honours lock-outs and directory changes', async () => {
    const { auth, directory } = await setup({ lockoutFailures: 3, lockoutWindowMs: 60_000 });
    const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;
    const header = basic('101@1001:1234');
    const digest = sha256(header);
    // The REST hook's order: the cache, then verification.
    const authenticateBasic = async (h: string, d: string, ip: string) =>
      auth.cachedBasic(d, ip) ?? auth.verifyBasic(h, d, ip);
    assert.equal(await authenticateBasic('Bearer abc', sha256('Bearer abc'), 'ip'), null);
    assert.equal((await authenticateBasic(header, digest, 'ip'))?.ext, '101');
    assert.equal((await authenticateBasic(header, digest, 'ip'))?.ext, '101');
    const wrong = basic('101@1001:9999');
    await assert.rejects(authenticateBasic(wrong, sha256(wrong), 'ip'), UnauthorizedError);
    await assert.rejects(authenticateBasic(wrong, sha256(wrong), 'ip'), UnauthorizedError);
    await assert.rejects(authenticateBasic(wrong, sha256(wrong), 'ip'), LockedOutError);
    await assert.rejects(authenticateBasic(header, digest, 'ip'), LockedOutError);
    assert.equal((await authenticateBasic(header, digest, 'other ip'))?.ext, '101');
    const ext = directory.extension(1001, '101') as Extension;
    await directory.put('extension', { ...ext, enabled: false });
    await assert.rejects(authenticateBasic(header, digest, 'other ip'), UnauthorizedError);
  });

  test('an unknown user costs the same key derivation as a wrong PIN: the dummy hash', async () => {
    const { auth, directory, checked } = await setup({ lockoutFailures: 100 });
    await assert.rejects(auth.authenticate('999@1001', '1234', 'a'), UnauthorizedError);
    await assert.rejects(auth.authenticate('nobody', 'x', 'a'), UnauthorizedError);
    await assert.rejects(auth.authenticate('101@1001', '9999', 'a'), UnauthorizedError);
    const dummy = await dummySecretHash();
    const pinHash = (directory.extension(1001, '101') as Extension).pinHash as string;
    assert.deepEqual(checked, [dummy, dummy, pinHash]);
    // Same scheme and cost parameters (N, r, p) as a stored hash.
    const params = (h: string) => h.split('$').slice(0, 4).join('$');
    assert.equal(params(dummy), params(pinHash));
    assert.equal(auth.derivations(), 3);
    // A disabled user is checked against the dummy hash too; a cached credential costs nothing.
    await auth.authenticate('102@1001', '1234', 'a');
    await auth.authenticate('102@1001', '1234', 'a');
    assert.equal(auth.derivations(), 4);
    await directory.put('extension', { ...(directory.extension(1001, '102') as Extension), enabled: false });
    await assert.rejects(auth.authenticate('102@1001', '1234', 'a'), UnauthorizedError);
    assert.equal(checked.at(-1), dummy);
  });

  test('the key derivation runs off the event loop', async () => {
    const { auth } = await setup({ lockoutFailures: 100 });
    await dummySecretHash();
    let settled = false;
    const pending = auth
      .authenticate('101@1001', '9999', 'a')
      .catch(() => {})
      .finally(() => (settled = true));
    // With scryptSync the verification would have finished before the loop turned once.
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    await pending;
  });

  test('parallel guesses of one principal cannot all pass the lock-out check', async () => {
    const { auth, checked } = await setup({ lockoutFailures: 3 });
    const spellings = ['103@1001', '103@01001', '103@1001.ID', '103@5555550100.DID'];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => auth.authenticate(spellings[i % 4], `wrong${i}`, 'ip')),
    );
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? o.reason.constructor.name : 'ok'));
    assert.deepEqual(reasons.filter((r) => r === 'UnauthorizedError').length, 2);
    assert.deepEqual(reasons.filter((r) => r === 'LockedOutError').length, 10);
    // Only the 3 guesses before the lock cost a derivation.
    assert.equal(checked.length, 3);
  });

  test('parseBasic', () => {
    const h = `Basic ${Buffer.from('101@1001:12:34').toString('base64')}`;
    assert.deepEqual(parseBasic(h), { username: '101@1001', secret: '12:34' });
    assert.equal(parseBasic('Bearer abc'), null);
    assert.equal(parseBasic(undefined), null);
  });
});
