import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, runCli } from '../../helpers/cli.js';
import { suiteServer } from '../../helpers/server.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('version', () => {
  const server = suiteServer();

  test('GET /version answers the package’s name and version without credentials', async () => {
    const res = await server().fetch('/version');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { name: pkg.name, version: pkg.version });
  });

  test('switchboard --version prints it', async () => {
    const { code, stdout } = await runCli(['--version'], {}, 60_000);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), pkg.version);
  });
});
