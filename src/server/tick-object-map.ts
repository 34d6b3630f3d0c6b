import { createHook } from 'node:async_hooks';

const kept: object[] = [];
const noop = () => {};

/**
 * Keeps one of Node's `process.nextTick` tick objects alive for the life of the process.
 *
 * Node builds each tick object with an object literal whose first keys are symbols. V8 holds the
 * hidden classes of that literal only weakly, so a garbage collection that finds no tick object
 * alive frees them, and the next tick builds new ones. After a few collections the literal's
 * property stores in `nextTick` see too many hidden classes, turn megamorphic and take V8's
 * runtime path on every tick for the rest of the process. Node's streams call `nextTick` several
 * times per HTTP request: it was 8 % of a `GET /api/v1/calls` in the request-path profile, in
 * every run. One live tick object keeps the hidden classes, and the stores stay monomorphic
 * (`test/unit/server/tick-object-map.test.ts` shows both outcomes).
 *
 * The tick object is caught through an async hook enabled only around one `nextTick`.
 */
export function keepTickObjectMapAlive(): void {
  if (kept.length > 0) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept.length === 0) kept.push(resource);
    },
  });
  hook.enable();
  process.nextTick(noop);
  hook.disable();
}

keepTickObjectMapAlive();
