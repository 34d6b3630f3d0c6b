import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain ES module of the scripts folder, without declarations
import { clusterPass, EXCLUDED } from '../../../scripts/cluster-run.mjs';

/** The cluster pass of npm test: which suites it runs, and that its excluded list stays honest. */
function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? testFiles(p) : name.endsWith('.test.ts') ? [p] : [];
  });
}

interface Excluded {
  file: string;
  kind: string;
  reason: string;
}

test('every excluded file is a black-box suite the pass would otherwise run, with a kind and a reason', () => {
  const all = testFiles('test');
  const { run, skipped } = clusterPass(all) as { run: string[]; skipped: { file: string }[] };
  const skippedFiles = new Set(skipped.map((s) => s.file));
  for (const e of EXCLUDED as Excluded[]) {
    assert.ok(skippedFiles.has(e.file), `${e.file} is not a suite of the pass (moved or gone?)`);
    assert.ok(['internals', 'proxy', 'bug'].includes(e.kind), e.file);
    assert.ok(e.reason.length > 20, e.file);
  }
  assert.equal(new Set((EXCLUDED as Excluded[]).map((e) => e.file)).size, EXCLUDED.length, 'listed once');
  // Only test/api suites that start a test server: not unit tests, not CLI-only suites.
  assert.ok(run.length > 0);
  assert.ok(run.every((f) => f.startsWith(join('test', 'api'))));
  assert.ok(run.includes(join('test/api/voice/story.test.ts')));
  assert.ok(!run.includes(join('test/api/foundation/config-errors.test.ts')), 'runs the CLI only');
  // A suite that starts its server through a helper of its folder is found (cc-client.ts).
  assert.ok(run.includes(join('test/api/ccs/validation.test.ts')));
});
