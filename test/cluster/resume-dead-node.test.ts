/**
 * Two real nodes (child processes) on one PostgreSQL database and NATS: a node is killed (kill -9)
 * while a resumable voice socket of its own is open, so it never writes that the socket went.
 * The survivor lets go of the session: stored as detached once the dead node's heartbeat lapsed,
 * then removed when its grace period has passed on the cluster's clock. The survivor's own open
 * socket keeps its session attached throughout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { type Cluster, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import { openVoice } from '../helpers/resume.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, request } from './failover-helpers.js';

const env = await clusterEnv();
const TTL = 2000;
const GRACE = 4000;

describe('resumable sessions of a node killed with its sockets open', { skip: env.skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterNodes({
      nodes: 2,
      leaseTtlMs: TTL,
      args: ['--resume-grace-ms', String(GRACE)],
    });
  });
  after(async () => cluster?.stop());

  it('are detached once the node is seen dead and removed after their grace', async () => {
    const [survivor, doomed] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const hello = async (node: typeof survivor, auth: string) => {
      const s = await openVoice(node as unknown as TestServer, auth, '?resume');
      const [first] = await s.waitFor(1);
      return { socket: s, id: String(first!.webSocketId) };
    };
    const kept = await hello(survivor, '101@1001:1234');
    const lost = await hello(doomed, '102@1001:1234');

    const db = await openDatabase({ kind: 'postgres', url: cluster.databaseUrl });
    try {
      const row = async (id: string) =>
        db.kysely
          .selectFrom('resume_sessions')
          .select(['detached_at', 'node'])
          .where('id', '=', id)
          .executeTakeFirst();
      await eventually(async () => (await row(lost.id)) && (await row(kept.id)), 'both sessions stored');
      assert.equal((await row(lost.id))?.node, doomed.nodeId);
      assert.equal((await row(kept.id))?.node, survivor.nodeId);

      await doomed.kill();
      const detached = await eventually(
        async () => {
          const r = await row(lost.id);
          return r?.detached_at !== null && r?.detached_at !== undefined ? r : undefined;
        },
        "the dead node's session stored as detached",
        15_000,
      );
      assert.equal(detached.node, doomed.nodeId);
      assert.equal((await row(kept.id))?.detached_at, null, "the survivor's open socket keeps its own");

      const advanced = await request(survivor.httpUrl, 'POST', '/sim/v1/clock/advance', {
        auth: 'admin:admin',
        json: { ms: GRACE },
      });
      assert.equal(advanced.status, 200);
      await eventually(async () => ((await row(lost.id)) ? undefined : true), 'removed after its grace');
      assert.equal((await row(kept.id))?.detached_at, null);
    } finally {
      await db.close();
      kept.socket.ws.close();
    }
  });
});
