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
import { RENDERED_AT_SOURCE } from '../api/rendered-at-source.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `rendered`: the JSON of what the owner rendered of the event from its directory, carried as one
 * more field (src/api/rendered-at-source.ts). A node of an older release ignores the field.
 */
export function encodeEvent(e: PlatformEvent, rendered?: string): Uint8Array {
  const json = JSON.stringify(e);
  return encoder.encode(
    rendered === undefined ? json : `${json.slice(0, -1)},"${RENDERED_AT_SOURCE}":${rendered}}`,
  );
}

/** The event back; throws on bytes that are not an event's JSON. */
export function decodeEvent(data: Uint8Array): PlatformEvent {
  const e = JSON.parse(decoder.decode(data)) as PlatformEvent;
  if (typeof e !== 'object' || e === null || typeof e.type !== 'string' || typeof e.tenantId !== 'number')
    throw new Error('not a platform event');
  return e;
}
