import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ccJournalRenderer } from '../../../src/api/ccs/cc-resume.js';
import { eventFrame } from '../../../src/api/ccs/event-frames.js';
import type { PlatformEvent } from '../../../src/api/platform-events.js';
import { eventKeys, voiceJournalRenderer } from '../../../src/api/voice/events/fanout.js';
import { type FramedEvent, framer } from '../../../src/api/voice/events/frames.js';
import { decodeEvent, encodeEvent } from '../../../src/cluster/event-codec.js';
import { type DemoEvents, demoEvents, kindOf } from '../../helpers/demo-events.js';

const isFramed = (e: PlatformEvent): e is FramedEvent =>
  e.type === 'call' || e.type === 'presence' || e.type === 'parkLocation' || e.type === 'emergency';

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
    let frames = 0;
    for (const e of demo.events) {
      const d = decodeEvent(encodeEvent(e));
      const what = `${kindOf(e)} ${JSON.stringify(e)}`;
      assert.equal(JSON.stringify(d), JSON.stringify(e), what);
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

  test('bytes that are not an event are refused', () => {
    assert.throws(() => decodeEvent(new TextEncoder().encode('{"type":"call"}')));
    assert.throws(() => decodeEvent(new TextEncoder().encode('null')));
    assert.throws(() => decodeEvent(new TextEncoder().encode('{')));
  });
});
