import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { DEFAULTS } from '../../../src/server/config.js';
import { createRuntime } from '../../../src/server/runtime.js';
import { ROOT } from '../../helpers/cli.js';

test('what was written survives SIGKILL', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'sb-kill-')), 'kill.db');
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/durability-writer.ts', db], {
    cwd: ROOT,
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('written')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`writer exited early (${code})`)));
  });
  const exited = new Promise((r) => child.once('exit', (_c, signal) => r(signal)));
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  const runtime = await createRuntime({ ...DEFAULTS, db, logLevel: 'silent' }, pino({ level: 'silent' }));
  try {
    assert.equal(runtime.directory.extension(1001, '105')?.firstName, 'Durable');
    assert.equal(runtime.directory.get('zone', 'zone-kill')?.name, 'Written before SIGKILL');
    assert.equal(runtime.directory.didByNumber('+15555550150'), undefined);
    assert.equal(
      runtime.directory.extension(1001, '101')?.name,
      'Bob Brown',
      'the rest of the world is intact',
    );
    const rec = await runtime.callRecords.get(1001, '424242');
    assert.deepEqual(rec?.data, { note: 'before kill' });
  } finally {
    await runtime.close();
  }
});
