// compose.cluster.yaml without Docker. No image can be pulled here, so this test reads the compose
// file (test/helpers/compose.ts) and runs its services as processes of this machine, in the order
// its depends_on gives: PostgreSQL is the local server (a fresh database stands for the service's
// own), NATS is the local nats-server run with the service's own command (its ports and volume
// moved to free ones here), and each Switchboard node is the image's ENTRYPOINT and CMD (read from
// the Dockerfile; the repository's CLI through tsx stands for the image's installed `switchboard`,
// which test/package/package.test.ts builds and runs) with the image's ENV and the service's
// environment as compose gives it, only the addresses of the postgres and nats services and the
// container's port replaced. Then each node must answer /healthz, every healthcheck of the file
// must pass, GET /cluster must list the three nodes, and a call placed on one node must be seen on
// the others.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { clusterEnv, freshDatabase } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/cluster-engines.js';
import { type ComposeService, publishedPort, readCompose, startOrder } from '../helpers/compose.js';
import { readImageRun } from '../helpers/dockerfile.js';

const run = promisify(execFile);
const FILE = join(ROOT, 'compose.cluster.yaml');

/** What an operator's .env gives the file. */
const ADMIN_PASSWORD = 'Adm1n-from-dot-env';
const VARS = {
  POSTGRES_PASSWORD: 'pg-from-dot-env',
  SWITCHBOARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
  SWITCHBOARD_OPERATOR_PASSWORD: 'Op3rator-from-dot-env',
};
const ADMIN = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
const BOB = `Basic ${Buffer.from('101@1001:1234').toString('base64')}`;

const compose = readCompose(FILE, VARS);
const image = readImageRun(join(ROOT, 'Dockerfile'));
const nodeNames = Object.keys(compose.services).filter((n) => compose.services[n].build !== undefined);
/** The image's installed CLI, here: the repository's, through tsx. */
const CLI = '/app/node_modules/.bin/switchboard';
const TSX = fileURLToPath(import.meta.resolve('tsx'));
const cli = (args: string[]) => [process.execPath, '--import', TSX, join(ROOT, 'src/cli/main.ts'), ...args];

function which(cmd: string): string | undefined {
  for (const d of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin']) {
    if (d && existsSync(join(d, cmd))) return join(d, cmd);
  }
  return undefined;
}
const natsServer = which('nats-server');

async function skipReason(): Promise<string | undefined> {
  const env = await clusterEnv();
  if (env.skip) return env.skip;
  if (natsServer && which('pg_isready')) return undefined;
  const why = 'compose cluster test skipped: no nats-server or pg_isready (scripts/install-system-deps.sh)';
  if (process.env.CI && process.env.CI !== 'false') throw new Error(why);
  console.log(why);
  return why;
}
const skip = await skipReason();

