import type { CcEvent } from '../contact-center/types.js';
import type { SwitchEvent } from '../switch/types.js';

/** What the event bus carries to the API sockets: the switch's events and the contact center's. */
export type PlatformEvent = SwitchEvent | CcEvent;

/** The subscribing end of the event bus, as the APIs see it (the server owns the bus). */
export interface PlatformEvents {
  /**
   * Returns the unsubscribe. In a cluster `seq` is the event's sequence in the cluster's event
   * stream (the continuity sequence, docs/events.md); standalone it is absent.
   */
  subscribe(handler: (event: PlatformEvent, seq?: number) => void): () => void;
}
