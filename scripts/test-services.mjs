// The engines the cluster suites need, for a machine that runs none: when PostgreSQL or NATS does
// not answer where the tests look (SWITCHBOARD_TEST_PG_URL, SWITCHBOARD_TEST_NATS_URL, else the
// standard local ports), a private one is started from the Debian packages' binaries
// (scripts/install-system-deps.sh installs them) on a free port in a temporary folder, for this
// test run only. Returns the variables to pass to the tests and a stop function.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_DEFAULT = 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_DEFAULT = 'nats://127.0.0.1:4222';

function answers(host, port) {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 1500 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
  });
}
const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
const hostPort = (url) => {
  const u = new URL(url);
  return [u.hostname, Number(u.port || (u.protocol.startsWith('nats') ? 4222 : 5432))];
};
async function waitFor(host, port, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await answers(host, port)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

function which(cmd, extra = []) {
  for (const d of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', ...extra]) {
    if (d && existsSync(join(d, cmd))) return join(d, cmd);
  }
  return undefined;
}

/** Starts what is missing. `{ env, notes, stop }`; `notes` says what was started or is missing. */
export async function ensureTestServices() {
  const env = {};
  const notes = [];
  const stops = [];
  const natsUrl = process.env.SWITCHBOARD_TEST_NATS_URL ?? NATS_DEFAULT;
  if (!(await answers(...hostPort(natsUrl)))) {
    const bin = which('nats-server');
    if (bin) {
      const dir = mkdtempSync(join(tmpdir(), 'sb-nats-'));
      const port = await freePort();
      const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
        stdio: 'ignore',
      });
      stops.push(() => (child.kill('SIGTERM'), rmSync(dir, { recursive: true, force: true })));
      if (await waitFor('127.0.0.1', port, 10_000)) {
        env.SWITCHBOARD_TEST_NATS_URL = `nats://127.0.0.1:${port}`;
        notes.push(`started nats-server for the tests on port ${port}`);
      } else notes.push('nats-server did not start');
    } else notes.push(`no NATS at ${natsUrl} and no nats-server to start`);
  }
  const pgUrl = process.env.SWITCHBOARD_TEST_PG_URL ?? PG_DEFAULT;
  if (!(await answers(...hostPort(pgUrl)))) {
    const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
    const bin = versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : undefined;
    if (bin && existsSync(join(bin, 'initdb'))) {
      const dir = mkdtempSync(join(tmpdir(), 'sb-pg-'));
      chmodSync(dir, 0o777);
      const port = await freePort();
      // initdb and postgres refuse to run as root: run them as the packages' postgres user.
      const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
      const run = (args) =>
        spawnSync(asUser[0] ?? args[0], [...asUser.slice(1), ...(asUser.length ? args : args.slice(1))], {
          stdio: 'ignore',
        });
      run([join(bin, 'initdb'), '-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust']);
      run([
        join(bin, 'pg_ctl'),
        '-D',
        join(dir, 'data'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
        '-w',
        'start',
      ]);
      stops.push(() => {
        run([join(bin, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
        rmSync(dir, { recursive: true, force: true });
      });
      if (await waitFor('127.0.0.1', port, 15_000)) {
        env.SWITCHBOARD_TEST_PG_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
        notes.push(`started PostgreSQL for the tests on port ${port}`);
      } else notes.push('PostgreSQL did not start');
    } else notes.push(`no PostgreSQL at ${pgUrl} and no postgresql binaries to start`);
  }
  return { env, notes, stop: () => stops.forEach((s) => s()) };
}
