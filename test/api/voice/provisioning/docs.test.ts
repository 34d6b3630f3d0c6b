import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeProvisioning } from '../../../../src/api/voice/provisioning/describe.js';

test('docs/provisioning.md carries the reference generated from the resource tables', () => {
  const doc = readFileSync(new URL('../../../../docs/provisioning.md', import.meta.url), 'utf8');
  const start = doc.indexOf('<!-- generated:start -->\n');
  const end = doc.indexOf('\n<!-- generated:end -->');
  assert.ok(start >= 0 && end > start, 'the generated section is marked');
  const inDoc = doc.slice(start + '<!-- generated:start -->\n'.length, end).trim();
  const want = describeProvisioning().trim().split('\n');
  const have = inDoc.split('\n');
  const first = want.findIndex((line, i) => have[i] !== line);
  assert.equal(
    first,
    -1,
    `first differing line ${first + 1}: "${want[first]}" (npx tsx test/api/voice/provisioning/regenerate-docs.ts)`,
  );
  assert.equal(have.length, want.length);
});
