// The types of the port, a subset of those switch.ts imports: the API names only what it drives.
import type {
  CallRequestCommand,
  LegSummary,
  LegView,
  MakeCallCommand,
  ParkLocationStatus,
  PresenceStatus,
  RetrieveParkedCommand,
  SimState,
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
  /** Whether a leg `liveLegs` lists has been answered (its talkDuration moves with the clock). */
  hasAnsweredLiveLeg(tenantId: number, ext?: string): boolean;
  presence(tenantId: number, ext: string): PresenceStatus | undefined;
  parkLocationStatus(tenantId: number, n: number): ParkLocationStatus | undefined;
  sendMessage(tenantId: number, deviceIds: string[], text: string, priority: string): void;
  /** Whether a phone is logged in (a directory device's `registered`). */
  isRegistered(deviceId: string): boolean;
  /** Grows with every change of what `isRegistered` answers (reads kept by the read cache). */
  registrationGeneration(): number;
  /** Grows with every change of live state, registrations included (reads kept by the read cache). */
  stateGeneration(): number;
  snapshot(): Pick<SimState, 'devices'>;
}

export const voiceSwitch = (runtime: { switch: VoiceSwitch }): VoiceSwitch => runtime.switch;
