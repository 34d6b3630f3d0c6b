import { invalid } from '../core/errors.js';
import type { Directory } from '../directory/directory.js';
import { type AgentStateName, READY } from './types.js';

/** `Ready`, or the name of one of the tenant's presence options (case-insensitive). */
export function resolveAgentState(directory: Directory, tenantId: number, name: unknown): AgentStateName {
  if (typeof name !== 'string' || name.trim() === '') throw invalid('STATE_REQUIRED', 'name is required');
  const wanted = name.trim().toLowerCase();
  if (wanted === 'ready') return READY;
  const option = directory.presenceOptions(tenantId).find((o) => o.name.toLowerCase() === wanted);
  if (!option) throw invalid('UNKNOWN_STATE', `Unknown agent state: ${name}`);
  return { type: option.type, name: option.name };
}

/** The away state an agent is moved to after too many missed offers: the tenant's first away option. */
export function autoAwayState(directory: Directory, tenantId: number): AgentStateName {
  const option = directory.presenceOptions(tenantId).find((o) => o.type === 'away');
  return option ? { type: 'away', name: option.name } : { type: 'away', name: 'Away' };
}
