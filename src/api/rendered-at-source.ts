/**
 * What an event's frames take from the directory, fixed where the event is raised. On one node a
 * socket's frame is rendered as its event is raised. In a cluster every node renders an event when
 * it consumes it from the stream, the owner included, and a rename or deletion made in between
 * would show in the frame. So the owner renders this part once as it publishes the event (the
 * cluster's event codec carries it under RENDERED_AT_SOURCE), and every node's fan-outs, journals
 * and webhooks use it instead of their own copy of the directory (docs/cluster.md, "Publishing
 * (the owner)"). An event without it (standalone, or published by a node of an older release) is
 * rendered from the directory, as before.
 */
import type { PlatformEvent } from './platform-events.js';

/** The field of an event, as the cluster's stream carries it, that holds its RenderedAtSource. */
export const RENDERED_AT_SOURCE = 'renderedAtSource';

export interface RenderedAtSource {
  /** A voice event's subscription index keys (voice/events/fanout.ts, `eventKeys`). */
  keys?: string[];
  /** A contact-center event's frame; null for a tenant that no longer exists (ccs/event-frames.ts). */
  frame?: object | null;
}

/** The part of `e` its owner rendered, when `e` came through the cluster's stream with it. */
export function renderedAtSource(e: PlatformEvent): RenderedAtSource | undefined {
  return (e as { [RENDERED_AT_SOURCE]?: RenderedAtSource })[RENDERED_AT_SOURCE];
}
