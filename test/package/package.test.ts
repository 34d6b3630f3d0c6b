// The artifact as a user gets it, built by the Dockerfile's own steps outside Docker
// (test/helpers/dockerfile.ts): its build stage runs `npm ci`, `npm pack` and `npm install
// --omit=dev` of the tarball into an empty project, /app. Started from there with `npx switchboard
// serve`, and as the container runs it (the last stage's ENV, USER, ENTRYPOINT, CMD and HEALTHCHECK,
// as an unprivileged user). One build for the whole file: the install compiles the native SQLite
// module and takes minutes on a busy machine.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { type BuiltImage, buildWithoutDocker, readImageRun } from '../helpers/dockerfile.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};

/** A browser page's origin the started servers allow (`--cors-origins`), and one they do not. */
const WIDGET = 'https://widget.example.test';
const STRANGER = 'https://stranger.example.test';

/** A started server as a client sees it: its address, and the Basic header /metrics needs, if any. */
interface Served {
  base: string;
  metricsAuth?: string;
}

/**
 * What every started package must answer. Add an answer here and both runs below check it. They
 * run in this order: the metrics count the /healthz before them.
 */
const ANSWERS: { name: string; check(s: Served): Promise<void> }[] = [
  {
    name: 'GET /healthz',
    async check({ base }) {
      const res = await fetch(`${base}/healthz`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: 'ok' });
    },
  },
  {
    name: 'GET /version',
    async check({ base }) {
      const res = await fetch(`${base}/version`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { name: pkg.name, version: pkg.version });
    },
  },
  {
    name: 'GET /metrics',
    async check({ base, metricsAuth }) {
      if (metricsAuth) {
        const refused = await fetch(`${base}/metrics`);
        assert.equal(refused.status, 401, 'without credentials under --metrics-auth');
        assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic realm="metrics"/);
        await refused.arrayBuffer();
      }
      const res = await fetch(`${base}/metrics`, {
        headers: metricsAuth ? { authorization: metricsAuth } : {},
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      assertPrometheusText(text);
      for (const [name, type] of [
        ['switchboard_http_requests_total', 'counter'],
        ['switchboard_http_request_duration_seconds', 'histogram'],
        ['switchboard_websockets_open', 'gauge'],
        ['switchboard_voice_subscription_sets', 'gauge'],
        ['switchboard_live_calls', 'gauge'],
        ['process_cpu_user_seconds_total', 'counter'],
        ['nodejs_eventloop_lag_seconds', 'gauge'],
      ]) {
        assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), name);
      }
      assert.match(
        text,
        /^switchboard_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m,
        'the /healthz asked before is counted',
      );
    },
  },
  {
    name: 'a CORS preflight',
    async check({ base }) {
      const preflight = (origin: string, path: string) =>
        fetch(`${base}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
      for (const path of ['/api/v1/calls', '/6/v2/api/oauth/token']) {
        const res = await preflight(WIDGET, path);
        await res.arrayBuffer();
        assert.equal(res.status, 204, `${path}: answered before authentication`);
        assert.equal(res.headers.get('access-control-allow-origin'), WIDGET, path);
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/, path);
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /\bAuthorization\b/, path);
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /\bContent-Type\b/, path);
        assert.match(res.headers.get('vary') ?? '', /\bOrigin\b/, path);
      }
      const stranger = await preflight(STRANGER, '/api/v1/calls');
      await stranger.arrayBuffer();
      const cors = [...stranger.headers.keys()].filter((h) => h.startsWith('access-control-'));
      assert.deepEqual(cors, [], 'an origin not listed gets no CORS header');
    },
  },
  {
    name: 'the typed client for the console',
    async check({ base }) {
      // The console imports it (src/web/console/sources.js): built by `npm run build`, packed in dist.
      const res = await fetch(`${base}/client/index.js`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.match(await res.text(), /export \{ VoiceClient \}/);
    },
  },
];

/** Prometheus text format: HELP and TYPE lines, and samples of the declared families only. */
function assertPrometheusText(text: string): void {
  const families = new Set<string>();
  // NaN and Inf in any case, as Prometheus reads them (prom-client writes `Nan`).
  const sample =
    /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|nan|[+-]inf)$/i;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      families.add(type[1]);
      continue;
    }
    const m = sample.exec(line);
    assert.ok(m, `not a Prometheus sample line: ${line}`);
    const family = m[1].replace(/_(bucket|sum|count)$/, '');
    assert.ok(families.has(m[1]) || families.has(family), `a sample without its TYPE: ${line}`);
  }
  assert.ok(families.size > 10, `only ${families.size} metric families`);
}

async function checkAnswers(s: Served): Promise<void> {
  for (const a of ANSWERS) {
    await a.check(s).catch((e: Error) => {
      throw new Error(`${a.name}: ${e.message}`);
    });
  }
}

const work = mkdtempSync(join(tmpdir(), 'sb-package-'));
chmodSync(work, 0o755);
after(() => rmSync(work, { recursive: true, force: true }));

/** The image's user `node` is 1000:1000 in the node images; here any unprivileged ids will do. */
const asRoot = process.getuid?.() === 0;
const IMAGE_USER = asRoot ? { uid: 1000, gid: 1000 } : { uid: process.getuid!(), gid: process.getgid!() };

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
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code} before listening:\n${output}`));
    });
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

