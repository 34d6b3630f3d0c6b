import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-cfg-'));
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'hello');
const db = join(dir, 'x.db');

const cases: { name: string; args: string[]; env?: Record<string, string>; match: RegExp }[] = [
  {
    name: 'port out of range',
    args: ['serve', '--port', '70000', '--db', db],
    match: /--port: 70000 is out of range/,
  },
  {
    name: 'port not a number',
    args: ['serve', '--port', 'http', '--db', db],
    match: /--port: expected a whole number/,
  },
  {
    name: 'bad port from the environment',
    args: ['serve', '--db', db],
    env: { SWITCHBOARD_PORT: '-1' },
    match: /SWITCHBOARD_PORT: expected a whole number/,
  },
  {
    name: 'unreadable certificate',
    args: ['serve', '--db', db, '--tls-cert', join(dir, 'missing.pem'), '--tls-key', notPem],
    match: /--tls-cert: cannot read .*missing\.pem: ENOENT/,
  },
  {
    name: 'certificate that is not PEM',
    args: ['serve', '--db', db, '--tls-cert', notPem, '--tls-key', notPem],
    match: /--tls-cert: .* is not a PEM file/,
  },
  {
    name: 'certificate without key',
    args: ['serve', '--db', db, '--tls-cert', notPem],
    match: /--tls-cert and --tls-key must be given together/,
  },
  {
    name: 'unreachable database URL',
    args: ['serve', '--database-url', 'postgres://sb@127.0.0.1:1/none'],
    match: /database not reachable \(postgres:\/\/sb@127\.0\.0\.1:1\/none\)/,
  },
  {
    name: 'database URL that is not postgres',
    args: ['serve', '--database-url', 'mysql://x'],
    match: /--database-url must start with postgres:\/\//,
  },
  { name: 'unknown flag', args: ['serve', '--colour', 'red'], match: /unknown option --colour/ },
  {
    name: 'a history flag without --scale',
    args: ['seed', '--history-days', '3', '--db', db],
    match: /--history-days goes with --scale/,
  },
  {
    name: 'scale out of range',
    args: ['seed', '--scale', '0', '--db', db],
    match: /--scale: expected a whole number from 1 to 1000, got "0"/,
  },
  {
    name: 'a history that ends in the future',
    args: ['seed', '--scale', '2', '--history-end', '2999-01-01', '--db', db],
    match: /--history-end: 2999-01-01 is in the future/,
  },
  {
    name: 'a history longer than call ids go back',
    args: ['seed', '--scale', '2', '--history-end', '2025-03-01', '--history-days', '90', '--db', db],
    match: /--history-days: expected a whole number from 1 to 59, got "90"/,
  },
  {
    name: 'bad clock',
    args: ['serve', '--clock', 'fast', '--db', db],
    match: /--clock: expected one of real, virtual/,
  },
  {
    name: 'demo telco passwords on an address that is not loopback',
    args: ['serve', '--host', '0.0.0.0', '--db', db],
    match:
      /refusing to serve the public demo passwords of admin and operator on 0\.0\.0\.0, not a loopback address: set SWITCHBOARD_ADMIN_PASSWORD and SWITCHBOARD_OPERATOR_PASSWORD, or accept them with --demo-passwords anywhere$/,
  },
  {
    name: 'a demo telco password anywhere, with --demo-passwords never',
    args: ['serve', '--demo-passwords', 'never', '--db', db],
    env: { SWITCHBOARD_ADMIN_PASSWORD: 'set-by-the-operator' },
    match:
      /refusing to serve the public demo passwords of operator \(--demo-passwords never\): set SWITCHBOARD_OPERATOR_PASSWORD$/,
  },
  {
    name: 'bad --demo-passwords from the environment',
    args: ['serve', '--db', db],
    env: { SWITCHBOARD_DEMO_PASSWORDS: 'sometimes' },
    match: /SWITCHBOARD_DEMO_PASSWORDS: expected one of loopback, anywhere, never/,
  },
];

describe('configuration errors give one clear line and a non-zero exit', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const r = await runCli(c.args, c.env);
      assert.equal(r.code, 2, `exit code (stderr: ${r.stderr})`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `exactly one line, got:\n${r.stderr}`);
      assert.match(lines[0], /^switchboard: /);
      assert.match(lines[0], c.match);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  test('a port already in use is one line too', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    const r = await runCli(['serve', '--port', String(port), '--db', join(dir, 'busy.db')]);
    blocker.close();
    assert.equal(r.code, 2);
    assert.match(r.stderr.trim(), /^switchboard: cannot listen: .*EADDRINUSE/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});
