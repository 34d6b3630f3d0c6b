// The Dockerfile and the compose files configure the server only through variables it knows: a
// renamed option or a typo would otherwise be ignored silently inside the container.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { OPTIONS } from '../../../src/server/config.js';
import { ROOT } from '../../helpers/cli.js';
import { readStages } from '../../helpers/dockerfile.js';

const known = new Set(OPTIONS.map((o) => o.env));

for (const file of ['Dockerfile', 'compose.yaml', 'compose.cluster.yaml']) {
  test(`${file} names only SWITCHBOARD_* variables the server reads`, () => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const named = [...new Set(text.match(/SWITCHBOARD_[A-Z_]+/g) ?? [])];
    assert.ok(named.length > 0);
    assert.deepEqual(
      named.filter((v) => !known.has(v)),
      [],
    );
  });
}

test('the image listens on every address of its container and keeps its data in the volume', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  assert.match(text, /SWITCHBOARD_HOST=0\.0\.0\.0/);
  assert.match(text, /SWITCHBOARD_DB=\/data\//);
  assert.match(text, /^VOLUME \/data$/m);
  assert.match(text, /^FROM node:22-[\w-]*slim/m);
});

test('.dockerignore keeps out everything but what the Dockerfile copies from the context', () => {
  const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(ignore[0], '*', 'an allow-list: node_modules, data/ and .git stay out');
  const allowed = new Set(ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1)));
  const copied = readStages(join(ROOT, 'Dockerfile'))
    .flatMap((s) => s.instructions)
    .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from='))
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
  assert.ok(copied.length > 0);
  assert.deepEqual(
    copied.filter((c) => !allowed.has(c)),
    [],
  );
});
