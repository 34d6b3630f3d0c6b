import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { type Config, ConfigError, DEFAULTS, parseConfig } from '../../../src/server/config.js';
import { banner, startServer } from '../../../src/server/serve.js';
import { basic, startTestServer } from '../../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-creds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = 'Adm1n-from-the-operator';
const OPERATOR = 'Op3rator-from-the-operator';

/** The status the simulator's state answers a telco user with these credentials. */
async function statusAs(httpUrl: string, userPass: string): Promise<number> {
  const res = await fetch(`${httpUrl}/sim/v1/clock`, { headers: { authorization: basic(userPass) } });
  await res.arrayBuffer();
  return res.status;
}

describe('telco users from the operator', () => {
  test('flags and variables name the passwords, flags win', () => {
    const env = { SWITCHBOARD_ADMIN_PASSWORD: 'from-env', SWITCHBOARD_OPERATOR_PASSWORD: 'op-env' };
    const fromEnv = parseConfig([], env);
    assert.equal(fromEnv.adminPassword, 'from-env');
    assert.equal(fromEnv.operatorPassword, 'op-env');
    assert.equal(parseConfig(['--admin-password', 'from-flag'], env).adminPassword, 'from-flag');
    assert.equal(parseConfig([], {}).adminPassword, undefined);
  });

  test('a fresh database takes them; the demo passwords do not work, also after a reset', async () => {
    const s = await startTestServer({ adminPassword: ADMIN, operatorPassword: OPERATOR });
    try {
      assert.equal(await statusAs(s.httpUrl, `admin:${ADMIN}`), 200);
      assert.equal(await statusAs(s.httpUrl, 'admin:admin'), 401);
      assert.equal(await statusAs(s.httpUrl, 'operator:operator'), 401);
      assert.equal(await statusAs(s.httpUrl, `operator:${OPERATOR}`), 403);
      const reset = await s.fetch('/sim/v1/reset', { method: 'POST', auth: `admin:${ADMIN}` });
      assert.equal(reset.status, 204);
      assert.equal(await statusAs(s.httpUrl, `admin:${ADMIN}`), 200);
      assert.equal(await statusAs(s.httpUrl, 'admin:admin'), 401);
      const text = banner(s);
      assert.ok(!text.includes(ADMIN) && !text.includes(OPERATOR), text);
      assert.match(text, /admin {6}\/ \(set by the operator\)/);
      // Tenant credentials of the demo world are still printed.
      assert.match(text, /100@1001 {3}\/ 1234/);
    } finally {
      await s.stop();
    }
  });

  test('a database seeded with the demo passwords gets the operator’s at the next start', async () => {
    const db = join(dir, 'seeded.db');
    const demo = await startTestServer({ db });
    assert.equal(await statusAs(demo.httpUrl, 'admin:admin'), 200);
    assert.match(banner(demo), /admin {6}\/ admin/);
    await demo.close();
    const set = await startTestServer({ db, adminPassword: ADMIN });
    try {
      assert.equal(await statusAs(set.httpUrl, 'admin:admin'), 401);
      assert.equal(await statusAs(set.httpUrl, `admin:${ADMIN}`), 200);
      // The operator user was not named: it keeps its stored (demo) password, so it is known
      // (403: the simulator is not among its permissions) rather than refused (401).
      assert.equal(await statusAs(set.httpUrl, 'operator:operator'), 403);
    } finally {
      await set.close();
    }
  });
});

describe('where the demo telco passwords may be served (--demo-passwords)', () => {
  const at = (host: string, overrides: Partial<Config> = {}): Config => ({
    ...DEFAULTS,
    port: 0,
    host,
    db: join(mkdtempSync(join(dir, 'where-')), 'w.db'),
    clock: 'virtual',
    ...overrides,
  });

  test('loopback by default: elsewhere the server refuses to start, before it opens the database', async () => {
    assert.equal(parseConfig([], {}).demoPasswords, 'loopback');
    for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
      const config = at(host);
      await assert.rejects(
        startServer(config, pino({ level: 'silent' })),
        (e: Error) => e instanceof ConfigError && /demo passwords of admin and operator on/.test(e.message),
      );
      assert.ok(!existsSync(config.db), `${host}: no database was created`);
    }
    await assert.rejects(startServer(at('0.0.0.0', { adminPassword: ADMIN })), /of operator on 0\.0\.0\.0/);
  });

  test('loopback by default: every loopback spelling starts, and any address once both are set', async () => {
    for (const config of [
      at('127.0.0.1'),
      at('localhost'),
      at('::1'),
      at('127.0.0.2'),
      at('0.0.0.0', { adminPassword: ADMIN, operatorPassword: OPERATOR }),
    ]) {
      const s = await startServer(config, pino({ level: 'silent' })).catch((e: Error) => e);
      if (s instanceof Error) {
        // ::1 or 127.0.0.2 may not be configured on this machine: only the listen may fail.
        assert.ok(!(s instanceof ConfigError), `${config.host}: ${s.message}`);
        continue;
      }
      await s.close();
    }
  });

  test('never: no demo password even on loopback; anywhere: started', async () => {
    await assert.rejects(
      startServer(at('127.0.0.1', { demoPasswords: 'never', operatorPassword: OPERATOR })),
      /demo passwords of admin \(--demo-passwords never\): set SWITCHBOARD_ADMIN_PASSWORD$/,
    );
    const both = await startServer(
      at('127.0.0.1', { demoPasswords: 'never', adminPassword: ADMIN, operatorPassword: OPERATOR }),
      pino({ level: 'silent' }),
    );
    await both.close();
    const anywhere = await startServer(
      at('0.0.0.0', { demoPasswords: 'anywhere' }),
      pino({ level: 'silent' }),
    );
    await anywhere.close();
    assert.equal(parseConfig(['--demo-passwords', 'never'], {}).demoPasswords, 'never');
    assert.equal(parseConfig([], { SWITCHBOARD_DEMO_PASSWORDS: 'anywhere' }).demoPasswords, 'anywhere');
  });
});

describe('the demo-credentials warning (--demo-passwords anywhere)', () => {
  /** Starts a server on `host` and returns the warnings it logged while starting. */
  async function warningsAt(host: string, overrides: Partial<Config> = {}): Promise<string[]> {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const db = join(mkdtempSync(join(dir, 'warn-')), 'w.db');
    const config: Config = {
      ...DEFAULTS,
      port: 0,
      host,
      db,
      clock: 'virtual',
      demoPasswords: 'anywhere',
      ...overrides,
    };
    const server = await startServer(config, pino({ level: 'warn' }, sink));
    await server.close();
    return lines.map((l) => JSON.parse(l) as { level: number; msg: string }).map((l) => l.msg);
  }

  test('once, on an address that is not loopback, with the demo credentials', async () => {
    const warnings = await warningsAt('0.0.0.0');
    assert.equal(warnings.filter((m) => /demo credentials/.test(m)).length, 1, warnings.join('\n'));
    assert.match(warnings[0], /admin and operator/);
  });

  test('not on loopback, and not once the operator set both passwords', async () => {
    assert.deepEqual(await warningsAt('127.0.0.1'), []);
    assert.deepEqual(await warningsAt('0.0.0.0', { adminPassword: ADMIN, operatorPassword: OPERATOR }), []);
  });

  test('names the user still on the demo password', async () => {
    const warnings = await warningsAt('0.0.0.0', { adminPassword: ADMIN });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /demo credentials of operator: .*; set SWITCHBOARD_OPERATOR_PASSWORD$/);
  });
});
