import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientOf } from '../../../../src/api/limits/index.js';

describe('clientOf', () => {
  test('one key per API, principal and address; the same parts give the same key', () => {
    const a = clientOf('voice', 'ext:1001:101', '127.0.0.1');
    assert.equal(a, 'voice\u0000ext:1001:101\u0000127.0.0.1');
    assert.equal(clientOf('voice', 'ext:1001:101', '127.0.0.1'), a);
    const others = [
      clientOf('cc', 'ext:1001:101', '127.0.0.1'),
      clientOf('voice', 'ext:1001:102', '127.0.0.1'),
      clientOf('voice', 'ext:1001:101', '::1'),
    ];
    assert.equal(new Set([a, ...others]).size, 4);
  });

  test('keys made past the bound are still right (the memory is forgotten, not the rule)', () => {
    for (let i = 0; i < 10_050; i++) clientOf('cc', `p${i}`, '10.0.0.1');
    assert.equal(clientOf('cc', 'p3', '10.0.0.1'), 'cc\u0000p3\u000010.0.0.1');
    assert.equal(clientOf('voice', 'ext:1001:101', '127.0.0.1'), 'voice\u0000ext:1001:101\u0000127.0.0.1');
  });
});
