import type { Clock } from '../core/clock.js';
import type { Directory } from '../directory/directory.js';
import type { Db } from '../store/database.js';
import { type AcdPort, waitingAcdPort } from '../switch/acd-port.js';
import type { Switch } from '../switch/switch.js';
import type { CcEvent } from './types.js';

export interface ContactCenterDeps {
  directory: Directory;
  clock: Clock;
  switch: Switch;
  db: Db;
  publish: (event: CcEvent) => void;
}

/** PLACEHOLDER: ACD queues, agents and recordings arrive with issue 6. */
export class ContactCenter {
  constructor(readonly deps: ContactCenterDeps) {}
  acdPort(): AcdPort {
    return waitingAcdPort;
  }
  /** Contact-center details of a call (recordings, timeline) for its durable record. */
  recordDetails(_smdrCallId: string): Record<string, unknown> | undefined {
    return undefined;
  }
  async reset(): Promise<void> {}
}
