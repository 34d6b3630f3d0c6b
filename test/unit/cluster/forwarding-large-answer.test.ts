/**
 * An owner's answer larger than one NATS message (`max_payload`, 1 MiB by default: a tenant's long
 * list with `expand`) reaches the client whole. It used to make the owner's `respond` throw outside
 * any handler: an unhandled rejection, which ends the owner's process, so one client could take
 * the nodes down one after another with a read.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
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

describe('forwarding an answer larger than a NATS message', { skip: why }, () => {
  after(cleanUp);

  test('reaches the client whole, and the owner lives on', async () => {
    const prefix = `sb.${uniqueClusterName()}`;
    const [ownerNats, forwarderNats] = [await natsConnection(), await natsConnection()];
    const body = Buffer.alloc(3 * ownerNats.info!.max_payload, 'a');
    body.write('{"users":[', 0);
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    const log = pino({ level: 'silent' });
    const owner = new Forwarding({ nats: ownerNats, prefix, membership: membership('owner'), log });
    owner.serve({
      inject: async () => ({
        statusCode: 200,
        headers: { 'content-type': 'application/hal+json' },
        rawPayload: body,
      }),
    } as unknown as FastifyInstance);
    await ownerNats.flush();
    const forwarder = new Forwarding({ nats: forwarderNats, prefix, membership: membership('other'), log });

    const got: { status?: number; headers: Record<string, unknown>; body?: Buffer } = { headers: {} };
    const reply = {
      code: (s: number) => ((got.status = s), reply),
      header: (k: string, v: unknown) => ((got.headers[k] = v), reply),
      send: (b: Buffer) => ((got.body = b), reply),
    };
    const req = {
      method: 'GET',
      url: '/api/v1/tenants/1001/users?expand=item',
      raw: { url: '/api/v1/tenants/1001/users?expand=item' },
      headers: { authorization: 'Basic eA==' },
      id: 'req-1',
      ip: '203.0.113.9',
    };
    const forwarded = await forwarder.forward(
      req as unknown as FastifyRequest,
      reply as unknown as FastifyReply,
      1001,
      undefined,
    );
    await new Promise((r) => setTimeout(r, 50));
    process.off('unhandledRejection', onRejection);
    await owner.close();
    await forwarder.close();

    assert.equal(forwarded, true);
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], 'application/hal+json');
    assert.ok(got.body?.equals(body), `the whole answer (${got.body?.length} of ${body.length} bytes)`);
    assert.deepEqual(rejections, []);
  });
});