describe('the packed package, built by the Dockerfile', { timeout: 30 * 60_000 }, () => {
  let image: BuiltImage;
  /** The image's /app: an empty project with the package installed, as a user's would be. */
  let project = '';
  let tarball = '';

  before(async () => {
    image = await buildWithoutDocker(join(ROOT, 'Dockerfile'), {
      context: ROOT,
      work,
      owners: { 'node:node': `${IMAGE_USER.uid}:${IMAGE_USER.gid}` },
      env: { npm_config_prefer_offline: 'true' },
    });
    project = image.path('/app');
    const [build] = image.stageRoots.values();
    const name = `${pkg.name}-${pkg.version}.tgz`;
    const folder = readdirSync(build).find((d) => existsSync(join(build, d, name)));
    assert.ok(folder, `the build stage packed ${name}`);
    tarball = join(build, folder, name);
  });

  test('holds built JavaScript and the web pages, not the TypeScript sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.split('\n');
    assert.ok(files.includes('package/dist/cli/main.js'));
    assert.ok(files.includes('package/src/web/console/index.html'));
    assert.ok(files.includes('package/dist/web-client/voice/voice-event-stream.js'));
    assert.ok(!files.includes('package/dist/web-client/testing.js'), 'the Node-only entry is not for pages');
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
      ['--no-install', 'switchboard', 'serve', '--port', '0', '--clock', 'virtual', '--cors-origins', WIDGET],
      {
        cwd: project,
        env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'warn' },
      },
    );
    try {
      await checkAnswers({ base: s.base });
      // Its data is in the working folder, as the README says.
      assert.ok(existsSync(join(project, 'data/switchboard.db')));
    } finally {
      // npm exec may end by the signal itself; what matters is that the server is gone too.
      await stop(s);
    }
    assert.ok(await stopsListening(s.base), 'the server still listens 20 s after SIGTERM');
  });

  describe('as the container runs it: non-root, from SWITCHBOARD_* variables, data in the volume', () => {
    const spec = readImageRun(join(ROOT, 'Dockerfile'));
    /** As `docker run -e ...` would: only the port differs, 8080 may be taken here. */
    const containerEnv = async (vars: Record<string, string> = {}) => {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: image.path('/data') };
      for (const [k, v] of Object.entries(spec.env)) env[k] = image.path(v);
      return { ...env, SWITCHBOARD_PORT: String(await freePort()), ...vars };
    };
    const command = () => [...spec.entrypoint, ...spec.cmd].map((p) => image.path(p));
    const healthcheck = (env: NodeJS.ProcessEnv) => {
      const [probe, ...args] = spec.healthcheck.map((p) => image.path(p));
      return run(probe, args, { env, ...IMAGE_USER }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? 1,
      );
    };

    test('the image runs as its own user, with its data in the volume', () => {
      assert.notEqual(spec.user, 'root');
      assert.deepEqual(spec.volumes, ['/data']);
      assert.equal(spec.env.SWITCHBOARD_DB, '/data/switchboard.db');
      // The final stage made the volume and gave it to the user (its RUN ... chown).
      if (asRoot) assert.equal(statSync(image.path('/data')).uid, IMAGE_USER.uid);
    });

    test('without the operator’s telco passwords it refuses to start, in one line', async () => {
      const env = await containerEnv();
      const [cmd, ...args] = command();
      const refused = await run(cmd, args, { cwd: image.path(spec.workdir), env, ...IMAGE_USER }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /^switchboard: refusing to serve the public demo passwords of admin and operator on 0\.0\.0\.0, .*SWITCHBOARD_ADMIN_PASSWORD and SWITCHBOARD_OPERATOR_PASSWORD.*\n$/,
      );
      assert.equal(await healthcheck(env), 1, 'HEALTHCHECK of a container that did not start');
    });

    test('with them it serves; metrics behind them (--metrics-auth), CORS for a widget', async () => {
      const admin = 'Adm1n-set-by-docker-run';
      const env = await containerEnv({
        SWITCHBOARD_ADMIN_PASSWORD: admin,
        SWITCHBOARD_OPERATOR_PASSWORD: 'Op3rator-set-by-docker-run',
        SWITCHBOARD_METRICS_AUTH: 'true',
        SWITCHBOARD_CORS_ORIGINS: WIDGET,
      });
      const [cmd, ...args] = command();
      const s = await start(cmd, args, { cwd: image.path(spec.workdir), env, ...IMAGE_USER });
      try {
        const metricsAuth = `Basic ${Buffer.from(`admin:${admin}`).toString('base64')}`;
        await checkAnswers({ base: s.base, metricsAuth });
        const db = statSync(image.path('/data/switchboard.db'));
        assert.equal(db.uid, IMAGE_USER.uid, 'the database belongs to the image’s user');
        assert.doesNotMatch(s.output(), /demo credentials|Adm1n/, 'no warning, no password printed');
        assert.match(s.output(), /admin {6}\/ \(set by the operator\)/);
        assert.equal(await healthcheck(env), 0, 'HEALTHCHECK while serving');
      } finally {
        assert.equal(await stop(s), 0, s.output());
      }
      assert.equal(await healthcheck(env), 1, 'HEALTHCHECK once stopped');
    });
  });
});
