import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ccJournalRenderer } from '../../../src/api/ccs/cc-resume.js';
import { eventFrame } from '../../../src/api/ccs/event-frames.js';
import { renderAtSource } from '../../../src/server/render-at-source.js';
import { eventKeys, isFramed, voiceJournalRenderer } from '../../../src/api/voice/events/fanout.js';
import { type FramedEvent, framer } from '../../../src/api/voice/events/frames.js';
import { decodeEvent, encodeEvent } from '../../../src/cluster/event-codec.js';
import { type DemoEvents, demoEvents, kindOf } from '../../helpers/demo-events.js';

/** Every kind the demo flows must have raised, so the round trip below covers each. */
const EXPECTED = [
  ...['dial', 'ringback', 'offer', 'ringing', 'answer', 'forward', 'hold', 'resume', 'transfer'],
  ...['callError', 'end', 'park', 'retrieve', 'retrieved'],
]
  .map((n) => `call:${n}`)
  .concat(
    ['idle', 'busy', 'available', 'unavailable', 'signedInAcd', 'signedOutAcd', 'dndOn', 'dndOff'].map(
      (n) => `presence:${n}`,
    ),
    ['presence:joinedGroup', 'presence:leftGroup', 'parkLocation:idle', 'parkLocation:busy'],
    ['emergency', 'phoneMessage', 'device', 'callEnded'],
    ['agent_state_changed', 'phone_state_changed', 'queue_state_changed', 'queue_statistics'].map(
      (n) => `cc:${n}`,
    ),
    ['queued', 'offered', 'not_answered', 'answered', 'redirected', 'transferred', 'dialed', 'ended'].map(
      (n) => `cc:call_${n}`,
    ),
    ['recording_started', 'recording_stopped', 'suppression_started', 'suppression_stopped'].map(
      (n) => `cc:${n}`,
    ),
  );

/** Where a value is not plain JSON data (a Map, a Date, a class instance, a non-finite number). */
function notPlain(v: unknown, path = ''): string | undefined {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : path;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const bad = notPlain(x, `${path}[${i}]`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    for (const [k, x] of Object.entries(v)) {
      const bad = notPlain(x, `${path}.${k}`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  return path || '(root)';
}

describe('cluster event codec', () => {
  let demo: DemoEvents;
  before(async () => {
    demo = await demoEvents();
  });
  after(() => demo.close());

  test('the demo flows raise every kind of event', () => {
    const seen = new Set(demo.events.map(kindOf));
    assert.deepEqual(
      EXPECTED.filter((k) => !seen.has(k)),
      [],
    );
  });

  test('every event is plain JSON data (no Map, Date, class or non-finite number)', () => {
    for (const e of demo.events) assert.equal(notPlain(e), undefined, `${kindOf(e)}: ${JSON.stringify(e)}`);
  });

  test('every frame rendered from the decoded event is byte-identical to the original’s', () => {
    const directory = demo.runtime.directory;
    const voiceJournal = voiceJournalRenderer(directory);
    const ccJournal = ccJournalRenderer(directory);
    const atSource = renderAtSource(directory);
    let frames = 0;
    for (const e of demo.events) {
      const d = decodeEvent(encodeEvent(e));
      const what = `${kindOf(e)} ${JSON.stringify(e)}`;
      assert.equal(JSON.stringify(d), JSON.stringify(e), what);
      // As its owner publishes it: with what it rendered of it, which renders the same frames.
      const r = decodeEvent(encodeEvent(e, JSON.stringify(atSource(e))));
      if (isFramed(e)) assert.equal(framer(r as FramedEvent)('s', 42), framer(e)('s', 42), what);
      assert.equal(JSON.stringify(voiceJournal(r)), JSON.stringify(voiceJournal(e)), what);
      assert.equal(JSON.stringify(ccJournal(r)), JSON.stringify(ccJournal(e)), what);
      if (isFramed(e)) {
        assert.ok(isFramed(d));
        const [fe, fd] = [framer(e), framer(d)];
        assert.equal(
          fd('0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50'),
          fe('0b5c1f7e-2d44-4b7a-8f1e-6c2a9d3e4f50'),
          what,
        );
        assert.equal(fd('s', 42), fe('s', 42), what);
        assert.deepEqual(eventKeys(d, directory), eventKeys(e, directory), what);
        assert.equal(JSON.stringify(voiceJournal(d)), JSON.stringify(voiceJournal(e)), what);
        frames++;
      }
      if (e.type === 'cc') {
        assert.equal(d.type, 'cc');
        const original = JSON.stringify(eventFrame(directory, e));
        assert.notEqual(original, 'null', what);
        assert.equal(JSON.stringify(eventFrame(directory, d as typeof e)), original, what);
        assert.equal(JSON.stringify(ccJournal(d)), JSON.stringify(ccJournal(e)), what);
        frames++;
      }
    }
    assert.ok(frames > 500, `only ${frames} frames compared`);
  });

  test('an event carries what its owner rendered: a directory changed after it does not show', async () => {
    const directory = demo.runtime.directory;
    const atSource = renderAtSource(directory);
    const agentEvent = demo.events.find((e) => e.type === 'cc' && e.category === 'agent');
    const callEvent = demo.events.find(
      (e) =>
        e.type === 'call' && directory.extension(e.tenantId, e.observed.split('@')[0]!)?.type === 'userExt',
    );
    assert.ok(agentEvent?.type === 'cc' && agentEvent.category === 'agent' && callEvent?.type === 'call');
    const agentExt = directory.extension(agentEvent.tenantId, agentEvent.data.agent.ext)!;
    const callExt = directory.extension(callEvent.tenantId, callEvent.observed.split('@')[0]!)!;
    const frameThen = JSON.stringify(eventFrame(directory, agentEvent));
    const keysThen = eventKeys(callEvent, directory);
    const carried = [agentEvent, callEvent].map((e) =>
      decodeEvent(encodeEvent(e, JSON.stringify(atSource(e)))),
    );
    const bare = [agentEvent, callEvent].map((e) => decodeEvent(encodeEvent(e)));
    try {
      // Renamed, and the user's extension made a group's (one extension may be both), after the
      // events were published.
      const changed = new Map([[agentExt.id, { ...agentExt, name: 'Renamed Since' }]]);
      changed.set(callExt.id, { ...(changed.get(callExt.id) ?? callExt), type: 'groupExt' });
      for (const ext of changed.values()) await directory.put('extension', ext);
      assert.equal(JSON.stringify(eventFrame(directory, carried[0] as typeof agentEvent)), frameThen);
      assert.deepEqual(eventKeys(carried[1] as typeof callEvent, directory), keysThen);
      // Without it, each node renders from the directory as it is now.
      assert.match(JSON.stringify(eventFrame(directory, bare[0] as typeof agentEvent)), /Renamed Since/);
      assert.notDeepEqual(eventKeys(bare[1] as typeof callEvent, directory), keysThen);
    } finally {
      await directory.put('extension', agentExt);
      await directory.put('extension', callExt);
    }
  });

  test('bytes that are not an event are refused', () => {
    assert.throws(() => decodeEvent(new TextEncoder().encode('{"type":"call"}')));
    assert.throws(() => decodeEvent(new TextEncoder().encode('null')));
    assert.throws(() => decodeEvent(new TextEncoder().encode('{')));
  });
});
