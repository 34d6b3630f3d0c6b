import type { ContactCenter } from '../../contact-center/contact-center.js';
import type { Clock } from '../../core/clock.js';
import type { Directory } from '../../directory/directory.js';
import type { Switch } from '../../switch/switch.js';
import type { Authenticator } from '../auth/index.js';
import type { Placement } from '../route-core/placement.js';
import type { ApiDocs } from '../schema/registry.js';

/**
 * The ports the simulator API is given by the composition root (src/server), and all it may
 * reach. The simulator drives the switch's own device and outside-network commands.
 */
export interface SimRuntime {
  directory: Directory;
  clock: Clock;
  switch: Switch;
  contactCenter: Pick<ContactCenter, 'countTextMessage'>;
  docs: ApiDocs;
  auth: Authenticator;
  /** The operator's body cap. */
  config: { bodyLimitBytes: number };
  /** Back to the demo world (a cluster node's: every node's). */
  resetToDemo(): Promise<void>;
  /** A cluster node's: moves every node's virtual clock (docs/cluster.md § Clock). */
  advanceClock?(ms: number): Promise<void>;
  /** A cluster node's: where a tenant's requests run (docs/cluster.md § Forwarding). */
  placement?: Placement;
  /**
   * A cluster node's: resolves once the events raised so far are in the cluster's stream
   * (bounded), so that a read another node serves from them shows the change to its writer.
   */
  eventsStored?(): Promise<unknown>;
}
