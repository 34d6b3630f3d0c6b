import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { ROOT } from '../../helpers/cli.js';
import { basic, startTestServer } from '../../helpers/server.js';

test('with --no-sim the simulator API is not mounted; the public APIs are', async () => {
  const s = await startTestServer({ sim: false });
  try {
    assert.equal((await s.fetch('/sim/v1/state', { auth: 'admin:admin' })).status, 404);
    assert.equal((await s.fetch('/api', { auth: '101@1001:1234' })).status, 200);
  } finally {
    await s.stop();
  }
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} stops the real CLI server gracefully: exit 0, open sockets get 1001`, async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-signal-')), 's.db');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--db', db, '--log-level', 'silent'],
      { cwd: ROOT },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited early (${code}): ${out}`)));
    });
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: basic('101@1001:1234') },
    });
    await new Promise((r) => ws.once('message', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill(signal);
    assert.equal(await closed, 1001);
    assert.equal(await exited, 0);
  });
}

test('reset returns provisioning and records to the demo world and keeps sockets and their sets', async () => {
  const s = await startTestServer();
  try {
    const admin = 'admin:admin';
    // Change provisioning and leave a call record behind.
    const ext = structuredClone(s.runtime.directory.extension(1001, '105')!);
    ext.firstName = 'Changed';
    await s.runtime.directory.put('extension', ext);
    const ws = new WebSocket(`${s.wsUrl}/api/ws`, { headers: { authorization: basic('100@1001:1234') } });
    const hello = JSON.parse(String(await new Promise((r) => ws.once('message', r)))) as {
      webSocketId: string;
    };
    const set = await s.fetch(`/api/v1/subscriptions/ws/${hello.webSocketId}/subscriptionsets`, {
      method: 'POST',
      auth: '100@1001:1234',
    });
    assert.equal(set.status, 200);
    const setPath = set.headers.get('location')!;
    const made = await s.fetch('/api/v1/calls', {
      method: 'POST',
      auth: '101@1001:1234',
      json: { from: '101@1001', to: '102' },
    });
    const { smdrCallId } = (await made.json()) as { smdrCallId: string };
    await s.fetch('/sim/v1/devices/ph1001-101/hangup', { method: 'POST', auth: admin, json: {} });
    for (let i = 0; i < 50 && !(await s.runtime.callRecords.get(1001, smdrCallId)); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(await s.runtime.callRecords.get(1001, smdrCallId), 'the ended call was recorded');

    const reset = await s.fetch('/sim/v1/reset', { method: 'POST', auth: admin });
    assert.ok(reset.status < 300);
    assert.equal(s.runtime.directory.extension(1001, '105')?.firstName, 'Frank');
    assert.equal(await s.runtime.callRecords.get(1001, smdrCallId), undefined, 'call records emptied');
    assert.equal(ws.readyState, WebSocket.OPEN, 'the socket stays open');
    assert.equal((await s.fetch(setPath, { auth: '100@1001:1234' })).status, 200, 'its set stays');
    ws.close();
  } finally {
    await s.stop();
  }
});
