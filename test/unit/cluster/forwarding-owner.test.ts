/**
 * The owner's side of forwarding, over the real NATS server with a stand-in app:
 * - an answer larger than one NATS message (`max_payload`, 1 MiB by default: a tenant's long list
 *   with `expand`) reaches the client whole. It used to make the owner's `respond` throw outside
 *   any handler: an unhandled rejection, which ends the owner's process, so one client could take
 *   the nodes down one after another with a read;
 * - a stopping owner answers the forwarded requests it is running before its stop goes on (it
 *   closes its app and drops its calls next: a command must not run on what is gone);
 * - a forwarded request carries how long it may still start running: past that (its sender has
 *   answered the client 503 `OWNER_TIMEOUT`, and a retry may be on its way) it is late.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { decodeFrame, encodeFrame } from '../../../src/cluster/forward-wire.js';
import { Forwarding } from '../../../src/cluster/forwarding.js';
import type { Membership } from '../../../src/core/cluster.js';
import {
  cleanUp,
  clusterUnavailable,
  natsConnection,
  uniqueClusterName,
} from '../../helpers/cluster-events.js';

const why = await clusterUnavailable();

const membership = (nodeId: string): Membership => ({
  nodeId,
  clustered: true,
  owns: () => nodeId === 'owner',
  ownerOf: () => 'owner',
  epochOf: () => 1,
  onChange: () => () => {},
  takingOver: () => undefined,
});

interface Injected {
  statusCode: number;
  headers: Record<string, string>;
  rawPayload: Buffer;
}

/** An owner whose app answers with `inject`, and a node that forwards tenant 1001's requests to it. */
async function ownerAndForwarder(
  inject: (opts: { headers: Record<string, string> }) => Promise<Injected>,
  timeoutMs?: number,
) {
  const prefix = `sb.${uniqueClusterName()}`;
  const [ownerNats, forwarderNats] = [await natsConnection(), await natsConnection()];
  const log = pino({ level: 'silent' });
  const bounds = timeoutMs === undefined ? {} : { timeoutMs };
  const owner = new Forwarding({ nats: ownerNats, prefix, membership: membership('owner'), log, ...bounds });
  owner.serve({ inject } as unknown as FastifyInstance);
  await ownerNats.flush();
  const forwarder = new Forwarding({
    nats: forwarderNats,
    prefix,
    membership: membership('other'),
    log,
    ...bounds,
  });
  /** One GET forwarded; what the client was answered. */
  const forward = async () => {
    const got: { status?: number; headers: Record<string, unknown>; body?: Buffer } = { headers: {} };
    const reply = {
      code: (s: number) => ((got.status = s), reply),
      header: (k: string, v: unknown) => ((got.headers[k] = v), reply),
      send: (b: Buffer) => ((got.body = b), reply),
    };
    const url = '/api/v1/tenants/1001/users?expand=item';
    const req = { method: 'GET', url, raw: { url }, headers: {}, id: 'req-1', ip: '203.0.113.9' };
    const forwarded = await forwarder.forward(
      req as unknown as FastifyRequest,
      reply as unknown as FastifyReply,
      1001,
      undefined,
    );
    return { forwarded, ...got };
  };
  return { owner, forwarder, forward };
}

describe('forwarding: the owner’s side', { skip: why }, () => {
  after(cleanUp);

  test('an answer larger than a NATS message reaches the client whole, and the owner lives on', async () => {
    const max = (await natsConnection()).info!.max_payload;
    const body = Buffer.alloc(3 * max, 'a');
    body.write('{"users":[', 0);
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    const { owner, forwarder, forward } = await ownerAndForwarder(async () => ({
      statusCode: 200,
      headers: { 'content-type': 'application/hal+json' },
      rawPayload: body,
    }));
    const got = await forward();
    await new Promise((r) => setTimeout(r, 50));
    process.off('unhandledRejection', onRejection);
    await owner.close();
    await forwarder.close();

    assert.equal(got.forwarded, true);
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], 'application/hal+json');
    assert.ok(got.body?.equals(body), `the whole answer (${got.body?.length} of ${body.length} bytes)`);
    assert.deepEqual(rejections, []);
  });

  test('a stopping owner answers the requests it is running before its stop goes on', async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let finished = false;
    const { owner, forwarder, forward } = await ownerAndForwarder(async () => {
      started();
      await new Promise((r) => setTimeout(r, 300)); // a request that takes a while (a slot, a takeover)
      finished = true;
      return { statusCode: 201, headers: {}, rawPayload: Buffer.from('{"callId":"1"}') };
    });
    const answer = forward();
    await running;
    await owner.close();
    assert.equal(finished, true, 'close waited for the request under way');
    const got = await answer;
    assert.equal(got.status, 201);
    assert.equal(got.body?.toString(), '{"callId":"1"}');
    await forwarder.close();
  });

  test('a forwarded request is late once its sender is about to give up on it', async () => {
    // The sender waits 1.5 s for an answer: the request may start within 1 s of arriving.
    const { owner, forwarder, forward } = await ownerAndForwarder(async ({ headers }) => {
      const req = { headers: { ...headers } } as unknown as FastifyRequest;
      const forwarded = owner.isForwarded(req);
      const atOnce = owner.late(req);
      await new Promise((r) => setTimeout(r, 1_100));
      const after1100 = owner.late(req);
      const body = Buffer.from(JSON.stringify({ forwarded, atOnce, after1100 }));
      return { statusCode: 200, headers: {}, rawPayload: body };
    }, 1_500);
    const got = await forward();
    assert.deepEqual(JSON.parse(got.body!.toString()), { forwarded: true, atOnce: false, after1100: true });
    // A client cannot make a request of its own late (nor forwarded): the header counts with the mark only.
    const own = { headers: { 'x-switchboard-run-by': '0' } } as unknown as FastifyRequest;
    assert.equal(owner.isForwarded(own), false);
    assert.equal(owner.late(own), false);
    await owner.close();
    await forwarder.close();
  });

  test('a node of the previous release, which does not join parts, is refused, not sent half', async () => {
    const max = (await natsConnection()).info!.max_payload;
    const { owner, forwarder } = await ownerAndForwarder(async () => ({
      statusCode: 200,
      headers: {},
      rawPayload: Buffer.alloc(2 * max, 'b'),
    }));
    const nc = await natsConnection();
    const prefix = (owner as unknown as { opts: { prefix: string } }).opts.prefix;
    // The request head as the previous release sends it: no `parts`.
    const head = {
      method: 'GET',
      url: '/api/v1/calls',
      headers: {},
      ip: '203.0.113.9',
      target: 1001,
      from: 'old',
    };
    const answer = await nc.request(`${prefix}.node.owner.http`, encodeFrame(head), { timeout: 2_000 });
    assert.deepEqual(decodeFrame(answer.data).head, { refused: 'failed' });
    await owner.close();
    await forwarder.close();
  });
});
