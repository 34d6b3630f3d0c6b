/**
 * Every kind of event the demo world's flows raise, collected from a whole runtime (switch and
 * contact center on the demo world, virtual clock): a scripted contact-center story (agents
 * ready, a queued PSTN call offered, answered, recorded, suppressed, transferred, killed, a
 * click-to-call), the switch's own features (DND, ACD sign-in, hunt groups, park, emergency,
 * phone messages, devices), then seeded random operations as the switch's property test makes
 * them. For tests that must hold for every event type (the cluster's event codec).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { PlatformEvent } from '../../src/api/platform-events.js';
import { isDomainError } from '../../src/core/errors.js';
import type { VirtualClock } from '../../src/core/clock.js';
import { DEMO, demoUuid } from '../../src/directory/demo-ids.js';
import { DEFAULTS } from '../../src/server/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { CALL_REQUESTS } from '../../src/switch/types.js';
import { prng } from './prng.js';

export interface DemoEvents {
  runtime: Runtime;
  events: PlatformEvent[];
  close(): Promise<void>;
}

const USERS: [number, string][] = [
  [1001, '101'],
  [1001, '102'],
  [1001, '103'],
  [1001, '104'],
  [1001, '105'],
  [1002, '200'],
  [1002, '201'],
];
const TARGETS = ['101', '102', '103', '104', '500', '501', '600', '700', '911', '+15550001111', '200'];

export async function demoEvents(seed = 20260105, steps = 500): Promise<DemoEvents> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-demo-events-'));
  const runtime = await createRuntime(
    { ...DEFAULTS, db: join(dir, 't.db'), clock: 'virtual', logLevel: 'silent' },
    pino({ level: 'silent' }),
  );
  const events: PlatformEvent[] = [];
  runtime.bus.subscribe((e) => events.push(e));
  const sw = runtime.switch;
  const cc = runtime.contactCenter;
  const clock = runtime.clock as VirtualClock;
  const attempt = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      if (!isDomainError(e)) throw e;
    }
  };
  const legsOf = (t: number, ext: string) => sw.legsOf(t, ext).filter((l) => l.state !== 'ended');
  const live = () => [...sw.legs(1001), ...sw.legs(1002)].filter((l) => l.state !== 'ended');

  // The contact center's story.
  for (const ext of ['101', '102', '103']) attempt(() => cc.setAgentState(1001, ext, 'Ready'));
  const pstn = sw.pstnCall({ from: '+15559990000', to: '+15555550150' });
  clock.advance(1_000);
  const ringing = sw.liveLegs(1001).find((l) => l.state === 'ringing');
  if (ringing) {
    const leg = sw.leg(ringing.callObserverId)!;
    attempt(() =>
      sw.callRequest({
        tenantId: 1001,
        callObserverId: leg.callObserverId,
        request: 'answerCall',
        myExt: leg.ext,
      }),
    );
    clock.advance(5_000);
    attempt(() => cc.startSuppression(1001, leg.smdrCallId));
    clock.advance(1_000);
    attempt(() => cc.stopSuppression(1001, leg.smdrCallId));
    attempt(() => cc.waitTransfer(1001, leg.smdrCallId, '501'));
    clock.advance(20_000);
  }
  attempt(() => sw.pstnHangup(pstn.pstnCallId));
  for (const [from, act] of [
    ['+15559990001', (id: string) => cc.waitTransfer(1001, id, '104')],
    ['+15559990002', (id: string) => cc.waitRedirect(1001, id, DEMO.extensionUuid(1001, '501'))],
  ] as const) {
    sw.pstnCall({ from, to: '+15555550150' });
    const queued = cc.liveCalls(1001).find((c) => c.calling.number === from);
    if (queued) attempt(() => act(queued.smdrCallId));
    clock.advance(20_000);
  }
  for (const l of sw.liveLegs(1001)) attempt(() => cc.kill(1001, l.smdrCallId));
  for (const p of sw.pstnCalls()) attempt(() => sw.pstnHangup(p.pstnCallId));
  attempt(() => cc.dial(1001, '101', '+15550001111', demoUuid('outboundQueue', 1001_01)));
  clock.advance(5_000);
  for (const l of sw.liveLegs(1001)) attempt(() => cc.kill(1001, l.smdrCallId));
  attempt(() => cc.setAgentState(1001, '102', 'Lunch'));

  // The switch's features.
  attempt(() => sw.setDnd(1001, '104', true));
  attempt(() => sw.setDnd(1001, '104', false));
  attempt(() => sw.setAcdSignedIn(1001, '104', false));
  attempt(() => sw.setAcdSignedIn(1001, '104', true));
  attempt(() => sw.unregisterDevice('ph1001-105'));
  attempt(() => sw.registerDevice('ph1001-105'));
  attempt(() => sw.sendMessage(1001, ['ph1001-101'], 'Fire drill at 3', 'high'));
  attempt(() => sw.makeCall({ tenantId: 1001, fromExt: '105', to: '911' }));
  attempt(() => sw.makeCall({ tenantId: 1001, fromExt: '104', to: '600' }));
  clock.advance(3_000);
  const parked = sw.makeCall({ tenantId: 1001, fromExt: '104', to: '105' });
  const callee = legsOf(1001, '105').find((l) => l.smdrCallId === parked.smdrCallId);
  if (callee) {
    attempt(() =>
      sw.callRequest({
        tenantId: 1001,
        callObserverId: callee.callObserverId,
        request: 'answerCall',
        myExt: '105',
      }),
    );
    attempt(() =>
      sw.callRequest({
        tenantId: 1001,
        callObserverId: callee.callObserverId,
        request: 'holdCall',
        myExt: '105',
      }),
    );
    attempt(() =>
      sw.callRequest({
        tenantId: 1001,
        callObserverId: callee.callObserverId,
        request: 'resumeHeldCall',
        myExt: '105',
      }),
    );
    attempt(() =>
      sw.callRequest({
        tenantId: 1001,
        callObserverId: callee.callObserverId,
        request: 'parkCall',
        myExt: '105',
        parkLocation: 2,
      }),
    );
    attempt(() => sw.retrieveParkedCall({ tenantId: 1001, fromExt: '103', parkLocation: 2 }));
  }
  clock.advance(60_000);
  // A consultative transfer, in the second tenant.
  const connect = (from: string, to: string) => {
    const caller = sw.makeCall({ tenantId: 1002, fromExt: from, to });
    const leg = legsOf(1002, to).find((l) => l.smdrCallId === caller.smdrCallId)!;
    sw.callRequest({ tenantId: 1002, callObserverId: leg.callObserverId, request: 'answerCall', myExt: to });
    return caller;
  };
  const first = connect('200', '201');
  sw.callRequest({ tenantId: 1002, callObserverId: first.callObserverId, request: 'holdCall', myExt: '200' });
  sw.callRequest({
    tenantId: 1002,
    callObserverId: first.callObserverId,
    request: 'resumeHeldCall',
    myExt: '200',
  });
  sw.callRequest({ tenantId: 1002, callObserverId: first.callObserverId, request: 'holdCall', myExt: '200' });
  const consult = connect('200', '202');
  sw.callRequest({
    tenantId: 1002,
    callObserverId: consult.callObserverId,
    request: 'transfer',
    myExt: '200',
    otherCallId: first.callObserverId,
  });
  clock.advance(10_000);
  for (const l of live()) attempt(() => sw.endCall(l.smdrCallId));
  // Hunt group membership (provisioning): joinedGroup, then leftGroup.
  const hunt = runtime.directory.extension(1001, '600')!;
  const members = hunt.group!.members;
  await runtime.directory.put('extension', {
    ...hunt,
    group: { ...hunt.group!, members: [...members, '104'] },
  });
  await runtime.directory.put('extension', { ...hunt, group: { ...hunt.group!, members } });

  // Seeded random operations, as the switch's property test makes them.
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const ops: (() => unknown)[] = [
    () => {
      const [t, ext] = pick(USERS);
      return sw.makeCall({ tenantId: t, fromExt: ext, to: pick(TARGETS) });
    },
    () => sw.pstnCall({ from: '+15559990000', to: pick(['+15555550100', '+15555550150']) }),
    () => {
      const l = live().length ? pick(live()) : undefined;
      if (!l) return;
      return sw.callRequest({
        tenantId: l.tenantId,
        callObserverId: l.callObserverId,
        request: pick(CALL_REQUESTS),
        myExt: l.ext,
        otherCallId: live().length ? pick(live()).callObserverId : undefined,
        parkLocation: 1 + Math.floor(r() * 4),
      });
    },
    () => {
      const l = live().filter((x) => x.state === 'ringing' && x.ext);
      if (!l.length) return;
      const x = pick(l);
      return sw.callRequest({
        tenantId: x.tenantId,
        callObserverId: x.callObserverId,
        request: 'answerCall',
        myExt: x.ext,
      });
    },
    () => {
      const [t, ext] = pick(USERS);
      return sw.retrieveParkedCall({ tenantId: t, fromExt: ext, parkLocation: 1 + Math.floor(r() * 4) });
    },
    () => sw.pstnCalls().length && sw.pstnHangup(pick(sw.pstnCalls()).pstnCallId),
    () => {
      const [t, ext] = pick(USERS);
      if (t === 1001 && r() < 0.5) return cc.setAgentState(t, ext, pick(['Ready', 'Lunch', 'Ready']));
      return sw.setDnd(t, ext, r() < 0.3);
    },
    () => clock.advance(Math.floor(r() * 30_000)),
  ];
  for (let i = 0; i < steps; i++) attempt(pick(ops));
  for (const l of live()) attempt(() => sw.endCall(l.smdrCallId));
  clock.advance(1_000_000);
  await cc.recordsWritten();
  return {
    runtime,
    events,
    async close() {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `type:name` of an event (`call:answer`, `cc:call_queued`, `emergency`). */
export function kindOf(e: PlatformEvent): string {
  return 'name' in e ? `${e.type}:${e.name}` : e.type;
}
