import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, CAROL, getJson } from './voice-helpers.js';
import { drop, openVoice, presence, type RecordingSocket, sequences } from '../../helpers/resume.js';

/** A resumable socket of CAROL with one set watching her own presence. */
async function resumable(s: TestServer) {
  const sock = await openVoice(s, CAROL, '?resume');
  const [first] = await sock.waitFor(1);
  const created = await getJson(s, `/api/v1/subscriptions/ws/${first.webSocketId}/subscriptionsets`, CAROL, {
    method: 'POST',
  });
  assert.equal(created.status, 200);
  const put = await getJson(s, created.body._links['v1:presenceEventSubscriptions'].href, CAROL, {
    method: 'PUT',
    json: { eventAccounts: ['102@1001'] },
  });
  assert.equal(put.status, 200);
  return {
    sock,
    first,
    id: first.webSocketId as string,
    setId: created.body.subscriptionSetId as string,
    setHref: created.headers.get('location')!,
  };
}

const resumeQuery = (id: string, last: number) => `?resume=${id}&after=${last}`;

describe('voice socket: resume', () => {
  let s: TestServer;
  after(() => s?.stop());

  test('a plain socket is unchanged: first frame and event frames carry no sequence', async () => {
    s = await startTestServer();
    const plain = await openVoice(s, ALICE);
    const [first] = await plain.waitFor(1);
    assert.deepEqual(Object.keys(first), ['webSocketId']);
    const set = await getJson(s, `/api/v1/subscriptions/ws/${first.webSocketId}/subscriptionsets`, ALICE, {
      method: 'POST',
    });
    await getJson(s, set.body._links['v1:presenceEventSubscriptions'].href, ALICE, {
      method: 'PUT',
      json: { eventAccounts: ['102@1001'] },
    });
    const r = await resumable(s);
    presence(s, 1);
    await plain.waitFor(2);
    await r.sock.waitFor(2);
    const resumed = r.sock.raw[1];
    assert.match(resumed, /"sequence":\d+,/);
    // The same event on both sockets: identical bytes but for the set id and the sequence.
    const normalized = resumed
      .replace(/"sequence":\d+,/, '')
      .replace(r.setId, set.body.subscriptionSetId as string);
    assert.equal(plain.raw[1], normalized);
    assert.equal('sequence' in plain.frames[1], false);
    plain.ws.close();
    r.sock.ws.close();
    await Promise.all([plain.closed, r.sock.closed]);
  });

  test('drop mid-stream, events while away, resume: every event once, in order, no gap at the seam', async () => {
    const r = await resumable(s);
    assert.equal((r.first.resume as { status: string }).status, 'started');
    const start = (r.first.resume as { sequence: number }).sequence;
    presence(s, 5);
    await r.sock.waitFor(6);
    const seen = sequences(r.sock.frames);
    assert.equal(seen.length, 5);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], 'increasing');
    assert.ok(seen[0] > start);
    // The client processed only three of the five before the network dropped.
    const last = seen[2];
    await drop(r.sock);
    presence(s, 4);
    // Events keep coming while the client reconnects: none may fall between replay and live.
    let live = 0;
    const pump = setInterval(() => {
      presence(s, 1);
      live++;
    }, 2);
    let again: RecordingSocket;
    try {
      again = await openVoice(s, CAROL, resumeQuery(r.id, last));
      await again.waitFor(1);
    } finally {
      clearInterval(pump);
    }
    presence(s, 3);
    const total = 1 + 2 + 4 + live + 3;
    await again.waitFor(total);
    assert.deepEqual(again.frames[0], { webSocketId: r.id, resume: { status: 'resumed', sequence: last } });
    const got = sequences(again.frames);
    assert.equal(got.length, total - 1);
    assert.deepEqual(got.slice(0, 2), seen.slice(3), 'the two unprocessed frames come again');
    for (let i = 1; i < got.length; i++) assert.ok(got[i] > got[i - 1], `in order at ${i}: ${got}`);
    assert.equal(new Set(got).size, got.length, 'no duplicate');
    for (const f of again.frames.slice(1)) assert.equal(f.subscriptionSetId, r.setId);
    // The set is back under the same socket id.
    assert.equal((await getJson(s, r.setHref, CAROL)).status, 200);
    again.ws.close();
    await again.closed;
  });

  test('another user cannot resume a socket; after the grace period nobody can', async () => {
    const r = await resumable(s);
    presence(s, 2);
    await r.sock.waitFor(3);
    const last = sequences(r.sock.frames).at(-1)!;
    await drop(r.sock);
    const thief = await openVoice(s, ALICE, resumeQuery(r.id, last));
    const [tf] = await thief.waitFor(1);
    assert.equal((tf.resume as { status: string }).status, 'failed');
    assert.equal((tf.resume as { reason: string }).reason, 'expired');
    assert.notEqual(tf.webSocketId, r.id);
    thief.ws.close();
    await thief.closed;
    // The grace period (2 minutes by default) passes on the server's clock.
    const adv = await getJson(s, '/sim/v1/clock/advance', 'admin:admin', {
      method: 'POST',
      json: { ms: 121_000 },
    });
    assert.equal(adv.status, 200);
    const late = await openVoice(s, CAROL, resumeQuery(r.id, last));
    const [lf] = await late.waitFor(1);
    assert.equal((lf.resume as { status: string }).status, 'failed');
    assert.equal((lf.resume as { reason: string }).reason, 'expired');
    assert.notEqual(lf.webSocketId, r.id);
    assert.equal((await getJson(s, r.setHref, CAROL)).status, 404);
    // The failed socket is a new resumable one: its own events carry sequences.
    assert.equal(typeof (lf.resume as { sequence: number }).sequence, 'number');
    late.ws.close();
    await late.closed;
  });

  test('a resume while the server still holds the old connection takes it over', async () => {
    const r = await resumable(s);
    presence(s, 1);
    await r.sock.waitFor(2);
    const last = sequences(r.sock.frames)[0];
    const oldClosed = new Promise<[number, string]>((res) =>
      r.sock.ws.once('close', (c, why) => res([c, String(why)])),
    );
    // One socket per client: without the take-over this would be refused 429.
    const again = await openVoice(s, CAROL, resumeQuery(r.id, last));
    const [f] = await again.waitFor(1);
    assert.deepEqual(f, { webSocketId: r.id, resume: { status: 'resumed', sequence: last } });
    assert.deepEqual(await oldClosed, [1000, 'resumed on another connection']);
    presence(s, 1);
    await again.waitFor(2);
    assert.equal(sequences(again.frames)[0], last + 1);
    assert.equal((await getJson(s, r.setHref, CAROL)).status, 200, 'the set stays with the new connection');
    again.ws.close();
    await again.closed;
  });

  test('bad resume parameters are refused before the upgrade', async () => {
    for (const q of [
      '?resume=nope',
      '?resume=3f0e8a52-4a43-4c8e-9a55-5b8a2d1c7e11',
      '?after=3',
      '?resume&after=x',
    ]) {
      await assert.rejects(openVoice(s, CAROL, q), (e: Error & { status?: number }) => e.status === 400, q);
    }
  });
});

