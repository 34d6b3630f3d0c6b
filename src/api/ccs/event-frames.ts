import type { CcEvent } from '../../contact-center/types.js';
import type { CcPermission } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import { renderedAtSource } from '../rendered-at-source.js';
import type { CcEventFrame } from './event-schemas.js';
import * as render from './render.js';
import { isoZoned } from './tenant-time.js';

/** Wire category of each domain category, and the permission that receives it. */
export const CATEGORIES = {
  agent: { wire: 'agent', permission: 'Agent Events' },
  call: { wire: 'call', permission: 'Call Events' },
  queue: { wire: 'inbound_queue', permission: 'Inbound Queue Events' },
} as const satisfies Record<CcEvent['category'], { wire: string; permission: CcPermission }>;

export const EVENT_NAMES: Record<CcEvent['category'], readonly CcEvent['name'][]> = {
  agent: ['agent_state_changed', 'phone_state_changed', 'queue_state_changed'],
  call: [
    'call_queued',
    'call_offered',
    'call_not_answered',
    'call_answered',
    'call_redirected',
    'call_transferred',
    'call_dialed',
    'call_ended',
    'recording_started',
    'recording_stopped',
    'suppression_started',
    'suppression_stopped',
  ],
  queue: ['queue_statistics'],
};

/**
 * `{event, category, tenant_id, timestamp, data}`, or null for a tenant that no longer exists (as
 * its owner rendered it, when it did: rendered-at-source.ts).
 */
export function eventFrame(directory: Directory, e: CcEvent): CcEventFrame | null {
  const carried = renderedAtSource(e);
  if (carried && carried.frame !== undefined) return carried.frame as CcEventFrame | null;
  const t = directory.tenant(e.tenantId);
  if (!t) return null;
  const tz = t.cc.timezone;
  return {
    event: e.name,
    category: CATEGORIES[e.category].wire,
    tenant_id: t.cc.uuid,
    timestamp: isoZoned(e.at, tz),
    data: eventData(directory, e, tz),
  } as CcEventFrame;
}

function eventData(directory: Directory, e: CcEvent, tz: string): CcEventFrame['data'] {
  switch (e.category) {
    case 'agent': {
      const a = e.data.agent;
      const ext = directory.extension(a.tenantId, a.ext);
      const agent = {
        extension: a.ext,
        extension_uuid: ext?.uuid ?? '',
        name: ext?.name ?? '',
        ...render.agentState(a, directory, e.at),
      };
      if (e.name !== 'agent_state_changed') return { ...agent, previous: e.data.previous };
      const { type, name } = e.data.previous;
      return { ...agent, previous: { type, name }, reason: e.data.reason };
    }
    case 'call': {
      const { success: _, ...call } = render.liveCall(directory, e.data.call, tz, e.at);
      return {
        call,
        ...(e.data.agentExt ? { agent_extension: e.data.agentExt } : {}),
        ...(e.data.reason ? { reason: e.data.reason } : {}),
      };
    }
    case 'queue': {
      const t = directory.tenant(e.tenantId)!;
      return render.queueStats(t, directory.extension(e.tenantId, e.data.stats.acdExt), e.data.stats);
    }
  }
}
