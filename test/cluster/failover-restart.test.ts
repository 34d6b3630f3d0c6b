/**
 * A standalone server killed with live calls (kill -9) and started again on the same database:
 * every call the crash cut gets its ended record in the contact-center API and its `end` in the
 * voice API (a webhook hears it), both saying "node lost"; a caller waiting in a queue waits on;
 * agents are back in their states. On SQLite and on PostgreSQL, through the real CLI.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEMO } from '../../src/directory/demo-ids.js';
import { type DatabaseTarget, openDatabase } from '../../src/store/database.js';
import { startReceiver } from '../api/voice/webhooks/receiver.js';
import { type ClusterNode, freshDatabase, startNodeProcess } from '../helpers/cluster.js';
import { type Answer, ccToken, eventually, postgresOrSkip, request } from './failover-helpers.js';

const BOB = '101@1001:1234';
const ADMIN = 'admin:admin';
const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);
const CALLER = '+15551230001';
const SALES_DID = '+15555550150';

/** Rows the server has written so far. */
async function stored(target: DatabaseTarget): Promise<{ calls: number; agents: string[] }> {
  const db = await openDatabase(target);
  try {
    const calls = await db.kysely.selectFrom('live_calls').select('smdr_call_id').execute();
    const agents = await db.kysely.selectFrom('cc_agent_states').select('ext').execute();
    return { calls: calls.length, agents: agents.map((a) => a.ext) };
  } finally {
    await db.close();
  }
}

async function restartWithLiveCalls(args: string[], target: DatabaseTarget): Promise<void> {
  const receiver = await startReceiver((_n, res) => res.writeHead(200).end());
  const flags = [...args, '--clock', 'virtual', '--webhooks-allow-http', '--webhooks-allow-private'];
  const serve = () => startNodeProcess(flags, 'standalone');
  let server: ClusterNode = await serve();
  try {
    const base = () => server.httpUrl;
    const sim = (path: string, json: unknown = {}) =>
      request(base(), 'POST', `/sim/v1/${path}`, { auth: ADMIN, json });
    const hook = await request(base(), 'POST', '/api/v1/webhooks', {
      auth: BOB,
      json: { url: receiver.url, callEventAccounts: ['101@1001'] },
    });
    assert.equal(hook.status, 201);

    // 103 takes a break; Bob calls Carol, she answers; an outside caller waits in Sales.
    let acme = await ccToken(base(), '100@1001');
    const agentPath = (n: string) => `/6/v2/api/tenants/${ACME}/extensions/${ext(n)}`;
    const onBreak = await request(base(), 'POST', agentPath('103'), {
      auth: acme,
      json: { request: 'updateAgentState', name: 'Break' },
    });
    assert.equal(onBreak.status, 200);
    const made = await request(base(), 'POST', '/api/v1/calls', {
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const { smdrCallId, callId } = made.body as { smdrCallId: string; callId: string };
    assert.equal((await sim(`devices/${phone('102')}/answer`)).status, 200);
    await sim('clock/advance', { ms: 5000 });
    const inbound = await sim('pstn/calls', { from: CALLER, to: SALES_DID, callerName: 'Pat Caller' });
    assert.equal(inbound.status, 201);
    const pstnCallId: string = inbound.body.pstnCallId;

    // The durable state catches up (batches within 20 ms), then the process dies.
    await eventually(async () => {
      const s = await stored(target);
      return s.calls === 2 && s.agents.includes('103');
    }, 'the live calls and the agent state written');
    await server.kill();

    server = await serve();
    acme = await ccToken(base(), '100@1001');

    // Contact-center API: the cut call is a finished record; its last step says why.
    const record = await request(base(), 'GET', `/6/v2/api/calls/${smdrCallId}`, { auth: acme });
    assert.equal(record.status, 200);
    assert.equal(record.body.type, undefined, 'a finished call, not the in-progress shape');
    assert.equal(record.body.outcome, 'Answered');
    assert.equal(record.body.duration, '00:00:05', 'answered until the last moment the old process wrote');
    assert.deepEqual(
      { type: record.body.call_details.at(-1).type, event: record.body.call_details.at(-1).event },
      { type: 'disconnected', event: 'Disconnected (node lost)' },
    );
    const list = await request(base(), 'GET', '/6/v2/api/calls', { auth: acme });
    assert.ok(list.body.items.some((c: { id: string; type?: string }) => c.id === smdrCallId && !c.type));

    // Voice API: Bob's leg ended with "node lost", heard by his webhook; no live leg is left.
    const end = await eventually(async () => {
      for (const r of receiver.received) {
        const b = JSON.parse(r.body);
        if (b.event === 'end') return b;
      }
      return undefined;
    }, 'the end event at the webhook');
    assert.equal(String(end.callId), callId);
    assert.equal(String(end.smdrCallId), smdrCallId);
    assert.equal(end.endReason, 'node lost');
    assert.equal(end.endingParty, 'system');
    const legs = await request(base(), 'GET', '/api/v1/calls', { auth: BOB });
    const ids = (legs.body._embedded?.calls ?? []).map((c: { callId: unknown }) => String(c.callId));
    assert.ok(!ids.includes(callId), 'the cut leg is not live');

    // The outside caller still waits in Sales, same call, same queue time.
    const state: Answer = await request(base(), 'GET', '/sim/v1/state', { auth: ADMIN });
    const sales = state.body.queues.find(
      (q: { tenantId: number; acdExt: string }) => q.tenantId === 1001 && q.acdExt === '500',
    );
    assert.deepEqual(
      sales.calls.map((c: { callerLegId: string }) => c.callerLegId),
      [pstnCallId],
    );
    assert.ok(sales.calls[0].since <= state.body.now, 'it has waited since before the crash');

    // Agents: 103 is still on a break; Bob and Carol are idle and ready, so the caller is offered.
    const agent = async (n: string) =>
      (await request(base(), 'GET', `${agentPath(n)}/agent_state`, { auth: acme })).body;
    assert.equal((await agent('103')).agent_state.state.name, 'Break');
    const offered = await eventually(async () => {
      const [b, c] = [await agent('101'), await agent('102')];
      return [b, c].find((a) => a.queue_state.state === 'Offered');
    }, 'the waiting caller offered to a free agent');
    assert.equal(offered.phone_state.state, 'Ringing');
    assert.equal(offered.queue_state.call_id, sales.calls[0].smdrCallId);
  } finally {
    await server.kill();
    await receiver.close();
  }
}

describe('a standalone server restarted after kill -9 with live calls', () => {
  test('on SQLite', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-failover-')), 'restart.db');
    await restartWithLiveCalls(['--db', file], { kind: 'sqlite', file });
  });

  test('on PostgreSQL', async (t) => {
    if (!(await postgresOrSkip())) return t.skip('no PostgreSQL');
    const db = await freshDatabase();
    try {
      await restartWithLiveCalls(['--database-url', db.url], { kind: 'postgres', url: db.url });
    } finally {
      await db.drop();
    }
  });
});
