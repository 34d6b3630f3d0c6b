/**
 * A kept read whose answer carries values that move with the clock (an agent's state durations,
 * `HH:MM:SS`) is true only for a while: its handler says so by marking the outcome with the clock
 * times it holds for (`trueWithin`), and the route core keeps its text for those times only
 * (read-cache.ts). Marked aside, in a weak map, so the outcome serializes exactly as before.
 */
export interface KeptWindow {
  /** The first clock time (ms) the answer is true at. */
  from: number;
  /** The first clock time it is no longer true at. */
  until: number;
}

const windows = new WeakMap<object, KeptWindow>();

/** Marks `outcome` as true only within `window`; returns it. */
export function trueWithin<T extends object>(outcome: T, window: KeptWindow): T {
  windows.set(outcome, window);
  return outcome;
}

/** The window `outcome` was marked with; undefined: true until what the route counts changes. */
export function windowOf(outcome: unknown): KeptWindow | undefined {
  return typeof outcome === 'object' && outcome !== null ? windows.get(outcome) : undefined;
}
