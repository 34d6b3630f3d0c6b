import type { CcEvent } from '../contact-center/types.js';
import type { SwitchEvent } from '../switch/types.js';

/** What the event bus carries to the API sockets: the switch's events and the contact center's. */
export type PlatformEvent = SwitchEvent | CcEvent;

/** The subscribing end of the event bus, as the APIs see it (the server owns the bus). */
export interface PlatformEvents {
  /** Returns the unsubscribe. */
  subscribe(handler: (event: PlatformEvent) => void): () => void;
}
