/**
 * The layering of docs/architecture.md, enforced: every relative import in src is read and held
 * against the table below. `server` is the composition root, so nothing but the CLI imports it;
 * the rest points inward, api -> contact-center -> switch -> directory -> core, with store and
 * bus where they stand. Inside api, the three APIs never import one another, and the parts they
 * share never import an API.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../../src');

/** Which top-level folders of src each folder may import (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  bus: [],
  directory: ['core'],
  store: ['directory', 'core'],
  switch: ['directory', 'core'],
  'contact-center': ['switch', 'directory', 'store', 'core'],
  api: ['contact-center', 'switch', 'directory', 'store', 'core'],
  cluster: ['api', 'contact-center', 'switch', 'directory', 'store', 'bus', 'core'],
  server: ['cluster', 'api', 'contact-center', 'switch', 'directory', 'store', 'bus', 'core'],
  cli: ['server', 'cluster', 'api', 'contact-center', 'switch', 'directory', 'store', 'bus', 'core'],
};

/** The APIs under src/api; every other folder or file of src/api is shared by them. */
const APIS = new Set(['voice', 'ccs', 'sim']);

interface Import {
  /** Both relative to src, with `/` separators. */
  from: string;
  to: string;
}

const IMPORT =
  /(?:^|[;\s])(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[;\s])import\s+['"]([^'"]+)['"]/g;

/** The relative imports of one file's text, resolved against its path (relative to src). */
function importsOf(file: string, text: string): Import[] {
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.')) continue;
    const to = join(dirname(file), spec).split('\\').join('/');
    out.push({ from: file, to });
  }
  return out;
}

const top = (path: string) => path.split('/')[0]!;
/** `voice` for src/api/voice/..., `auth` for src/api/auth/..., `platform-events.ts` for a file of src/api. */
const apiPart = (path: string) => path.split('/')[1]!;

/** Each import that breaks the layering, as a sentence naming both files. */
function violations(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const { from, to } of imports) {
    const a = top(from);
    const b = top(to);
    if (to.startsWith('..')) {
      out.push(`${from} imports ${to}, outside src`);
      continue;
    }
    if (!(a in MAY_IMPORT)) {
      out.push(
        `${from}: src/${a} has no place in the layering table (test/unit/architecture/layering.test.ts)`,
      );
      continue;
    }
    if (a !== b) {
      if (!MAY_IMPORT[a]!.includes(b)) out.push(`${from} imports ${to}: ${a} may not import ${b}`);
      continue;
    }
    if (a !== 'api') continue;
    const pa = apiPart(from);
    const pb = apiPart(to);
    if (pa === pb || !APIS.has(pb)) continue;
    out.push(
      APIS.has(pa)
        ? `${from} imports ${to}: one API may not import another (${pa} -> ${pb})`
        : `${from} imports ${to}: the parts the APIs share may not import an API (${pb})`,
    );
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('layering of src', () => {
  it('finds the imports of every form', () => {
    const text = [
      "import type { A } from '../core/a.js';",
      "import { B,\n  C } from './b.js';",
      "export { D } from '../server/d.js';",
      "import './side-effect.js';",
      "const e = await import('../store/e.js');",
      "import { F } from 'fastify';",
    ].join('\n');
    assert.deepEqual(
      importsOf('api/voice/x.ts', text).map((i) => i.to),
      ['api/core/a.js', 'api/voice/b.js', 'api/server/d.js', 'api/voice/side-effect.js', 'api/store/e.js'],
    );
  });

  it('names each kind of violation', () => {
    const found = violations([
      { from: 'api/voice/plugin.ts', to: 'server/runtime.js' },
      { from: 'switch/switch.ts', to: 'contact-center/types.js' },
      { from: 'core/clock.ts', to: 'directory/model.js' },
      { from: 'api/ccs/routes.ts', to: 'api/voice/hal/problem.js' },
      { from: 'api/auth/authenticator.ts', to: 'api/sim/auth.js' },
      { from: 'api/limits/index.ts', to: 'bus/bus.js' },
      { from: 'mesh/node.ts', to: 'core/ids.js' },
      // Allowed: inward, within one API, an API to a shared part.
      { from: 'api/voice/plugin.ts', to: 'contact-center/types.js' },
      { from: 'api/voice/plugin.ts', to: 'api/voice/hal/resource.js' },
      { from: 'api/sim/sim-route.ts', to: 'api/route-core/route-core.js' },
      { from: 'server/app.ts', to: 'api/voice/plugin.js' },
    ]);
    assert.equal(found.length, 7, found.join('\n'));
    assert.match(found[0]!, /api may not import server/);
    assert.match(found[1]!, /switch may not import contact-center/);
    assert.match(found[2]!, /core may not import directory/);
    assert.match(found[3]!, /one API may not import another \(ccs -> voice\)/);
    assert.match(found[4]!, /the parts the APIs share may not import an API \(sim\)/);
    assert.match(found[5]!, /api may not import bus/);
    assert.match(found[6]!, /src\/mesh has no place in the layering table/);
  });

  it('holds for every file in src', () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 100, `only ${files.length} source files found under ${SRC}`);
    const imports = files.flatMap((f) =>
      importsOf(relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8')),
    );
    assert.ok(
      imports.some((i) => top(i.to) === 'server'),
      'the CLI imports the server',
    );
    assert.deepEqual(violations(imports), []);
  });
});
