import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type CloseInfo,
  ConnectRefusedError,
  HandshakeError,
  UpgradeRefusedError,
  VoiceApiError,
} from '../../../packages/client/src/index.js';
import { judgeFailure } from '../../../packages/client/src/socket/judge.js';
import { Reconnector, type Session } from '../../../packages/client/src/socket/reconnector.js';

const problem = (status: number, errorCode: string) =>
  new VoiceApiError('GET', '/api/ws', { status, errorCode, parameters: [], detail: '', type: '', title: '' });

test('which failed socket attempts are repeated, and not before when', () => {
  const cases: [string, unknown, boolean, number?][] = [
    ['429: the old socket still counted', problem(429, 'CONNECTION_LIMIT_PER_CLIENT'), true],
    ['429 without a problem body', new UpgradeRefusedError('ws://x', 429, '', undefined), true],
    ['503 with Retry-After', new UpgradeRefusedError('ws://x', 503, '', 60), true, 60_000],
    ['a network error', new Error('ECONNREFUSED'), true],
    ['no webSocketId in time', new HandshakeError('no webSocketId message within 10 ms'), true],
    ['"Too many connections" (contact center)', new ConnectRefusedError('Too many connections', true), true],
    ['401: bad credentials', problem(401, 'UNAUTHORIZED'), false],
    ['403: locked out', problem(403, 'LOCKED_OUT'), false],
    ['"Unauthorized" (contact center)', new ConnectRefusedError('Unauthorized', false), false],
  ];
  for (const [what, error, retry, minDelayMs] of cases) {
    const verdict = judgeFailure(error);
    assert.deepEqual(
      [verdict.retry, verdict.retry ? verdict.minDelayMs : undefined],
      [retry, minDelayMs],
      what,
    );
  }
});

class FakeSession implements Session {
  end!: (info: CloseInfo) => void;
  readonly closed = new Promise<CloseInfo>((resolve) => (this.end = resolve));
  close() {
    this.end({ code: 1000, reason: 'client closed' });
  }
}

test('a reconnect refused with 429 is tried again with growing delays until admitted', async () => {
  const first = new FakeSession();
  const replacement = new FakeSession();
  const refused = problem(429, 'CONNECTION_LIMIT_PER_CLIENT');
  const outcomes: (FakeSession | Error)[] = [first, refused, refused, replacement];
  const seen: { attempt: number; delayMs: number; error: unknown }[] = [];
  let admitted!: (s: FakeSession) => void;
  const reconnected = new Promise<FakeSession>((resolve) => (admitted = resolve));
  const reconnector = new Reconnector<FakeSession>(
    async () => {
      const next = outcomes.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
    judgeFailure,
    { initialDelayMs: 1, factor: 2, maxDelayMs: 100, jitter: 0 },
    {
      connected: (s, reconnect) => reconnect && admitted(s),
      disconnected: () => {},
      reconnecting: (attempt, delayMs, error) => seen.push({ attempt, delayMs, error }),
      gaveUp: (e) => assert.fail(`gave up: ${String(e)}`),
    },
  );
  assert.equal(await reconnector.start(), first);
  first.end({ code: 1006, reason: '' });
  assert.equal(await reconnected, replacement);
  assert.deepEqual(seen, [
    { attempt: 1, delayMs: 1, error: undefined },
    { attempt: 2, delayMs: 2, error: refused },
    { attempt: 3, delayMs: 4, error: refused },
  ]);
  reconnector.close();
});
