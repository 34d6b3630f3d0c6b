import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../src/server/tick-object-map.ts')).href;

/**
 * In a child process: (optionally) the module, then ticks across several garbage collections,
 * then the IC states of the property stores of nextTick's tick-object literal, as V8 prints them.
 */
function tickStoreStates(withModule: boolean): string[] {
  const script = `
    ${withModule ? `await import(${JSON.stringify(MODULE)});` : ''}
    const f = () => {};
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 1000; i++) process.nextTick(f);
      await new Promise((r) => setImmediate(r));
      globalThis.gc();
    }
    new Function('f', '%DebugPrint(f)')(process.nextTick);
  `;
  // V8 prints through C's stdio, which loses its tail on a pipe that Node made non-blocking: the
  // child writes to a file instead.
  const dir = mkdtempSync(join(tmpdir(), 'sb-tick-'));
  const file = join(dir, 'out.txt');
  const fd = openSync(file, 'w');
  try {
    execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', fd, 'inherit'], env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
  } finally {
    closeSync(fd);
  }
  const out = readFileSync(file, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return [...out.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
}

test('one live tick object keeps the stores of nextTick monomorphic across garbage collections', (t) => {
  const without = tickStoreStates(false);
  if (without.length === 0) return t.skip('this V8 prints no DefineKeyedOwnPropertyInLiteral feedback');
  assert.ok(without.includes('MEGAMORPHIC'), `without the module: ${without.join(', ')}`);
  const withModule = tickStoreStates(true);
  assert.equal(withModule.length, without.length);
  assert.ok(
    withModule.every((s) => s === 'MONOMORPHIC'),
    `with the module: ${withModule.join(', ')}`,
  );
});
