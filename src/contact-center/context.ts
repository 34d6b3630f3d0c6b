import type { Clock } from '../core/clock.js';
import type { Directory } from '../directory/directory.js';
import type { AgentStates } from './agents.js';
import type { CallBook } from './call-book.js';
import type { CcEvents } from './cc-events.js';
import type { Distribution } from './distribution.js';
import type { Offers } from './offers.js';
import type { QueueCalls } from './queue-calls.js';
import type { QueueStatistics } from './queue-stats.js';
import type { AcdSwitch } from './switch-port.js';

/**
 * The parts of the contact center, one per concern, as each sees the others. The facade
 * (contact-center.ts) builds them; every part runs only on the tenant's queue of the switch.
 */
export interface CcContext {
  readonly directory: Directory;
  readonly clock: Clock;
  readonly sw: AcdSwitch;
  readonly events: CcEvents;
  readonly calls: CallBook;
  readonly agents: AgentStates;
  readonly stats: QueueStatistics;
  readonly distribution: Distribution;
  readonly offers: Offers;
  readonly queueCalls: QueueCalls;
}
