/**
 * The cluster's virtual clock when a node starts (docs/cluster.md § Clock): a node that joins
 * takes the time of the nodes running; the first node of a cluster that had stopped whole starts
 * where its owners last wrote live state, so the calls it takes over and ends do not end before
 * they started. Real NATS, stand-in resets.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { ClusterWorld } from '../../../src/cluster/shared-world.js';
import { VirtualClock } from '../../../src/core/clock.js';
import {
  cleanUp,
  clusterUnavailable,
  natsConnection,
  uniqueClusterName,
} from '../../helpers/cluster-events.js';

const why = await clusterUnavailable();

async function world(prefix: string, lastStoredAt?: number) {
  const clock = new VirtualClock();
  const w = new ClusterWorld({
    nats: await natsConnection(),
    prefix,
    nodeId: uniqueClusterName(),
    clock,
    log: pino({ level: 'silent' }),
    resetAll: async () => {},
    resetHere: async () => {},
    directorySettled: async () => {},
    lastStoredAt: async () => lastStoredAt,
  });
  await w.start();
  return { clock, w };
}

describe('the virtual clock a node starts with', { skip: why }, () => {
  after(cleanUp);

  test('the first node starts where live state was last written; one that joins takes its time', async () => {
    const prefix = `sb.${uniqueClusterName()}`;
    const start = new VirtualClock().now();
    const hourLater = start + 3_600_000;
    const first = await world(prefix, hourLater);
    assert.equal(first.clock.now(), hourLater, 'brought forward to the last write');
    await first.w.advanceClock(500);
    const joining = await world(prefix, start + 60_000);
    assert.equal(joining.clock.now(), hourLater + 500, "the running node's time, not the rows'");
  });

  test('never back, and nothing stored: the start instant', async () => {
    const alone = await world(`sb.${uniqueClusterName()}`, new VirtualClock().now() - 60_000);
    assert.equal(alone.clock.now(), new VirtualClock().now());
    const empty = await world(`sb.${uniqueClusterName()}`, undefined);
    assert.equal(empty.clock.now(), new VirtualClock().now());
  });
});
