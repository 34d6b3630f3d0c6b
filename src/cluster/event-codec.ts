/**
 * How a PlatformEvent travels in the cluster's event stream: its JSON, UTF-8 encoded. Every event
 * type (src/switch/types.ts, src/contact-center/types.ts) is plain data — numbers (epoch ms, no
 * Dates), strings, booleans, arrays and plain objects, no Maps — so JSON carries it whole, with one
 * exception: a key whose value is `undefined` arrives absent. Nothing renders the two differently
 * (the renderers test `!== undefined`, and JSON.stringify of a frame drops such keys alike), which
 * test/unit/cluster/event-codec.test.ts proves on every event the demo world's flows raise, frame
 * by frame, byte for byte.
 */
import type { PlatformEvent } from '../api/platform-events.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEvent(e: PlatformEvent): Uint8Array {
  return encoder.encode(JSON.stringify(e));
}

/** The event back; throws on bytes that are not an event's JSON. */
export function decodeEvent(data: Uint8Array): PlatformEvent {
  const e = JSON.parse(decoder.decode(data)) as PlatformEvent;
  if (typeof e !== 'object' || e === null || typeof e.type !== 'string' || typeof e.tenantId !== 'number')
    throw new Error('not a platform event');
  return e;
}
