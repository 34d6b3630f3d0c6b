import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import {
  acrossCluster,
  mergeParts,
  ownPart,
  PSTN_CALLS,
  STATE,
} from '../../../../src/api/sim/cluster-state.js';
import type { Placement } from '../../../../src/api/route-core/placement.js';
import type { SimState } from '../../../../src/switch/types.js';

const device = (deviceId: string, tenantId: number, registered: boolean, calls: string[] = []) =>
  ({
    deviceId,
    tenantId,
    ownerExt: '101',
    model: 'M',
    registered,
    calls,
    messages: [],
  }) as SimState['devices'][number];
const call = (smdrCallId: string, tenantId: number, startedAt: number) => ({
  smdrCallId,
  tenantId,
  startedAt,
  legs: [],
});
const queue = (tenantId: number, waiting: number) =>
  ({
    tenantId,
    acdExt: '150',
    name: 'Q',
    calls: Array.from({ length: waiting }, () => ({})),
  }) as SimState['queues'][number];

/** A node's view: tenant 1 runs here (a call, phone registered), tenant 2 as provisioned. */
function view(runs: number): SimState {
  return {
    now: 5,
    devices: [device('a', 1, runs === 1, runs === 1 ? ['7'] : []), device('b', 2, runs === 2)],
    calls: [call(`c${runs}`, runs, runs === 1 ? 20 : 10)],
    queues: [queue(1, runs === 1 ? 1 : 0), queue(2, runs === 2 ? 2 : 0)],
    parkLocations: [],
    pstnCalls: [{ pstnCallId: `p${runs}` } as SimState['pstnCalls'][number]],
    pstnNumbers: [{ number: '+1555', answer: 'busy' } as unknown as SimState['pstnNumbers'][number]],
  };
}

describe('the simulator state of a cluster', () => {
  it("a node's part holds only the tenants it runs, and its outside calls", () => {
    const part = ownPart(view(2), (t) => t === 2);
    assert.deepEqual(
      part.devices.map((d) => d.deviceId),
      ['b'],
    );
    assert.deepEqual(
      part.queues.map((q) => q.tenantId),
      [2],
    );
    assert.deepEqual(
      part.calls.map((c) => c.smdrCallId),
      ['c2'],
    );
    assert.deepEqual(
      part.pstnCalls.map((c) => c.pstnCallId),
      ['p2'],
    );
  });

  it("merged: each tenant as its owner sees it, every node's calls oldest first, provisioned order kept", () => {
    const here = view(1);
    const merged = mergeParts(here, [ownPart(view(2), (t) => t === 2)]);
    assert.deepEqual(
      merged.devices.map((d) => [d.deviceId, d.registered, d.calls]),
      [
        ['a', true, ['7']],
        ['b', true, []],
      ],
    );
    assert.deepEqual(
      merged.queues.map((q) => q.calls.length),
      [1, 2],
    );
    assert.deepEqual(
      merged.calls.map((c) => c.smdrCallId),
      ['c2', 'c1'],
    );
    assert.deepEqual(
      merged.pstnCalls.map((c) => c.pstnCallId),
      ['p1', 'p2'],
    );
    assert.deepEqual(merged.pstnNumbers, here.pstnNumbers);
    assert.equal(merged.now, here.now);
  });

  it('with no other part, the merge is the node itself', () => {
    assert.deepEqual(mergeParts(view(1), []), view(1));
  });

  describe('a read of the whole cluster', () => {
    const req = {} as FastifyRequest;
    /** Node 1 of two: runs tenant 1; node 2 answers its own part of `view(2)`. */
    const node1 = (forwarded: boolean) =>
      ({
        isForwarded: () => forwarded,
        runsHere: (t: number) => t === 1,
        gather: async () => [ownPart(view(2), (t) => t === 2)],
      }) as unknown as Placement;

    it('standalone: this node alone, nothing gathered', async () => {
      assert.deepEqual(await acrossCluster(undefined, req, view(1), STATE), view(1));
    });

    it("asked by another node: this node's part only", async () => {
      const part = await acrossCluster(node1(true), req, view(1), STATE);
      assert.deepEqual(
        part,
        ownPart(view(1), (t) => t === 1),
      );
      const calls = await acrossCluster(node1(true), req, { calls: view(1).pstnCalls }, PSTN_CALLS);
      assert.deepEqual(
        calls.calls.map((c) => c.pstnCallId),
        ['p1'],
      );
    });

    it("asked by a client: every node's parts merged", async () => {
      const merged = await acrossCluster(node1(false), req, view(1), STATE);
      assert.deepEqual(merged, mergeParts(view(1), [ownPart(view(2), (t) => t === 2)]));
      const placement = { isForwarded: () => false, gather: async () => [{ calls: view(2).pstnCalls }] };
      const local = { calls: view(1).pstnCalls };
      const calls = await acrossCluster(placement as unknown as Placement, req, local, PSTN_CALLS);
      assert.deepEqual(
        calls.calls.map((c) => c.pstnCallId),
        ['p1', 'p2'],
      );
    });
  });
});
