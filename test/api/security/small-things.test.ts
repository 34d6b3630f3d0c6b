import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { authenticatorFor } from '../../../src/api/auth/index.js';
import { getBasic, grant, send, upgrade } from '../../helpers/raw-http.js';
import { basic, startTestServer, suiteServer, type TestServer } from '../../helpers/server.js';

/** The raw answer to an upgrade offering `protocols` (the headers as the server wrote them). */
function rawUpgrade(s: TestServer, path: string, protocols: string): Promise<string> {
  const { port } = new URL(s.httpUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d;
      if (received.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received.split('\r\n\r\n')[0]));
    socket.write(
      [
        `GET ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        `Sec-WebSocket-Protocol: ${protocols}`,
        '',
        '',
      ].join('\r\n'),
    );
  });
}

const credentials = (userPass: string) => `basic.${Buffer.from(userPass).toString('base64url')}`;

/** Issue 14, finding 9 (the parts of the front door) and finding 6 on a real server. */
describe('the small things of the front door', () => {
  const server = suiteServer();

  test('credentials offered as a subprotocol are never echoed, whatever their place', async () => {
    const s = server();
    const token = credentials('101@1001:1234');
    const first = await rawUpgrade(s, '/api/ws', `${token}, switchboard`);
    assert.match(first, /^HTTP\/1\.1 101 /);
    assert.match(first, /^sec-websocket-protocol: switchboard$/im);
    assert.ok(!first.includes(token));
    // Only the credentials offered: the upgrade selects no protocol at all.
    const alone = await rawUpgrade(s, '/api/ws', token);
    assert.match(alone, /^HTTP\/1\.1 101 /);
    assert.doesNotMatch(alone, /sec-websocket-protocol/i);
    assert.ok(!alone.includes(token));
  });

  test('a PIN change revokes the tokens of that user, under every spelling', async () => {
    const s = server();
    const grants = [];
    for (const u of ['104@1001', '104@01001.ID']) {
      const r = await grant(s, u, '1234');
      assert.equal(r.status, 200);
      grants.push(JSON.parse(r.body) as { access_token: string; refresh_token: string });
    }
    const other = JSON.parse((await grant(s, '103@1001', '1234')).body).access_token as string;
    const extensions = (token: string) =>
      send(s, '/6/v2/api/extensions', { headers: { authorization: `Bearer ${token}` } });
    // An agent may not list extensions (403), but the token is accepted: not 401.
    for (const g of grants) assert.equal((await extensions(g.access_token)).status, 403);

    const changed = await send(s, '/api/v1/tenants/1001/users/104', {
      method: 'PUT',
      headers: { authorization: basic('100@1001:1234'), 'content-type': 'application/json' },
      body: JSON.stringify({ pin: '5678' }),
    });
    assert.equal(changed.status, 200);

    for (const g of grants) {
      assert.equal((await extensions(g.access_token)).status, 401);
      const refreshed = await send(s, '/6/v2/api/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: g.refresh_token }),
      });
      assert.equal(refreshed.status, 401);
    }
    // Another user's token is untouched; the new PIN gets a working token.
    assert.equal((await extensions(other)).status, 403);
    const fresh = JSON.parse((await grant(s, '104@1001', '5678')).body).access_token as string;
    assert.equal((await extensions(fresh)).status, 403);
  });

  test('every answer says nosniff; plain HTTP sends no HSTS', async () => {
    const s = server();
    const answers = [
      await getBasic(s, '/api', '101@1001:1234'),
      await send(s, '/api'),
      await send(s, '/api/nowhere'),
      await send(s, '/6/v2/api/extensions'),
      await send(s, '/6/v2/nowhere'),
      await grant(s, 'nobody', 'x'),
      await send(s, '/healthz'),
      await send(s, '/console/'),
      await send(s, '/nowhere'),
    ];
    for (const a of answers) {
      assert.equal(a.headers['x-content-type-options'], 'nosniff', `${a.status} ${a.body.slice(0, 80)}`);
      assert.equal(a.headers['strict-transport-security'], undefined);
    }
    const refused = await upgrade(s, '/api/ws');
    assert.equal(refused.status, 401);
  });

  test('the SQLite database file is readable by its owner only', () => {
    const s = server();
    assert.equal(statSync(s.runtime.config.db).mode & 0o777, 0o600);
  });

  test('an unknown user, a wrong PIN and a first login each cost one key derivation; a cached one none', async () => {
    const s = server();
    const auth = authenticatorFor(s.runtime);
    const count = async (userPass: string, status: number) => {
      const before = auth.derivations();
      assert.equal((await getBasic(s, '/api', userPass, { from: '127.0.0.6' })).status, status, userPass);
      return auth.derivations() - before;
    };
    assert.equal(await count('777@1001:1234', 401), 1);
    assert.equal(await count('105@1001:0000', 401), 1);
    assert.equal(await count('105@1001:1234', 200), 1);
    assert.equal(await count('105@1001:1234', 200), 0);
  });
});

test('HTTPS answers carry Strict-Transport-Security', async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/tls');
  const s = await startTestServer({
    tls: { cert: readFileSync(join(fixtures, 'cert.pem')), key: readFileSync(join(fixtures, 'key.pem')) },
  });
  const headersOf = (path: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) =>
      httpsGet(s.httpUrl + path, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.headers);
      }).on('error', reject),
    );
  try {
    for (const path of ['/healthz', '/api']) {
      const headers = await headersOf(path);
      assert.equal(headers['strict-transport-security'], 'max-age=31536000', path);
      assert.equal(headers['x-content-type-options'], 'nosniff', path);
    }
  } finally {
    await s.stop();
  }
});
