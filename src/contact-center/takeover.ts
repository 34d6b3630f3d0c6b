/**
 * A tenant's live state as data, both ways (docs/cluster.md, Failover). The owner's journal reads
 * each live call and agent state here to write it; the node that takes the tenant over (or a
 * standalone server starting after a crash) gives back here what the previous owner left:
 * agents return in their states, an outside caller waiting in a queue waits on, and every other
 * call ends with "node lost": its `end` events, its record in both APIs, the contact center's
 * `call_ended`, all through the paths any call's end takes.
 */
import type {
  AgentStateRow,
  DeviceStateRow,
  LeftState,
  LiveCallRow,
  StoredLiveCall,
} from '../store/live-state.js';
import type { DurableCall } from '../switch/switch.js';
import type { AgentRecord } from './agent-book.js';
import type { DurableCcCall } from './cc-call.js';
import type { ContactCenter } from './contact-center.js';
import type { LiveStateSource } from './live-state-journal.js';
import { type LiveStateSink, NODE_LOST } from './live-state-sink.js';

/** The switch's failover commands (src/switch/durable.ts). */
export interface FailoverSwitch {
  durableCall(tenantId: number, smdrCallId: string): DurableCall | undefined;
  canWaitOn(d: DurableCall): boolean;
  restoreWaitingCall(d: DurableCall, reason: string): boolean;
  endLostCall(d: DurableCall, reason: string): void;
  restoreAcdSignIn(tenantId: number, ext: string, signedIn: boolean): void;
  isRegistered(deviceId: string): boolean;
  /** Sets a phone's registration without events (what an earlier owner had). */
  noteRegistration(deviceId: string, registered: boolean): void;
  deviceOf(tenantId: number, deviceId: string): { id: string } | undefined;
  dropTenant(tenantId: number): void;
  onQueue<T>(tenantId: number, command: () => T): T;
}

/** A live call: the switch's call and the contact center's part of it, if any. */
export interface DurableLiveCall {
  call: DurableCall;
  cc?: DurableCcCall;
}

/** A live call's row data: its segments are the row's history (a row written before held them here). */
interface StoredCall {
  call: Omit<DurableCall, 'segments'> & Partial<Pick<DurableCall, 'segments'>>;
  cc?: DurableCcCall;
}

function fromStored(row: StoredLiveCall): DurableLiveCall {
  const { call, cc } = row.data as StoredCall;
  return { call: { ...call, segments: call.segments ?? (row.history as DurableCall['segments']) }, cc };
}

export interface TakeoverResult {
  /** Calls ended with `reason`. */
  ended: string[];
  /** Queue calls waiting on here. */
  waiting: string[];
  agents: number;
  /** Calls whose stored form could not be taken over (left as they are), with why. */
  failed: { smdrCallId: string; error: unknown }[];
}

export class Takeover implements LiveStateSource {
  constructor(
    private readonly sw: FailoverSwitch,
    private readonly cc: ContactCenter,
    private readonly sink: LiveStateSink,
  ) {}

  call(tenantId: number, smdrCallId: string): LiveCallRow | undefined {
    const durable = this.sw.durableCall(tenantId, smdrCallId);
    if (!durable) return undefined;
    const { segments, ...call } = durable;
    const data: StoredCall = { call, cc: this.cc.durableCall(tenantId, smdrCallId) };
    const waiting = call.legs.some((l) => l.state === 'queued');
    return { smdrCallId, waiting, startedAt: call.startedAt, data, history: segments };
  }

  agent(tenantId: number, ext: string): AgentStateRow | undefined {
    const data = this.cc.durableAgent(tenantId, ext);
    return data && { ext, data };
  }

  device(tenantId: number, deviceId: string): DeviceStateRow | undefined {
    if (!this.sw.deviceOf(tenantId, deviceId)) return undefined;
    return { deviceId, registered: this.sw.isRegistered(deviceId) };
  }

  /** What a previous owner left of the tenant becomes live here, in one turn of the tenant. */
  takeOver(tenantId: number, left: LeftState, reason = NODE_LOST): TakeoverResult {
    const result: TakeoverResult = { ended: [], waiting: [], agents: 0, failed: [] };
    /** One call's failure (a row this version cannot read) does not stop the others. */
    const each = (c: DurableLiveCall, fn: () => void) => {
      try {
        fn();
      } catch (error) {
        result.failed.push({ smdrCallId: String(c.call?.smdrCallId), error });
      }
    };
    const calls = left.calls.filter((c) => c.tenantId === tenantId).map(fromStored);
    const agents = left.agents.filter((a) => a.tenantId === tenantId).map((a) => a.data as AgentRecord);
    const waits = (c: DurableLiveCall) => c.cc !== undefined && this.sw.canWaitOn(c.call);
    const queuedAt = (c: DurableLiveCall) => c.cc?.queuedAt ?? c.call.startedAt;
    const devices = left.devices.filter((d) => d.tenantId === tenantId);
    this.sw.onQueue(tenantId, () => {
      // Phones first: a call offered again rings the phones registered as they were.
      for (const d of devices)
        if (this.sw.deviceOf(tenantId, d.deviceId)) this.sw.noteRegistration(d.deviceId, d.registered);
      for (const a of agents) {
        this.cc.restoreAgent(a);
        this.sw.restoreAcdSignIn(tenantId, a.ext, a.agentState.type !== 'sign_out');
        result.agents++;
      }
      const here = (c: DurableLiveCall) => this.sw.durableCall(tenantId, c.call.smdrCallId) !== undefined;
      const [waiting, lost] = partition(calls, (c) => {
        let w = false;
        each(c, () => (w = waits(c)));
        return w;
      });
      for (const c of lost) {
        each(c, () => {
          if (here(c)) return;
          if (c.cc) this.cc.restoreLostCall(c.cc, reason);
          this.sw.endLostCall(c.call, reason);
          result.ended.push(c.call.smdrCallId);
        });
      }
      for (const c of waiting.sort((a, b) => queuedAt(a) - queuedAt(b))) {
        each(c, () => {
          if (here(c) || !this.sw.restoreWaitingCall(c.call, reason)) return;
          this.cc.restoreWaitingCall(c.cc!);
          this.sink.callChanged(tenantId, c.call.smdrCallId);
          result.waiting.push(c.call.smdrCallId);
        });
      }
      this.cc.restored(tenantId);
    });
    return result;
  }

  /** The tenant is no longer run here: its live state goes, without a word (its new owner has it). */
  release(tenantId: number): void {
    this.sw.dropTenant(tenantId);
    this.cc.forgetTenant(tenantId);
  }
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}
