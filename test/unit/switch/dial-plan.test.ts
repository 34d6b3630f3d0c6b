import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GenericEntity } from '../../../src/directory/model.js';
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

  test('the provisioned default dial plan: its prefix, rules and route', async () => {
    const h = await harness();
    const plan = h.dir.get('dialPlan', '1') as GenericEntity & { rules: unknown[] };
    await h.dir.put('dialPlan', {
      ...plan,
      outsideLinePrefix: '8',
      rules: [
        ...plan.rules,
        {
          pattern: '44',
          destinationType: 'international',
          routeId: '1',
          stripDigits: 0,
          prependDigits: '011',
          classOfService: '',
        },
      ],
    });
    const r = (s: string) => {
      const d = resolveDialed(h.dir, 1001, s);
      return d.kind === 'outside'
        ? d.number
        : d.kind === 'unknown'
          ? `unknown ${d.reason ?? ''}`.trim()
          : d.ext.ext;
    };
    assert.equal(r('85551234567'), '+15551234567');
    assert.equal(r('95551234567'), 'unknown');
    assert.equal(r('8441234567'), '+441234567', 'the rule prepends 011');
    assert.equal(r('8911'), '911');
    const route = h.dir.get('route', '1')!;
    await h.dir.put('route', { ...route, enabled: false });
    assert.equal(r('85551234567'), 'unknown No route for the number');
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '85551234567' });
    assert.equal(leg.state, 'ended');
    const error = h.callEvents('101@1001').find((e) => e.name === 'callError');
    assert.deepEqual(error?.fields, { error: 'No route for the number' });
  });
});
