// `npm start` in a clone installed with `npm ci --omit=dev` and never built: one line saying how,
// not a stack trace from the missing compiler.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../../helpers/cli.js';

test('npm start without dist/ and without TypeScript says what to run', () => {
  const clone = mkdtempSync(join(tmpdir(), 'sb-start-'));
  try {
    cpSync(join(ROOT, 'scripts/start.mjs'), join(clone, 'scripts/start.mjs'));
    mkdirSync(join(clone, 'src'));
    writeFileSync(join(clone, 'src/x.ts'), 'export {};\n');
    const res = spawnSync(process.execPath, ['scripts/start.mjs', 'serve'], { cwd: clone, encoding: 'utf8' });
    assert.equal(res.status, 2, res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, /TypeScript is not installed: run `npm ci && npm run build`/);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
});
