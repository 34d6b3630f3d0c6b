import type { LegSummary } from '../switch/types.js';
import type { PhoneState } from './types.js';

/** The agent's phone_state, from the live legs of the agent's extension. Talking wins over Hold over Ringing. */
export function phoneStateOf(legs: readonly LegSummary[]): PhoneState {
  let state: PhoneState = 'Idle';
  for (const l of legs) {
    switch (l.state) {
      case 'connected':
      case 'remoteHeld':
      case 'dialing':
      case 'ringback':
        return 'Talking';
      case 'held':
        state = 'Hold';
        break;
      case 'offered':
      case 'ringing':
        if (state === 'Idle') state = 'Ringing';
        break;
      default:
        break;
    }
  }
  return state;
}
