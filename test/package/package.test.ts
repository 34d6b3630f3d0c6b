// The artifact as a user gets it: `npm pack`, installed with `npm install --omit=dev` into an
// empty project, started with `npx switchboard serve` and as the container runs it (the
// Dockerfile's ENV, USER, ENTRYPOINT, CMD and HEALTHCHECK, outside any container). One pack and
// one install for the whole file: the install compiles the native SQLite module and takes
// minutes on a busy machine.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { readImageRun } from './dockerfile.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};

/**
 * What every started package must answer, without credentials. Add endpoints here (metrics, a
 * CORS preflight) and both runs below check them.
 */
const ANSWERS: {
  name: string;
  request(base: string): Promise<Response>;
  check(res: Response): Promise<void>;
}[] = [
  {
    name: 'GET /healthz',
    request: (base) => fetch(`${base}/healthz`),
    async check(res) {
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: 'ok' });
    },
  },
  {
    name: 'GET /version',
    request: (base) => fetch(`${base}/version`),
    async check(res) {
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { name: pkg.name, version: pkg.version });
    },
  },
];

async function checkAnswers(base: string): Promise<void> {
  for (const a of ANSWERS) {
    const res = await a.request(base);
    await a.check(res).catch((e: Error) => {
      throw new Error(`${a.name}: ${e.message}`);
    });
  }
}

const work = mkdtempSync(join(tmpdir(), 'sb-package-'));
chmodSync(work, 0o755);
const project = join(work, 'project');
after(() => rmSync(work, { recursive: true, force: true }));

/** A started process and the address its banner named. */
interface Started {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

function start(command: string, args: string[], opts: Parameters<typeof spawn>[2]): Promise<Started> {
  const child = spawn(command, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      fail(new Error(`no "listening" line within 120 s:\n${output}`));
    }, 120_000);
    const read = (d: Buffer) => {
      output += d;
      const m = /Switchboard listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        done({ child, base: m[1].replace('0.0.0.0', '127.0.0.1'), output: () => output, exited });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => fail(new Error(`exited with ${code} before listening:\n${output}`)));
  });
}

/** SIGTERM to the process group, as a terminal's Ctrl-C or a service manager does. */
async function stop(s: Started): Promise<number | null> {
  process.kill(-s.child.pid!, 'SIGTERM');
  return s.exited;
}

/** Whether the address stops answering within 20 s (the server's own shutdown follows npm's exit). */
async function stopsListening(base: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`${base}/healthz`).then(
      () => true,
      () => false,
    );
    if (!up) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

describe('the packed package', { timeout: 30 * 60_000 }, () => {
  let tarball = '';

  before(async () => {
    // `npm pack` builds first (prepack), so the package holds the JavaScript of these sources.
    const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[];
    tarball = join(work, info.filename);
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', private: true }));
    await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    });
  });

  test('holds built JavaScript and the web pages, not the TypeScript sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.split('\n');
    assert.ok(files.includes('package/dist/cli/main.js'));
    assert.ok(files.includes('package/src/web/console/index.html'));
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
    );
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/switchboard/package.json'), 'utf8'),
    );
    assert.deepEqual(installed.bin, { switchboard: 'dist/cli/main.js' });
  });

  test('installs none of the test-only dependencies', () => {
    // Dev dependencies a runtime one also needs (ajv, through fastify) are installed, rightly.
    const testOnly = ['@electric-sql/pglite', 'typescript', 'tsx', 'playwright-core', 'fast-check', 'eslint'];
    for (const name of testOnly) {
      assert.ok(name in pkg.devDependencies, `${name} is a dev dependency`);
      assert.ok(!existsSync(join(project, 'node_modules', name)), `${name} is installed`);
    }
  });

  test('`npx switchboard --version` prints the version', async () => {
    const { stdout } = await run('npx', ['--no-install', 'switchboard', '--version'], { cwd: project });
    assert.equal(stdout.trim(), pkg.version);
  });

  test('`npx switchboard serve` starts from the installed package and stops on SIGTERM', async () => {
    const s = await start(
      'npx',
      ['--no-install', 'switchboard', 'serve', '--port', '0', '--clock', 'virtual'],
      {
        cwd: project,
        env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'warn' },
      },
    );
    try {
      await checkAnswers(s.base);
      // Its data is in the working folder, as the README says.
      assert.ok(existsSync(join(project, 'data/switchboard.db')));
    } finally {
      // npm exec may end by the signal itself; what matters is that the server is gone too.
      await stop(s);
    }
    assert.ok(await stopsListening(s.base), 'the server still listens 20 s after SIGTERM');
  });

  test('runs as the container does: non-root, from SWITCHBOARD_* variables, data in the volume', async () => {
    const image = readImageRun(join(ROOT, 'Dockerfile'));
    assert.notEqual(image.user, 'root');
    assert.deepEqual(image.volumes, ['/data']);
    assert.equal(image.env.SWITCHBOARD_DB, '/data/switchboard.db');
    const data = join(work, 'data');
    mkdirSync(data);
    // Root here: a user that owns nothing but the data folder, as the image's user.
    const asRoot = process.getuid?.() === 0;
    const ids = asRoot ? { uid: 65534, gid: 65534 } : {};
    if (asRoot) chownSync(data, 65534, 65534);
    const inImage = (p: string) => p.replace(/^\/app(?=\/)/, project).replace(/^\/data(?=\/|$)/, data);
    // As `docker run -e SWITCHBOARD_PORT=...` would: only the port differs, 8080 may be taken here.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: data };
    for (const [k, v] of Object.entries(image.env)) env[k] = inImage(v);
    env.SWITCHBOARD_PORT = String(await freePort());
    const [command, ...args] = [...image.entrypoint, ...image.cmd].map(inImage);
    const s = await start(command, args, { cwd: inImage(image.workdir), env, ...ids });
    try {
      await checkAnswers(s.base);
      const db = statSync(join(data, 'switchboard.db'));
      if (asRoot) assert.equal(db.uid, 65534, 'the database belongs to the non-root user');
      // On every address with the demo credentials: the one warning says so.
      assert.equal(s.output().match(/with the demo credentials/g)?.length, 1, s.output());
      const [probe, ...probeArgs] = image.healthcheck.map(inImage);
      const healthy = await run(probe, probeArgs, { env, ...ids }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? 1,
      );
      assert.equal(healthy, 0, 'HEALTHCHECK while serving');
    } finally {
      assert.equal(await stop(s), 0, s.output());
    }
    const [probe, ...probeArgs] = image.healthcheck.map(inImage);
    const after = await run(probe, probeArgs, { env, ...ids }).then(
      () => 0,
      (e: { code?: number }) => e.code ?? 1,
    );
    assert.equal(after, 1, 'HEALTHCHECK once stopped');
  });
});