function freePort(): Promise<number> {
  return new Promise((done) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

const service = (name: string): ComposeService => {
  const s = compose.services[name];
  assert.ok(s, `compose.cluster.yaml has no service ${name}`);
  return s;
};

describe('compose.cluster.yaml', () => {
  test('PostgreSQL with a volume, NATS with JetStream, three nodes built from the Dockerfile', () => {
    assert.match(service('postgres').image ?? '', /^postgres:\d+/);
    const volumes = Object.keys(compose.volumes ?? {});
    const pgVolume = service('postgres').volumes?.find((v) => v.endsWith(':/var/lib/postgresql/data'));
    assert.ok(pgVolume && volumes.includes(pgVolume.split(':')[0]), 'PostgreSQL keeps its data in a volume');
    assert.match(service('nats').image ?? '', /^nats:/);
    assert.ok(service('nats').command?.includes('--jetstream'), 'NATS runs JetStream');
    assert.equal(nodeNames.length, 3);
    const published: number[] = [];
    for (const name of nodeNames) {
      const s = service(name);
      assert.equal(s.build, '.', `${name} is built from the Dockerfile at the root`);
      assert.equal(s.command, undefined, `${name} runs the image's CMD`);
      assert.deepEqual(
        s.depends_on,
        { postgres: { condition: 'service_healthy' }, nats: { condition: 'service_healthy' } },
        `${name} starts once PostgreSQL and NATS are healthy`,
      );
      assert.equal(s.ports?.length, 1, `${name} publishes one port`);
      const { host, container } = publishedPort(s.ports![0]);
      assert.equal(String(container), image.env.SWITCHBOARD_PORT, `${name} publishes the port it listens on`);
      published.push(host);
      assert.equal(s.environment?.SWITCHBOARD_ADVERTISE_URL, `http://localhost:${host}`, name);
    }
    assert.equal(new Set(published).size, 3, 'each node on a port of its own');
    const ids = nodeNames.map((n) => service(n).environment?.SWITCHBOARD_NODE_ID);
    assert.equal(new Set(ids).size, 3, 'each node with an id of its own');
    for (const [name, s] of Object.entries(compose.services)) {
      assert.equal(s.healthcheck?.test[0], 'CMD', `${name} has a healthcheck in exec form`);
    }
  });

  test('refuses to start without the passwords an operator must set', () => {
    for (const missing of Object.keys(VARS)) {
      const vars: Record<string, string> = { ...VARS };
      delete vars[missing];
      assert.throws(() => readCompose(FILE, vars), new RegExp(`set ${missing}`), missing);
    }
  });

  describe('its services run as processes, as compose starts them', { skip, timeout: 10 * 60_000 }, () => {
    const work = mkdtempSync(join(tmpdir(), 'sb-compose-'));
    const children: ChildProcess[] = [];
    /** Per service: the container ports it listens on → the ports it got here. */
    const ports = new Map<string, Map<number, number>>();
    /** Per node: its environment and its address here. */
    const nodes = new Map<string, { env: NodeJS.ProcessEnv; base: string }>();
    let dropDatabase: () => Promise<void> = async () => {};
    let databaseUrl = '';

    /** A volume's mount target → a folder here. */
    const volumeFolder = (svc: string, target: string) => {
      const dir = join(work, svc, target.replace(/\//g, '_'));
      mkdirSync(dir, { recursive: true });
      return dir;
    };

    /** The container address `service:port` → the one here. */
    const address = (svc: string, port: number) => {
      const local = ports.get(svc)?.get(port);
      assert.ok(local, `nothing listens for ${svc}:${port}`);
      return `127.0.0.1:${local}`;
    };

    /** A node's environment: the image's ENV, the service's environment, addresses replaced. */
    const nodeEnv = async (name: string): Promise<NodeJS.ProcessEnv> => {
      const data = volumeFolder(name, '/data');
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: data };
      for (const [k, v] of Object.entries(image.env))
        env[k] = v.startsWith('/data') ? v.replace('/data', data) : v;
      Object.assign(env, service(name).environment);
      // The service's database: the postgres service's user, password and database, by its name.
      const pg = service('postgres').environment!;
      const url = new URL(env.SWITCHBOARD_DATABASE_URL!);
      assert.deepEqual(
        [url.hostname, url.port, url.username, url.password, url.pathname],
        ['postgres', '5432', pg.POSTGRES_USER, pg.POSTGRES_PASSWORD, `/${pg.POSTGRES_DB}`],
        `${name}: SWITCHBOARD_DATABASE_URL names the postgres service's database`,
      );
      env.SWITCHBOARD_DATABASE_URL = databaseUrl;
      env.SWITCHBOARD_NATS = env.SWITCHBOARD_NATS!.replace(/\/\/nats:(\d+)/g, (_m, p: string) => {
        return `//${address('nats', Number(p))}`;
      });
      assert.doesNotMatch(
        env.SWITCHBOARD_NATS,
        /\/\/nats\b/,
        `${name}: SWITCHBOARD_NATS names the nats service`,
      );
      const port = await freePort();
      ports.set(name, new Map([[Number(image.env.SWITCHBOARD_PORT), port]]));
      env.SWITCHBOARD_PORT = String(port);
      return env;
    };

    /** Runs a service's healthcheck here; resolves its exit code. */
    const healthcheck = async (name: string): Promise<number> => {
      const [form, prog, ...args] = service(name).healthcheck!.test;
      assert.equal(form, 'CMD');
      let argv: string[];
      let env: NodeJS.ProcessEnv = process.env;
      if (prog === CLI) {
        argv = cli(args);
        env = nodes.get(name)!.env;
      } else if (prog === 'pg_isready') {
        // In its container it asks the local socket; here, the server the tests use.
        const pg = new URL(PG_URL);
        argv = [prog, ...args, '-h', pg.hostname, '-p', pg.port || '5432'];
      } else {
        argv = [
          prog,
          ...args.map((a) =>
            a.replace(
              /\/\/(127\.0\.0\.1|localhost):(\d+)/,
              (_m, _h, p: string) => `//${address(name, Number(p))}`,
            ),
          ),
        ];
      }
      return run(argv[0], argv.slice(1), { env, timeout: 10_000 }).then(
        () => 0,
        (e: { code?: number }) => (typeof e.code === 'number' ? e.code : 1),
      );
    };

    const untilHealthy = async (name: string, child?: ChildProcess, output?: () => string) => {
      for (let i = 0; i < 600; i++) {
        if (child && child.exitCode !== null)
          assert.fail(`${name} exited (${child.exitCode}):\n${output?.()}`);
        if ((await healthcheck(name)) === 0) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.fail(`${name} is not healthy after 600 tries:\n${output?.() ?? ''}`);
    };

    const spawnService = (name: string, argv: string[], env: NodeJS.ProcessEnv, cwd: string) => {
      const child = spawn(argv[0], argv.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      return { child, output: () => out };
    };

    /** Waits for a node's banner: `untilHealthy` would start a CLI every try. */
    const listening = (name: string, child: ChildProcess, output: () => string) =>
      new Promise<string>((done, fail) => {
        const look = () => {
          const m = /Switchboard listening on (http:\/\/\S+)/.exec(output());
          if (m) done(m[1].replace('0.0.0.0', '127.0.0.1'));
        };
        child.stdout!.on('data', look);
        child.stderr!.on('data', look);
        child.once('exit', (code) =>
          fail(new Error(`${name} exited (${code}) before listening:\n${output()}`)),
        );
      });

    const up: Record<string, () => Promise<void>> = {
      // The machine's PostgreSQL stands for the service; a fresh database for its volume.
      async postgres() {
        const db = await freshDatabase();
        databaseUrl = db.url;
        dropDatabase = db.drop;
        await untilHealthy('postgres');
      },
      async nats() {
        const [prog, ...args] = service('nats').command!;
        assert.equal(prog, 'nats-server');
        const client = await freePort();
        const monitor = await freePort();
        const targets = (service('nats').volumes ?? []).map((v) => v.split(':')[1]);
        const http = args.indexOf('--http_port');
        ports.set(
          'nats',
          new Map([
            [4222, client],
            [Number(args[http + 1]), monitor],
          ]),
        );
        const argv = [
          natsServer!,
          // In its container it listens on 4222 of every address; here on a free port of loopback.
          ...['-a', '127.0.0.1', '-p', String(client)],
          ...args.map((a, i) =>
            targets.includes(a) ? volumeFolder('nats', a) : i === http + 1 ? String(monitor) : a,
          ),
        ];
        const { child, output } = spawnService('nats', argv, process.env, work);
        await untilHealthy('nats', child, output);
      },
    };

    before(async () => {
      assert.deepEqual(image.entrypoint, [CLI], 'the image runs its installed switchboard');
      for (const wave of startOrder(compose)) {
        await Promise.all(
          wave.map(async (name) => {
            if (up[name]) return up[name]();
            const env = await nodeEnv(name);
            const cwd = volumeFolder(name, image.workdir);
            const { child, output } = spawnService(
              name,
              cli([...(service(name).command ?? image.cmd)]),
              env,
              cwd,
            );
            const base = await listening(name, child, output);
            nodes.set(name, { env, base });
            await untilHealthy(name, child, output);
          }),
        );
      }
    });

    after(async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((done) => {
              if (c.exitCode !== null || c.signalCode !== null) return done();
              const timer = setTimeout(() => c.kill('SIGKILL'), 20_000);
              c.once('exit', () => (clearTimeout(timer), done()));
              c.kill('SIGTERM');
            }),
        ),
      );
      await dropDatabase();
      rmSync(work, { recursive: true, force: true });
    });

    test('every node answers /healthz, and every healthcheck of the file passes', async () => {
      assert.equal(nodes.size, 3);
      for (const [name, { base }] of nodes) {
        const res = await fetch(`${base}/healthz`);
        assert.equal(res.status, 200, name);
        assert.deepEqual(await res.json(), { status: 'ok' }, name);
      }
      for (const name of Object.keys(compose.services)) assert.equal(await healthcheck(name), 0, name);
    });

    test('GET /cluster, with the operator’s credentials, lists the three nodes on every node', async () => {
      const expected = nodeNames
        .map((n) => ({
          id: service(n).environment!.SWITCHBOARD_NODE_ID,
          url: service(n).environment!.SWITCHBOARD_ADVERTISE_URL,
          alive: true,
        }))
        .sort((a, b) => a.id.localeCompare(b.id));
      for (const [name, { base }] of nodes) {
        const refused = await fetch(`${base}/cluster`);
        assert.equal(refused.status, 401, `${name}: without credentials`);
        await refused.arrayBuffer();
        const res = await fetch(`${base}/cluster`, { headers: { authorization: ADMIN } });
        assert.equal(res.status, 200, name);
        const body = (await res.json()) as {
          clustered: boolean;
          clusterName: string;
          answeredBy: string;
          nodes: { id: string; url: string; alive: boolean }[];
        };
        assert.equal(body.clustered, true);
        assert.equal(body.clusterName, service(name).environment!.SWITCHBOARD_CLUSTER_NAME);
        assert.equal(body.answeredBy, service(name).environment!.SWITCHBOARD_NODE_ID);
        assert.deepEqual(
          body.nodes
            .map(({ id, url, alive }) => ({ id, url, alive }))
            .sort((a, b) => a.id.localeCompare(b.id)),
          expected,
          name,
        );
      }
    });

    test('a call placed on one node is seen on the others', async () => {
      const [first, ...others] = [...nodes.values()];
      const dial = await fetch(`${first.base}/sim/v1/devices/ph1001-101/dial`, {
        method: 'POST',
        headers: { authorization: ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '95550001111' }),
      });
      assert.equal(dial.status, 201, await dial.clone().text());
      const callId = ((await dial.json()) as { call: { callObserverId: string } }).call.callObserverId;
      for (const { base } of others) {
        const res = await fetch(`${base}/api/v1/calls/${callId}`, { headers: { authorization: BOB } });
        assert.equal(res.status, 200, `${base}: ${await res.clone().text()}`);
        const call = (await res.json()) as { callState: string };
        assert.notEqual(call.callState, undefined);
      }
    });
  });
});
