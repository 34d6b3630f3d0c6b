import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { headers } from '@nats-io/transport-node';
import { NoAnswer, PART_HEADER, ReplyMux, respond } from '../../../src/cluster/reply-mux.js';
import {
  cleanUp,
  clusterUnavailable,
  natsConnection,
  uniqueClusterName,
} from '../../helpers/cluster-events.js';

const why = await clusterUnavailable();

describe('ReplyMux: the forwarding node’s requests on one inbox', { skip: why }, () => {
  after(cleanUp);
  const subject = () => `sb.${uniqueClusterName()}.node.x.http`;
  /** A subject some node listens on and never answers. */
  const silentOwner = async () => {
    const nc = await natsConnection();
    const s = subject();
    nc.subscribe(s, { callback: () => {} });
    await nc.flush();
    return { nc, s, mux: new ReplyMux(nc, 25, 300) };
  };

  test('answers come back to their own request, also when they arrive out of order', async () => {
    const nc = await natsConnection();
    const s = subject();
    const held: { respond: () => void }[] = [];
    nc.subscribe(s, {
      callback: (_e, msg) => {
        const answer = () => msg.respond(Buffer.concat([Buffer.from('re:'), msg.data]));
        // The first request is answered last.
        if (held.length === 0 && msg.string() === 'one') held.push({ respond: answer });
        else answer();
        if (msg.string() === 'three') held.pop()?.respond();
      },
    });
    await nc.flush();
    const mux = new ReplyMux(nc, 25, 300);
    const answers = await Promise.all(
      ['one', 'two', 'three'].map((w) => mux.request(s, Buffer.from(w), 5_000)),
    );
    assert.deepEqual(
      answers.map((m) => m && Buffer.from(m).toString()),
      ['re:one', 're:two', 're:three'],
    );
  });

  test('an answer larger than a NATS message comes in parts and is joined whole', async () => {
    const nc = await natsConnection();
    const s = subject();
    const max = nc.info!.max_payload;
    // Larger than `max_payload`, and not a whole number of parts.
    const big = Buffer.alloc(2 * max + 12_345);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) % 251;
    const sent: boolean[] = [];
    nc.subscribe(s, {
      callback: (_e, msg) => void sent.push(respond(nc, msg, msg.string() === 'big' ? big : msg.data)),
    });
    await nc.flush();
    const mux = new ReplyMux(nc, 25, 300);
    const [whole, small] = await Promise.all([
      mux.request(s, Buffer.from('big'), 5_000),
      mux.request(s, Buffer.from('small'), 5_000),
    ]);
    assert.deepEqual(sent, [true, true]);
    assert.ok(whole && Buffer.from(whole).equals(big), 'every byte, in order');
    assert.equal(Buffer.from(small!).toString(), 'small');
  });

  test('a whole answer from another node amid an answer’s parts does not end it', async () => {
    const nc = await natsConnection();
    const s = subject();
    const max = nc.info!.max_payload;
    const big = Buffer.alloc(max + 10, 7);
    // Two holders of one socket during its handover: the new one answers in parts, the old one
    // (letting go) answers `moved` in between.
    nc.subscribe(s, {
      callback: (_e, msg) => {
        const parts: Buffer[] = [];
        const fake = {
          respond: (d: Uint8Array, o?: { headers?: unknown }) => (parts.push(Buffer.from(d)), void o, true),
        };
        respond(nc, { ...msg, respond: fake.respond } as unknown as typeof msg, big);
        const h1 = headers();
        h1.set(PART_HEADER, '1/2');
        msg.respond(parts[0], { headers: h1 });
        msg.respond(Buffer.from('moved'));
        const h2 = headers();
        h2.set(PART_HEADER, '2/2');
        msg.respond(parts[1], { headers: h2 });
      },
    });
    await nc.flush();
    const got = await new ReplyMux(nc, 25, 300).request(s, Buffer.from('x'), 5_000);
    assert.ok(got && Buffer.from(got).equals(big));
  });

  test('an answer too large for a request that cannot join parts is not sent, and nothing throws', async () => {
    const nc = await natsConnection();
    const s = subject();
    const results: boolean[] = [];
    nc.subscribe(s, {
      callback: (_e, msg) =>
        void results.push(respond(nc, msg, Buffer.alloc(nc.info!.max_payload + 1), true)),
    });
    await nc.flush();
    await assert.rejects(nc.request(s, Buffer.from('x'), { timeout: 300 }));
    assert.deepEqual(results, [false]);
  });

  test('no node listens on the subject: undefined at once, not a time-out', async () => {
    const mux = new ReplyMux(await natsConnection(), 25, 300);
    const t = Date.now();
    assert.equal(await mux.request(subject(), Buffer.from('x'), 5_000), undefined);
    assert.ok(Date.now() - t < 1_000);
  });

  test('an owner that takes the request and stays silent: a time-out after timeoutMs', async () => {
    const { s, mux } = await silentOwner();
    const t = Date.now();
    await assert.rejects(
      mux.request(s, Buffer.from('x'), 200),
      (e) => e instanceof NoAnswer && e.why === 'timeout',
    );
    assert.ok(Date.now() - t >= 200);
  });

  test('an owner lost with the request in hand: given up on the grace after lost() first holds', async () => {
    const { s, mux } = await silentOwner();
    let lostAt = 0;
    const t = Date.now();
    setTimeout(() => (lostAt = Date.now()), 100);
    await assert.rejects(
      mux.request(s, Buffer.from('x'), 10_000, () => lostAt > 0),
      (e) => e instanceof NoAnswer && e.why === 'lost',
    );
    assert.ok(Date.now() - lostAt >= 300, 'not before the grace');
    assert.ok(Date.now() - t < 2_000, 'not the whole time-out');
  });

  test('a closed connection fails its requests instead of leaving them to the time-out', async () => {
    const { nc, s, mux } = await silentOwner();
    const pending = mux.request(s, Buffer.from('x'), 10_000);
    await nc.flush();
    const t = Date.now();
    await nc.close();
    await assert.rejects(pending, (e) => e instanceof NoAnswer && e.why === 'failed');
    assert.ok(Date.now() - t < 1_000);
    await assert.rejects(
      mux.request(s, Buffer.from('y'), 10_000),
      (e) => e instanceof NoAnswer && e.why === 'failed',
    );
  });
});