describe('voice socket: resume beyond retention', () => {
  let s: TestServer;
  after(() => s?.stop());
  test('more missed events than are retained: a clear failure, never a silent gap', async () => {
    s = await startTestServer({ eventRetention: 5 });
    const r = await resumable(s);
    presence(s, 1);
    await r.sock.waitFor(2);
    const last = sequences(r.sock.frames)[0];
    await drop(r.sock);
    presence(s, 8);
    const again = await openVoice(s, CAROL, resumeQuery(r.id, last));
    const [f] = await again.waitFor(1);
    assert.equal((f.resume as { status: string }).status, 'failed');
    assert.equal((f.resume as { reason: string }).reason, 'retention');
    assert.equal((f.resume as { sequence: number }).sequence, last + 8);
    again.ws.close();
  });
});

describe('voice socket: resume across a restart of the node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-resume-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test('events missed before the restart are replayed by the restarted node, then the stream goes on', async () => {
    const db = join(dir, 'resume.db');
    const first = await startTestServer({ db });
    const r = await resumable(first);
    presence(first, 2);
    await r.sock.waitFor(3);
    const last = sequences(r.sock.frames).at(-1)!;
    await drop(r.sock);
    presence(first, 3);
    await first.stop();

    const second = await startTestServer({ db });
    try {
      const again = await openVoice(second, CAROL, resumeQuery(r.id, last));
      await again.waitFor(4);
      assert.deepEqual(again.frames[0], { webSocketId: r.id, resume: { status: 'resumed', sequence: last } });
      assert.deepEqual(sequences(again.frames), [last + 1, last + 2, last + 3]);
      presence(second, 1);
      await again.waitFor(5);
      assert.equal(sequences(again.frames).at(-1), last + 4, 'the sequence goes on, never reused');
      assert.equal((await getJson(second, r.setHref, CAROL)).status, 200);
      again.ws.close();
    } finally {
      await second.stop();
    }
  });
});
