import type { Clock } from '../core/clock.js';
import type { CcCall } from './cc-call.js';
import type { CallEventName, CcEvent } from './types.js';

/** The contact center's event vocabulary (types.ts): every event leaves through here, stamped with the clock. */
export class CcEvents {
  constructor(
    private readonly clock: Clock,
    private readonly publish: (event: CcEvent) => void,
  ) {}

  emit<E extends CcEvent>(tenantId: number, category: E['category'], name: E['name'], data: E['data']): void {
    this.publish({ type: 'cc', category, name, tenantId, at: this.clock.now(), data } as CcEvent);
  }

  call(call: CcCall, name: CallEventName, extra: { agentExt?: string; reason?: string } = {}): void {
    this.emit(call.tenantId, 'call', name, { call: call.snapshot(this.clock.now()), ...extra });
  }

  /** A recording began: a timeline entry and `recording_started`. */
  recordingStarted(call: CcCall, at: number): void {
    call.log('recording_started', at, `Recording started for ${call.agentExt}`);
    this.call(call, 'recording_started');
  }
}
