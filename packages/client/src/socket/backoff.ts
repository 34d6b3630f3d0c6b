export interface BackoffOptions {
  /** The first delay before reconnecting (default 500 ms). */
  initialDelayMs?: number;
  /** The largest delay (default 30 s). */
  maxDelayMs?: number;
  /** Growth per failed attempt (default 2). */
  factor?: number;
  /**
   * Share of each delay that is random (default 0.5): the delay is drawn from
   * `[d·(1−jitter), d]`, so clients that lost the same server do not all return at once.
   */
  jitter?: number;
  /** Random source in [0, 1) (tests pass a fixed one). */
  random?: () => number;
}

/** Exponential backoff with jitter: the delay before reconnect attempt `attempt` (0-based). */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const jitter = Math.min(Math.max(options.jitter ?? 0.5, 0), 1);
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, initial * factor ** Math.max(attempt, 0));
  return Math.round(ceiling * (1 - jitter * random()));
}
