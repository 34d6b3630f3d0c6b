/**
 * A resume on one node of a socket another node still holds open (its drop not seen there yet;
 * docs/events.md, docs/cluster.md § Sockets): the holder closes it, as resumed on another
 * connection, and stores the session detached before the resume goes on, as a single node does.
 * Before, the old connection stayed open on its node, heard every event the new one heard, and
 * its late detach overwrote the session the new node had claimed. Two in-process nodes, composed
 * as `switchboard serve --nats` composes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CcClient } from '../api/ccs/cc-client.js';
import { CAROL, getJson } from '../api/voice/voice-helpers.js';
import { type Cluster, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import { drop, openCc, openVoice, type RecordingSocket } from '../helpers/resume.js';
import type { TestServer } from '../helpers/server.js';

const env = await clusterEnv();

/** Resolves with the close code and reason the server sent; rejects when it stays open 5 s. */
const closedWith = (sock: RecordingSocket) =>
  new Promise<[number, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the old connection is still open')), 5_000);
    sock.ws.once('close', (code, why) => {
      clearTimeout(timer);
      resolve([code, String(why)]);
    });
  });

describe('a socket resumed on another node than the one holding it', { skip: env.skip }, () => {
  let cluster: Cluster;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    cluster = await startClusterNodes({ nodes: 2, inProcess: true, clock: 'real' });
    [a, b] = cluster.nodes as unknown as TestServer[];
  });
  after(async () => cluster?.stop());

  test('voice: the first node closes it, the set goes on with the new connection', async () => {
    const old = await openVoice(a, CAROL, '?resume');
    const [hello] = await old.waitFor(1);
    const id = hello!.webSocketId as string;
    const sequence = (hello!.resume as { sequence: number }).sequence;
    const sets = `/api/v1/subscriptions/ws/${id}/subscriptionsets`;
    const made = await getJson(a, sets, CAROL, { method: 'POST' });
    assert.equal(made.status, 200);
    const set = `${sets}/${made.body.subscriptionSetId as string}`;
    assert.equal(
      (await getJson(b, `${set}/presenceeventaccounts/102@1001`, CAROL, { method: 'PUT' })).status,
      200,
    );

    const oldClosed = closedWith(old);
    const again = await openVoice(b, CAROL, `?resume=${id}&after=${sequence}`);
    const [first] = await again.waitFor(1);
    assert.deepEqual(first, { webSocketId: id, resume: { status: 'resumed', sequence } });
    assert.deepEqual(await oldClosed, [1000, 'resumed on another connection']);
    for (const node of [a, b]) {
      const read = await getJson(node, `${set}/presenceeventaccounts`, CAROL);
      assert.equal(read.status, 200, 'the set lives on with the new connection');
      assert.match(JSON.stringify(read.body), /102@1001/);
    }

    // What the first node stored as it let go came before the claim: the session is the new
    // connection's, and resumes again (here on the first node) with its set.
    await drop(again);
    const third = await openVoice(a, CAROL, `?resume=${id}&after=${sequence}`);
    const [back] = await third.waitFor(1);
    assert.deepEqual(back, { webSocketId: id, resume: { status: 'resumed', sequence } });
    assert.equal((await getJson(b, `${set}/presenceeventaccounts`, CAROL)).status, 200);
    third.ws.close();
    await third.closed;
  });

  test('contact center: the first node closes the old socket', async () => {
    const connect = async (node: TestServer, resume: unknown) =>
      openCc(node, (await CcClient.login(node, '100@1001')).token, resume);
    const one = await connect(a, true);
    assert.equal(one.answer.success, true, JSON.stringify(one.answer));
    const oldClosed = closedWith(one.sock);
    const two = await connect(b, { session: one.answer.session, after: one.answer.sequences });
    assert.equal(two.answer.resumed, true, JSON.stringify(two.answer));
    assert.deepEqual(await oldClosed, [1000, 'resumed on another connection']);
    two.sock.ws.close();
    await two.sock.closed;
  });
});
