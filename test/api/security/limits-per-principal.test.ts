import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstAnswers, getBasic, grant, heldRequest, upgrade } from '../../helpers/raw-http.js';
import { basic, suiteServer } from '../../helpers/server.js';

/** 34 spellings of user 101 of tenant 1001: leading zeros in the tenant id, with and without `.ID`. */
const SPELLINGS = Array.from({ length: 17 }, (_, k) => `101@${'0'.repeat(k)}1001`).flatMap((u) => [
  u,
  `${u}.ID`,
]);

/**
 * Issue 14, finding 2: "3 REST requests in flight per client" and "1 WebSocket per client" were
 * keyed on the typed username: 34 spellings of one user held 102 slots and starved an
 * administrator. They are keyed on the resolved principal + address.
 */
describe('limits count per resolved principal, whatever the spelling', () => {
  const server = suiteServer({ limitPerClient: 3, limitInflight: 100, busyDelayMs: 500 });

  test('34 spellings of one user hold 3 REST slots; an administrator is served', async () => {
    assert.equal(SPELLINGS.length, 34);
    const s = server();
    const held = SPELLINGS.map((u) =>
      heldRequest(s, '/api/v1/calls', { headers: { authorization: basic(`${u}:1234`) } }),
    );
    try {
      const answered = await firstAnswers(
        held.map((h) => h.answer),
        31,
      );
      assert.equal(answered.length, 31, 'all but 3 are answered');
      assert.ok(
        answered.every((status) => status === 503),
        `answers: ${answered}`,
      );
      // The 3 left hold the user's slots (on whichever nodes): one more is refused too.
      assert.equal((await getBasic(s, '/api/v1', '101@001001.ID:1234')).status, 503);
      assert.equal((await getBasic(s, '/api/v1', '100@1001:1234')).status, 200);
    } finally {
      for (const h of held) h.abort();
    }
  });

  test('tokens granted under several spellings share the contact-center slots', async () => {
    const s = server();
    const tokens: string[] = [];
    for (const u of SPELLINGS.slice(0, 6)) {
      const r = await grant(s, u, '1234');
      assert.equal(r.status, 200, u);
      tokens.push(JSON.parse(r.body).access_token);
    }
    const held = tokens.map((t) =>
      heldRequest(s, '/6/v2/api/agent_state', { headers: { authorization: `Bearer ${t}` } }),
    );
    try {
      const answered = await firstAnswers(
        held.map((h) => h.answer),
        3,
      );
      assert.deepEqual(answered, [503, 503, 503]);
    } finally {
      for (const h of held) h.abort();
    }
  });

  test('a second spelling of a user with an open socket is refused on both socket APIs', async () => {
    const s = server();
    const first = await upgrade(s, '/api/ws', { headers: { authorization: basic(`${SPELLINGS[0]}:1234`) } });
    assert.equal(first.status, 101);
    const second = await upgrade(s, '/api/ws', { headers: { authorization: basic(`${SPELLINGS[5]}:1234`) } });
    assert.equal(second.status, 429);
    first.ws?.close();

    const connect = async (username: string) => {
      const token = JSON.parse((await grant(s, username, '1234')).body).access_token as string;
      const { ws, first } = await upgrade(s, '/6/v2/sock');
      assert.ok(ws);
      ws.send(JSON.stringify({ request: 'connect', token }));
      return { ws, answer: JSON.parse(await first) };
    };
    const a = await connect('102@1001');
    assert.equal(a.answer.success, true);
    const b = await connect('102@01001.ID');
    assert.deepEqual(b.answer, { response: 'connect', success: false, reason: 'Too many connections' });
    a.ws.close();
  });
});
