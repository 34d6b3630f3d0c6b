import type { Directory } from '../../../directory/directory.js';
import type { ExtensionType } from '../../../directory/model.js';
import type { PlatformEvent } from '../../platform-events.js';
import { renderedAtSource } from '../../rendered-at-source.js';
import type { EventJournal, JournalRenderer } from '../../continuity/index.js';
import { eventBody, type FramedEvent, framer } from './frames.js';
import type { SubscriptionIndex } from './subscriptions.js';

const GROUP_TOKEN_OF: Partial<Record<ExtensionType, string>> = {
  groupExt: 'ALL_CALL_GROUP_EXTENSIONS',
  autoAttendantExt: 'ALL_AA_EXTENSIONS',
  acdExt: 'ALL_ACD_EXTENSIONS',
};

/** The index keys an event is heard on (as its owner rendered them, if it did: rendered-at-source.ts). */
export function eventKeys(e: FramedEvent, directory: Directory): string[] {
  const carried = renderedAtSource(e)?.keys;
  if (carried) return carried;
  if (e.type === 'emergency') {
    const site = directory.extension(e.tenantId, e.observed.split('@')[0])?.siteId;
    return site
      ? [`emergency|${e.tenantId}`, `emergency|${e.tenantId}|${site}`]
      : [`emergency|${e.tenantId}`];
  }
  if (e.type === 'parkLocation') return [`park|${e.observed}`, `park|ALL@${e.tenantId}`];
  const kind = e.type === 'call' ? 'call' : 'presence';
  const keys = [`${kind}|${e.observed}`, `${kind}|ALL@${e.tenantId}`];
  const at = e.observed.lastIndexOf('@');
  const type = directory.extension(e.tenantId, e.observed.slice(0, at))?.type;
  if (type === 'userExt' || type === 'locationExt') keys.push(`${kind}|ALL_USERS@${e.tenantId}`);
  const token = type && GROUP_TOKEN_OF[type];
  if (token) keys.push(`${kind}|${token}@${e.tenantId}`);
  return keys;
}

export const isFramed = (e: PlatformEvent): e is FramedEvent =>
  e.type === 'call' || e.type === 'presence' || e.type === 'parkLocation' || e.type === 'emergency';

/** The one event fan-out of the voice API: bus -> subscribed sets -> their sockets. */
export function startFanout(
  bus: { subscribe(h: (e: PlatformEvent) => void): () => void },
  index: SubscriptionIndex,
  directory: Directory,
  sent: { voice: number },
  journal?: EventJournal,
): () => void {
  return bus.subscribe((e) => {
    if (!isFramed(e)) return;
    const sets = index.collect(eventKeys(e, directory));
    if (sets.size === 0) return;
    const frame = framer(e);
    for (const set of sets)
      set.deliver(set.resumable ? frame(set.id, journal?.sequenceOf(e)) : frame(set.id));
    sent.voice += sets.size;
  });
}

/** What the journal keeps of a voice event: the keys it is heard on and its body. */
export function voiceJournalRenderer(directory: Directory): JournalRenderer {
  return (e) =>
    isFramed(e)
      ? { channel: 'voice', tags: eventKeys(e, directory), body: JSON.stringify(eventBody(e)).slice(1) }
      : null;
}
