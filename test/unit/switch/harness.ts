/**
 * A switch on the demo world, an in-memory directory and the virtual clock, with a recorder of
 * every event it publishes and of every ACD fact it tells.
 */
import { VirtualClock } from '../../../src/core/clock.js';
import { CallIdGenerator } from '../../../src/core/ids.js';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory, type EntityStore } from '../../../src/directory/directory.js';
import type { StoredEntity } from '../../../src/directory/model.js';
import type { QueuedCall } from '../../../src/switch/switch-facts.js';
import { Switch } from '../../../src/switch/switch.js';
import type {
  CallEvent,
  CallRequestCommand,
  CallRequestName,
  LegView,
  SwitchEvent,
} from '../../../src/switch/types.js';

export class MemoryStore implements EntityStore {
  private rows = new Map<string, StoredEntity>();
  async loadAll() {
    return [...this.rows.values()];
  }
  async load(keys: readonly { kind: string; id: string }[]) {
    return keys.flatMap((k) => this.rows.get(`${k.kind}/${k.id}`) ?? []);
  }
  async upsert(e: StoredEntity) {
    this.rows.set(`${e.kind}/${e.id}`, e);
  }
  async insert(e: StoredEntity) {
    if (this.rows.has(`${e.kind}/${e.id}`)) return false;
    this.rows.set(`${e.kind}/${e.id}`, e);
    return true;
  }
  async remove(kind: string, id: string) {
    this.rows.delete(`${kind}/${id}`);
  }
  async replaceAll(entities: StoredEntity[]) {
    this.rows = new Map(entities.map((e) => [`${e.kind}/${e.id}`, e]));
  }
}

export type PortCall =
  | { fn: 'callQueued'; call: QueuedCall }
  | { fn: 'offerAnswered'; smdrCallId: string; agentExt: string }
  | { fn: 'offerFailed'; smdrCallId: string; agentExt: string; reason: string }
  | { fn: 'callEnded'; smdrCallId: string };

export interface Harness {
  sw: Switch;
  clock: VirtualClock;
  dir: Directory;
  events: SwitchEvent[];
  port: PortCall[];
  errors: unknown[];
  /** Call event names an account received, in order (optionally for one leg). */
  calls(account: string, callObserverId?: string): string[];
  /** Call events an account received. */
  callEvents(account: string): CallEvent[];
  /** Presence event names of an account, in order. */
  presence(account: string): string[];
  /** Forget what was recorded so far. */
  clear(): void;
  /** A call request on a leg of the demo tenant 1001, by `myExt` (absent for hangupCall). */
  request(
    callObserverId: string,
    request: CallRequestName,
    myExt?: string,
    more?: Pick<CallRequestCommand, 'otherCallId' | 'parkLocation' | 'deviceId'>,
  ): LegView | undefined;
}

export async function harness(): Promise<Harness> {
  const dir = await Directory.load(new MemoryStore());
  await dir.replaceAll(demoWorld());
  const clock = new VirtualClock();
  const events: SwitchEvent[] = [];
  const port: PortCall[] = [];
  const errors: unknown[] = [];
  const sw = new Switch({
    directory: dir,
    clock,
    ids: new CallIdGenerator(),
    publish: (e) => events.push(e),
    onError: (e) => errors.push(e),
  });
  sw.setFactListener((f) => {
    if (f.type !== 'acd') return;
    if (f.name === 'callQueued') port.push({ fn: 'callQueued', call: f.call });
    if (f.name === 'offerAnswered')
      port.push({ fn: 'offerAnswered', smdrCallId: f.smdrCallId, agentExt: f.agentExt });
    if (f.name === 'offerFailed')
      port.push({ fn: 'offerFailed', smdrCallId: f.smdrCallId, agentExt: f.agentExt, reason: f.reason });
    if (f.name === 'queueCallEnded') port.push({ fn: 'callEnded', smdrCallId: f.smdrCallId });
  });
  const callEvents = (account: string) =>
    events.filter((e): e is CallEvent => e.type === 'call' && e.observed === account);
  return {
    sw,
    clock,
    dir,
    events,
    port,
    errors,
    callEvents,
    calls: (account, id) =>
      callEvents(account)
        .filter((e) => id === undefined || e.callObserverId === id)
        .map((e) => e.name),
    presence: (account) =>
      events.flatMap((e) => (e.type === 'presence' && e.observed === account ? [e.name] : [])),
    clear() {
      events.length = 0;
      port.length = 0;
    },
    request: (callObserverId, request, myExt, more = {}) =>
      sw.callRequest({ tenantId: 1001, callObserverId, request, ...(myExt ? { myExt } : {}), ...more }),
  };
}

export const PHONE = (ext: string, tenantId = 1001) => `ph${tenantId}-${ext}`;
