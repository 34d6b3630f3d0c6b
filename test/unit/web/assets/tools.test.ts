import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Answer {
  status: number;
  headers: [string, string][];
  json: unknown;
}
// The browser tools' shared module is plain ES (no types): its pure helpers run in Node as they are.
const { explainClose, explainStatus } = (await import(
  pathToFileURL(join(process.cwd(), 'src/web/assets/tools.js')).href
)) as { explainStatus(res: Answer): string; explainClose(code: number, reason?: string): string };

const answer = (status: number, json: unknown = undefined, headers: [string, string][] = []) => ({
  status,
  headers,
  json,
});

describe('the browser tools’ words for common failures', () => {
  test('busy: 503 with the wait from Retry-After', () => {
    const words = explainStatus(answer(503, { errorCode: 'BUSY' }, [['retry-after', '3']]));
    assert.match(words, /busy/);
    assert.match(words, /3 s/);
  });

  test('lock-out, on either API’s body', () => {
    assert.match(explainStatus(answer(403, { errorCode: 'LOCKED_OUT' })), /Locked out/);
    assert.match(explainStatus(answer(403, { success: false, reason: 'Locked Out' })), /Locked out/);
    assert.equal(explainStatus(answer(403, { success: false, reason: 'Forbidden' })), '');
  });

  test('the one-socket-per-client limit: HTTP 429 and close code 1013', () => {
    assert.match(explainStatus(answer(429)), /one socket per client/);
    assert.match(explainClose(1013, 'too many connections'), /one socket per client/);
  });

  test('a server that stops or restarts', () => {
    assert.match(explainStatus(answer(0)), /not running|restarting/);
    assert.match(explainClose(1001, 'server shutting down'), /restarting/);
  });
});
