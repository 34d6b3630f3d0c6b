import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const START = join(process.cwd(), 'scripts/start.mjs');

test('npm start says that it is building before the first build', () => {
  // A project with sources and no build; its "TypeScript" records that it ran and fails.
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-start-'));
  try {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/a.ts'), 'export {};\n');
    mkdirSync(join(dir, 'node_modules/typescript/bin'), { recursive: true });
    writeFileSync(
      join(dir, 'node_modules/typescript/bin/tsc'),
      "console.error('TSC RAN'); process.exit(3);\n",
    );
    const run = spawnSync(process.execPath, [START, 'serve'], { cwd: dir, encoding: 'utf8' });
    assert.equal(run.status, 3);
    const building = run.stderr.indexOf('Building Switchboard');
    assert.ok(building >= 0, run.stderr);
    assert.ok(building < run.stderr.indexOf('TSC RAN'), 'the message comes before the build');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
