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

/**
 * The black-box way (any server, a cluster too): sends `probe` until it answers `status`, up to
 * about 10 s, and gives the last answer. A probe that gets in while held requests are still
 * being admitted (or, on a cluster, before the nodes heard of each other) just completes.
 */
export async function untilStatus<T extends { status: number }>(
  status: number,
  probe: () => Promise<T>,
): Promise<T> {
  let last = await probe();
  for (let i = 0; i < 200 && last.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 50));
    last = await probe();
  }
  return last;
}
