import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../../src/core/permissions.js';
import { ReadCache } from '../../../../src/api/route-core/read-cache.js';

const principal = (name: string) => Object.freeze({ username: name }) as unknown as Principal;
const answer = (body: string) => ({ status: 200, contentType: 'application/hal+json', body });

describe('ReadCache', () => {
  it('answers only the principal object and URL it was given, under the same generation', () => {
    const c = new ReadCache();
    const alice = principal('alice');
    c.get(alice, '/a', 1);
    c.set(alice, '/a', 1, answer('A'));
    assert.equal(c.get(alice, '/a', 1)?.body, 'A');
    assert.equal(c.get(principal('alice'), '/a', 1), undefined, 'an equal principal is another key');
    assert.equal(c.get(alice, '/a?x=1', 1), undefined);
    assert.equal(c.get(alice, '/a', 2), undefined, 'a new generation drops what was kept');
    assert.equal(c.size, 0);
  });

  it('does not keep an answer made under a generation that has since moved', () => {
    const c = new ReadCache();
    const p = principal('p');
    c.get(p, '/a', 1);
    c.get(p, '/b', 2);
    c.set(p, '/a', 1, answer('old'));
    assert.equal(c.get(p, '/a', 2), undefined);
  });

  it('answers one kept with a window only while the clock is within it', () => {
    const c = new ReadCache();
    const p = principal('p');
    c.get(p, '/a', 1);
    c.set(p, '/a', 1, { ...answer('A'), window: { from: 1_000, until: 2_000 } });
    assert.equal(c.get(p, '/a', 1, 1_000)?.body, 'A');
    assert.equal(c.get(p, '/a', 1, 1_999)?.body, 'A');
    assert.equal(c.get(p, '/a', 1, 2_000), undefined, 'the window ends before until');
    assert.equal(c.get(p, '/a', 1, 999), undefined, 'a clock set back is outside it too');
    assert.equal(c.get(p, '/a', 1), undefined, 'no clock: never answered');
    c.set(p, '/a', 1, { ...answer('B'), window: { from: 2_000, until: 3_000 } });
    assert.equal(c.get(p, '/a', 1, 2_500)?.body, 'B', 'the answer made instead replaces it');
    assert.equal(c.size, 1);
  });

  it('stays within its bounds, dropping the least recently used first', () => {
    const c = new ReadCache({ maxChars: 30, maxPerPrincipal: 2, maxBodyChars: 14 });
    const p = principal('p');
    const q = principal('q');
    c.get(p, '/', 0);
    c.set(p, '/1', 0, answer('x'.repeat(20)));
    assert.equal(c.size, 0, 'a body over the per-answer bound is not kept');
    c.set(p, '/1', 0, answer('1'));
    c.set(p, '/2', 0, answer('2'));
    c.get(p, '/1', 0);
    c.set(p, '/3', 0, answer('3'));
    assert.equal(c.get(p, '/2', 0), undefined, 'the per-principal bound drops the least recently used');
    assert.equal(c.get(p, '/1', 0)?.body, '1');
    assert.equal(c.get(p, '/3', 0)?.body, '3');
    c.set(q, '/q1', 0, answer('q'.repeat(10)));
    c.set(q, '/q2', 0, answer('q'.repeat(10)));
    assert.ok(c.get(q, '/q2', 0), 'the newest answer stays');
    assert.equal(
      c.get(p, '/1', 0),
      undefined,
      'the total bound drops the least recently used principal first',
    );
    assert.ok(c.size <= 3);
  });
});
