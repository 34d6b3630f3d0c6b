// The client as an integrator gets it: `npm pack` in packages/client, installed into an empty
// Node project, imported by plain Node (no tsx), its declarations type-checked strictly, the
// examples run against it, and its test helper starting and driving a server.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLIENT = join(ROOT, 'packages/client');
const manifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
const TSX = import.meta.resolve('tsx');

const work = mkdtempSync(join(tmpdir(), 'sb-client-package-'));
chmodSync(work, 0o755);
const project = join(work, 'project');
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs an example from the project until it prints a line matching `match`, then stops it. */
async function exampleLine(example: string, url: string, match: RegExp): Promise<string> {
  const child = spawn(process.execPath, ['--import', TSX, `examples/${example}.ts`, '--url', url], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines: string[] = [];
  try {
    return await new Promise<string>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`${example}: no ${match}:\n${lines.join('\n')}\n${stderr}`)),
        60_000,
      );
      createInterface({ input: child.stdout }).on('line', (l) => {
        lines.push(l);
        if (match.test(l)) {
          clearTimeout(timer);
          done(l);
        }
      });
      child.once('exit', (code) =>
        fail(new Error(`${example} exited with ${code}:\n${lines.join('\n')}\n${stderr}`)),
      );
    });
  } finally {
    child.kill('SIGINT');
  }
}

describe('the packed client', { timeout: 15 * 60_000 }, () => {
  let files: string[] = [];

  before(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], {
      cwd: CLIENT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = info.files.map((f) => f.path);
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'empty-project', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, info.filename)], {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
    });
  });

  test('holds JavaScript, declarations and its README; no TypeScript sources', () => {
    assert.ok(files.includes('README.md'));
    assert.ok(files.includes('dist/packages/client/src/index.js'));
    assert.ok(files.includes('dist/packages/client/src/index.d.ts'));
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
    );
    // The server's schema modules are there as declarations only.
    assert.deepEqual(
      files.filter((f) => f.startsWith('dist/src/') && !f.endsWith('.d.ts')),
      [],
    );
  });

  test('imports in plain Node, with its own version', async () => {
    const script = `
      const client = await import('@switchboard/client');
      const testing = await import('@switchboard/client/testing');
      console.log(JSON.stringify({
        version: client.CLIENT_VERSION,
        createClient: typeof client.createClient,
        VoiceClient: typeof client.VoiceClient,
        CcClient: typeof client.CcClient,
        startSwitchboard: typeof testing.startSwitchboard,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), {
      version: manifest.version,
      createClient: 'function',
      VoiceClient: 'function',
      CcClient: 'function',
      startSwitchboard: 'function',
    });
  });

  test('its declarations type-check strictly in the project (skipLibCheck off)', async () => {
    writeFileSync(
      join(project, 'uses-types.ts'),
      [
        "import { createClient, type CcEvent, type VoiceEvent } from '@switchboard/client';",
        "import { startSwitchboard, type TestSwitchboard } from '@switchboard/client/testing';",
        "const sb = createClient({ url: 'http://127.0.0.1:8080', voice: { username: 'u', password: 'p' } });",
        'export const names = (v: VoiceEvent, c: CcEvent): string[] => [v.event, c.event];',
        'export const started: Promise<TestSwitchboard> = startSwitchboard();',
        'export const close: () => Promise<void> = () => sb.close();',
      ].join('\n'),
    );
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      files: ['uses-types.ts'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const res = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout, failed: true }),
    );
    assert.ok(!('failed' in res), res.stdout);
  });

  test('the examples run against the installed client', async () => {
    cpSync(join(ROOT, 'examples'), join(project, 'examples'), { recursive: true });
    const server = await startTestServer();
    try {
      assert.equal(
        await exampleLine('screen-pop', server.httpUrl, /^screen-pop: watching/),
        'screen-pop: watching ALL_USERS@1001 as 100@1001',
      );
      assert.equal(await exampleLine('wallboard', server.httpUrl, /^wallboard: /), 'wallboard: Acme Corp');
    } finally {
      await server.stop();
    }
  });

  test('its test helper starts a server, drives the simulator, resets and stops it', async () => {
    const testing = (await import(
      pathToFileURL(join(project, 'node_modules/@switchboard/client/dist/packages/client/src/testing.js'))
        .href
    )) as typeof import('../../packages/client/src/testing.js');
    // The server from this repository's sources (the package test covers the installed server).
    const sb = await testing.startSwitchboard({
      command: [process.execPath, '--import', TSX, join(ROOT, 'src/cli/main.ts')],
    });
    try {
      const before = await sb.sim<{ now: number; mode: string }>('GET', '/clock');
      assert.equal(before.mode, 'virtual');
      await sb.advanceClock(60_000);
      assert.equal((await sb.sim<{ now: number }>('GET', '/clock')).now, before.now + 60_000);
      await sb.reset();
      assert.equal((await sb.sim<{ now: number }>('GET', '/clock')).now, before.now);
    } finally {
      await sb.stop();
    }
    assert.equal((await fetch(`${sb.url}/healthz`).catch(() => null))?.status, undefined);
  });

  test('the node:test example of docs/testing-with-switchboard.md passes under plain node --test', async () => {
    // A stand-in `switchboard` package: this repository's server, run from source.
    const server = join(project, 'node_modules/switchboard');
    mkdirSync(server);
    writeFileSync(
      join(server, 'package.json'),
      JSON.stringify({
        name: 'switchboard',
        version: '0.0.0',
        type: 'module',
        bin: { switchboard: 'run.js' },
      }),
    );
    writeFileSync(
      join(server, 'run.js'),
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
        'register();\n' +
        `await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/cli/main.ts')).href)});\n`,
    );
    cpSync(join(ROOT, 'examples'), join(project, 'examples'), { recursive: true, force: true });
    const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
    const res = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', 'examples/testing/offer.test.js'],
      {
        cwd: project,
        env,
      },
    ).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout + e.stderr, failed: true }));
    assert.ok(!('failed' in res), res.stdout);
    assert.match(res.stdout, /# pass 1/);
  });
});
