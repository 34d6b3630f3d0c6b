import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { outsideNumber, resolveDialed } from '../../../src/switch/dial-plan.js';
import { harness } from './harness.js';

describe('dial plan', () => {
  test('what dialed strings reach in tenant 1001', async () => {
    const { dir } = await harness();
    const r = (s: string, lenient = false) => {
      const d = resolveDialed(dir, 1001, s, lenient);
      if (d.kind === 'extension') return `ext ${d.ext.ext}`;
      if (d.kind === 'outside') return `${d.emergency ? 'emergency' : 'outside'} ${d.number}`;
      return 'unknown';
    };
    assert.equal(r('102'), 'ext 102');
    assert.equal(r('500'), 'ext 500');
    assert.equal(r('700'), 'ext 700');
    assert.equal(r('911'), 'emergency 911');
    assert.equal(r('112'), 'emergency 112');
    assert.equal(r('9911'), 'emergency 911');
    assert.equal(r('95551234567'), 'outside +15551234567');
    assert.equal(r('915551234567'), 'outside +15551234567');
    assert.equal(r('9011441234567'), 'outside +441234567');
    assert.equal(r('+447700900123'), 'outside +447700900123');
    assert.equal(r('9411'), 'outside 411');
    assert.equal(r('5551234567'), 'unknown');
    assert.equal(r('5551234567', true), 'outside +15551234567');
    assert.equal(r('9195551234', true), 'outside +19195551234');
    assert.equal(r('200'), 'unknown', 'an extension of tenant 1002');
    assert.equal(r('99'), 'unknown');
    assert.equal(r('1a2'), 'unknown');
    assert.equal(r(''), 'unknown');
  });

  test('outside numbers in canonical form', () => {
    assert.equal(outsideNumber('(555) 123-4567'), '+15551234567');
    assert.equal(outsideNumber('1 555 123 4567'), '+15551234567');
    assert.equal(outsideNumber('+44 20 7946 0000'), '+442079460000');
    assert.equal(outsideNumber('911'), '911');
  });
});
