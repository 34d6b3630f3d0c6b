import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hms, hmsSteady } from '../../../src/core/durations.js';

describe('hmsSteady', () => {
  it('is the second around now in which hms(now - since) reads the same', () => {
    const since = 10_250;
    for (const now of [10_250, 10_900, 11_249, 11_250, 71_249, 3_610_250 + 999]) {
      const { from, until } = hmsSteady(since, now);
      assert.ok(from <= now && now < until, `${now} within [${from}, ${until})`);
      assert.equal(until - from, 1000);
      const shown = hms(now - since);
      assert.equal(hms(from - since), shown, `from ${from} reads ${shown}`);
      assert.equal(hms(until - 1 - since), shown);
      assert.notEqual(hms(until - since), shown, 'the next second reads otherwise');
      if (from > since) assert.notEqual(hms(from - 1 - since), shown, 'the second before reads otherwise');
    }
  });
});
