import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashSecret, verifySecret } from '../../../src/core/secrets.js';
import { DEMO_SECRET_HASHES } from '../../../src/directory/demo-secret-hashes.js';
import { DEMO_TELCO_PASSWORDS, demoWorld } from '../../../src/directory/demo-world.js';

/** `scrypt$N$r$p$`: the parameters a hash was made with. */
const params = (hash: string) => hash.split('$').slice(0, 4).join('$');

test('each kept demo hash verifies its public secret, and only it, with the parameters of a new hash', async () => {
  const fresh = params(hashSecret('anything'));
  for (const [secret, hash] of Object.entries(DEMO_SECRET_HASHES)) {
    assert.equal(await verifySecret(secret, hash), true, secret);
    assert.equal(await verifySecret(`${secret}5`, hash), false, secret);
    assert.equal(params(hash), fresh, `${secret}: made with other scrypt parameters than hashSecret's`);
  }
  // The salts are each their own.
  const salts = Object.values(DEMO_SECRET_HASHES).map((h) => h.split('$')[4]);
  assert.equal(new Set(salts).size, salts.length);
});

test("the demo world's PINs and demo passwords carry the kept hashes; an operator's password its own", async () => {
  const world = demoWorld();
  const hashes = (kind: string, field: 'pinHash' | 'passwordHash') =>
    world.filter((e) => e.kind === kind).map((e) => (e.data as Record<string, unknown>)[field]);
  const pins = hashes('extension', 'pinHash').filter((h) => h !== undefined);
  assert.ok(pins.length > 0);
  assert.ok(pins.every((h) => h === DEMO_SECRET_HASHES['1234']));
  assert.deepEqual(hashes('telcoUser', 'passwordHash'), [
    DEMO_SECRET_HASHES[DEMO_TELCO_PASSWORDS.admin],
    DEMO_SECRET_HASHES[DEMO_TELCO_PASSWORDS.operator],
  ]);

  const [admin] = demoWorld({ admin: 's3cret-of-the-operator' }).filter((e) => e.kind === 'telcoUser');
  const own = (admin!.data as unknown as { passwordHash: string }).passwordHash;
  assert.notEqual(own, DEMO_SECRET_HASHES.admin);
  assert.equal(await verifySecret('s3cret-of-the-operator', own), true);
});
