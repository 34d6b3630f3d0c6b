import type { Runtime } from '../../server/runtime.js';
import type {
  CallRequestCommand,
  LegSummary,
  LegView,
  MakeCallCommand,
  ParkLocationStatus,
  PresenceStatus,
  RetrieveParkedCommand,
} from '../../switch/types.js';

/** The part of the switch the voice API drives (synchronous; throws DomainError). */
export interface VoiceSwitch {
  makeCall(cmd: MakeCallCommand): LegView;
  retrieveParkedCall(cmd: RetrieveParkedCommand): LegView;
  callRequest(cmd: CallRequestCommand): LegView | undefined;
  leg(callObserverId: string): LegView | undefined;
  legsOf(tenantId: number, ext: string): LegView[];
  legs(tenantId: number): LegView[];
  liveLegs(tenantId: number, ext?: string): LegSummary[];
  presence(tenantId: number, ext: string): PresenceStatus | undefined;
  parkLocationStatus(tenantId: number, n: number): ParkLocationStatus | undefined;
  sendMessage(tenantId: number, deviceIds: string[], text: string, priority: string): void;
}

export const voiceSwitch = (runtime: Runtime): VoiceSwitch => runtime.switch as unknown as VoiceSwitch;
