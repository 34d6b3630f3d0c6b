import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  backoffDelay,
  CLIENT_VERSION,
  expandTemplate,
  keepAliveInterval,
  userAgent,
} from '../../../packages/client/src/index.js';

test('reconnect delays grow exponentially up to the cap, with jitter below each ceiling', () => {
  const top = (attempt: number) => backoffDelay(attempt, { random: () => 0 });
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map(top), [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  // jitter 0.5: the delay is drawn from [ceiling/2, ceiling].
  assert.equal(backoffDelay(3, { random: () => 0.999999 }), 2000);
  assert.equal(backoffDelay(3, { random: () => 0.5 }), 3000);
  const custom = { initialDelayMs: 100, maxDelayMs: 1000, factor: 3, jitter: 0 };
  assert.deepEqual(
    [0, 1, 2, 3].map((a) => backoffDelay(a, custom)),
    [100, 300, 900, 1000],
  );
  for (let i = 0; i < 100; i++) {
    const d = backoffDelay(2);
    assert.ok(d >= 1000 && d <= 2000, String(d));
  }
});

test('the keep-alive interval stays below the server idle time-out', () => {
  assert.equal(keepAliveInterval({}), 30_000);
  assert.equal(keepAliveInterval({ serverIdleTimeoutMs: 600 }), 200);
  assert.throws(() => keepAliveInterval({ keepAliveMs: 3_600_000 }), RangeError);
  assert.throws(() => keepAliveInterval({ keepAliveMs: 0 }), RangeError);
});

test('the User-Agent names the client, its version and Node; the version is the package’s', () => {
  const pkg = JSON.parse(
    readFileSync(new URL('../../../packages/client/package.json', import.meta.url), 'utf8'),
  );
  assert.equal(pkg.name, '@switchboard/client');
  assert.equal(CLIENT_VERSION, pkg.version);
  assert.equal(userAgent(), `switchboard-client/${pkg.version} node/${process.versions.node}`);
  assert.equal(
    userAgent('wallboard/2.0'),
    `wallboard/2.0 switchboard-client/${pkg.version} node/${process.versions.node}`,
  );
});

test('URI templates: simple strings are encoded, absent query variables left out', () => {
  assert.equal(
    expandTemplate('/api/v1/tenants/1001/extensions{?expand,filter,extensionType,agent}', {
      filter: 'eq(name,Bob Brown)',
      agent: true,
    }),
    '/api/v1/tenants/1001/extensions?filter=eq%28name%2CBob%20Brown%29&agent=true',
  );
  assert.equal(
    expandTemplate('/api/v1/presencestatus/parklocationstatus/{accountId}', { accountId: 'PL2@1001' }),
    '/api/v1/presencestatus/parklocationstatus/PL2%401001',
  );
  assert.equal(expandTemplate('/x{?a,b}', {}), '/x');
});
