// `npm test` on a machine without Chromium and without root: the unit and API tests run, the
// browser tests are skipped in one line, and under CI (which must run every suite) that skip fails.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { describe, test } from 'node:test';
import { ROOT } from '../../helpers/cli.js';

const NO_CHROMIUM = { SWITCHBOARD_CHROMIUM: '/nonexistent/chromium' };
/** Root runs these as nobody; anyone else already is not root. */
const asNonRoot: SpawnSyncOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

function runAsNonRoot(command: string, args: string[], env: Record<string, string>) {
  // Not CI, and not inside this test run (node:test would not start a nested run).
  const { CI: _ci, NODE_TEST_CONTEXT: _ctx, ...rest } = process.env;
  const res = spawnSync(command, args, {
    cwd: ROOT,
    env: { ...rest, ...env },
    encoding: 'utf8',
    timeout: 300_000,
    ...asNonRoot,
  });
  return { status: res.status, out: `${res.stdout}${res.stderr}` };
}

describe('npm test without Chromium and without root', () => {
  test('pretest (install-system-deps --if-possible) leaves it to the runner', () => {
    const soft = runAsNonRoot('bash', ['scripts/install-system-deps.sh', '--if-possible'], NO_CHROMIUM);
    assert.equal(soft.status, 0, soft.out);
    const hard = runAsNonRoot('bash', ['scripts/install-system-deps.sh'], NO_CHROMIUM);
    assert.equal(hard.status, 1, hard.out);
    assert.match(hard.out, /need root/);
  });

  test('the browser tests are skipped in one line, and the others run', () => {
    const res = runAsNonRoot(
      process.execPath,
      ['scripts/test.mjs', 'test/browser', 'test/unit/core/ids.test.ts'],
      NO_CHROMIUM,
    );
    assert.equal(res.status, 0, res.out);
    assert.equal(res.out.match(/browser tests skipped: no Chromium at \/nonexistent\/chromium/g)?.length, 1);
    assert.match(res.out, /ℹ pass [1-9]/);
    assert.match(res.out, /ℹ fail 0/);
  });

  test('under CI the same skip fails the run', () => {
    const res = runAsNonRoot(process.execPath, ['scripts/test.mjs', 'test/browser'], {
      ...NO_CHROMIUM,
      CI: 'true',
    });
    assert.equal(res.status, 1);
    assert.match(res.out, /browser tests cannot run: .*CI runs every suite/);
  });
});
