/**
 * A node that may have missed directory news reads the whole directory again (docs/cluster.md
 * § Directory): after a change it failed to apply, retried until a reload succeeds, and after its
 * NATS connection came back. Without it one missed PIN change left the node on the old PIN until
 * it restarted. A stand-in NATS connection and directory: what matters is what is read when.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { DirectorySync } from '../../../src/cluster/directory-sync.js';
import type { Directory } from '../../../src/directory/directory.js';

function standIns() {
  let deliver: ((err: Error | null, msg: unknown) => void) | undefined;
  const statuses: { type: string }[] = [];
  let wake: (() => void) | undefined;
  const nats = {
    subscribe: (_subject: string, o: { callback: typeof deliver }) => {
      deliver = o.callback;
      return { isClosed: () => false, drain: async () => {} };
    },
    flush: async () => {},
    publish: () => {},
    async *status() {
      for (;;) {
        while (statuses.length) yield statuses.shift()!;
        await new Promise<void>((r) => (wake = r));
      }
    },
  } as unknown as NatsConnection;
  const reads: string[] = [];
  const failing = { refresh: 0, reload: 0 };
  const directory = {
    replicateWith: () => {},
    async reload() {
      reads.push('reload');
      if (failing.reload-- > 0) throw new Error('database away');
    },
    async refresh() {
      reads.push('refresh');
      if (failing.refresh-- > 0) throw new Error('database away');
    },
  } as unknown as Directory;
  const sync = new DirectorySync({
    nats,
    prefix: 'sb.t',
    nodeId: 'me',
    directory,
    log: pino({ level: 'silent' }),
    retryFirstMs: 20,
    onReloaded: () => void reads.push('rebuilt'),
  });
  const news = (written: unknown) =>
    deliver!(null, { json: () => ({ from: 'other', written }), reply: undefined, respond: () => true });
  const status = (type: string) => {
    statuses.push({ type });
    wake?.();
  };
  return { sync, reads, failing, news, status };
}

const until = async (what: string, cond: () => boolean) => {
  const end = Date.now() + 2_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('a change the node failed to apply is followed by a whole reload, tried until it succeeds', async () => {
  const { sync, reads, failing, news } = standIns();
  await sync.start();
  assert.deepEqual(reads, ['reload'], 'read once at the start');
  failing.refresh = 1;
  failing.reload = 1;
  news([{ kind: 'extension', id: '1001:101' }]);
  // refresh fails; a reload 20 ms later fails; one 40 ms after that succeeds; then no more.
  await until('reloaded after the failures', () => reads.length >= 5);
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual(reads, ['reload', 'refresh', 'reload', 'reload', 'rebuilt']);
  await sync.close();
});

test('after its NATS connection came back, the node reads the whole directory again', async () => {
  const { sync, reads, status } = standIns();
  await sync.start();
  status('disconnect');
  status('reconnecting');
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(reads, ['reload']);
  status('reconnect');
  await until('read again', () => reads.length === 3);
  assert.deepEqual(reads, ['reload', 'reload', 'rebuilt'], 'and what follows the directory rebuilt');
  await sync.close();
});
