import { limitsFor } from '../../src/api/limits/index.js';
import type { TestServer } from './server.js';

/**
 * Waits (bounded, about 10 s) until `n` REST requests hold slots: a slot is taken once the
 * credentials are verified, which a first verification does off the event loop, so a fixed
 * sleep is too short on a busy machine. `n` = 0 waits until every slot is free again.
 */
export async function untilInFlight(s: TestServer, n: number): Promise<void> {
  const reached = () => {
    const held = limitsFor(s.runtime).requests.inFlight();
    return n === 0 ? held === 0 : held >= n;
  };
  for (let i = 0; i < 400 && !reached(); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
}
