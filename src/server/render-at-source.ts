import type { Directory } from '../directory/directory.js';
import { eventFrame } from '../api/ccs/event-frames.js';
import type { PlatformEvent } from '../api/platform-events.js';
import type { RenderedAtSource } from '../api/rendered-at-source.js';
import { eventKeys, isFramed } from '../api/voice/events/fanout.js';

/**
 * What the owner of an event's tenant renders of it from its directory as it publishes it to the
 * cluster's stream (rendered-at-source.ts); undefined for an event no socket renders.
 */
export function renderAtSource(directory: Directory): (e: PlatformEvent) => RenderedAtSource | undefined {
  return (e) => {
    if (e.type === 'cc') return { frame: eventFrame(directory, e) };
    return isFramed(e) ? { keys: eventKeys(e, directory) } : undefined;
  };
}
