/**
 * The state and services every part of the engine shares: dependencies, live state, presence,
 * the per-tenant queue with its outbox of facts, and timers that run on that queue.
 */
import { accountId } from '../core/accounts.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { CallIdGenerator } from '../core/ids.js';
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';
import type { Leg, Party } from './model.js';
import { Presence } from './presence.js';
import { Registry } from './registry.js';
import type { AcdFact, FactListener, SwitchFact } from './switch-facts.js';
import { TenantQueue } from './tenant-queue.js';
import type { PhoneMessage, PstnBehaviour, SwitchEvent } from './types.js';

export interface SwitchDeps {
  directory: Directory;
  clock: Clock;
  ids: CallIdGenerator;
  publish: (event: SwitchEvent) => void;
  /** Where failures of event subscribers and fact listeners are reported (default: console). */
  onError?: (e: unknown) => void;
  /**
   * Told of every change of a call that its durable form may show (a leg's state, a step of its
   * timeline), also those that raise no event (a party without an account, a menu digit): what
   * keeps live calls durable reads it again (failover).
   */
  onCallChanged?: (tenantId: number, smdrCallId: string) => void;
}

export class Core {
  /** Hears every fact (the contact center); until one is set, queue calls simply wait. */
  facts: FactListener = () => {};
  /** Bumped by reset: timers of an earlier epoch do nothing. */
  epoch = 0;
  /**
   * Grows with every change of live state a read may show: each event and fact delivered, and
   * each change made without one (reset, resync, a tenant taken over or given up).
   */
  stateChanges = 0;
  readonly reg = new Registry();
  readonly presence: Presence;
  readonly queue: TenantQueue<SwitchFact>;
  readonly pstnNumbers = new Map<string, PstnBehaviour>();
  readonly messages = new Map<string, PhoneMessage[]>();
  private readonly parties = new WeakMap<Extension, Party>();
  readonly dir: Directory;
  readonly clock: Clock;

  constructor(readonly deps: SwitchDeps) {
    this.dir = deps.directory;
    this.clock = deps.clock;
    const onError = deps.onError ?? ((e: unknown) => console.error('switch: effect failed', e));
    this.queue = new TenantQueue<SwitchFact>((fact) => this.deliver(fact), onError);
    this.presence = new Presence(
      this.dir,
      (e) => this.emit(e),
      () => this.now(),
    );
  }

  now(): number {
    return this.clock.now();
  }

  nextId(): string {
    return this.deps.ids.next();
  }

  report(e: unknown): void {
    (this.deps.onError ?? ((x: unknown) => console.error('switch:', x)))(e);
  }

  /** A call changed (see `SwitchDeps.onCallChanged`). */
  callChanged(tenantId: number, smdrCallId: string): void {
    this.deps.onCallChanged?.(tenantId, smdrCallId);
  }

  /** Queues a domain event for delivery after the current command. */
  emit(event: SwitchEvent): void {
    this.queue.defer(event.tenantId, event);
  }

  /** Queues an ACD fact for delivery after the current command. */
  tell(fact: AcdFact): void {
    this.queue.defer(fact.tenantId, fact);
  }

  /** Events go to the bus first, then every fact to the listener: a cause is published before what it causes. */
  private deliver(fact: SwitchFact): void {
    this.stateChanges++;
    if (fact.type !== 'acd') this.deps.publish(fact);
    this.facts(fact);
  }

  /**
   * A timer whose callback runs as a command on the tenant's queue; dropped by reset. A failure
   * is reported, never thrown into whoever moved the clock.
   */
  setTimer(tenantId: number, ms: number, fn: () => void): TimerHandle {
    const epoch = this.epoch;
    return this.clock.setTimer(ms, () => {
      if (epoch === this.epoch) this.guarded(tenantId, fn);
    });
  }

  /** Runs a command that has no caller to answer (timers, directory changes). */
  guarded(tenantId: number, fn: () => void): void {
    try {
      this.queue.run(tenantId, fn);
    } catch (e) {
      this.report(e);
    }
  }

  /** The leg's single pending timer (coverage, ringing, auto answer, menu, recall...). */
  legTimer(leg: Leg, ms: number, fn: () => void): void {
    this.clearLegTimer(leg);
    leg.timer = this.setTimer(leg.tenantId, ms, () => {
      leg.timer = undefined;
      if (leg.state !== 'ended') fn();
    });
  }

  clearLegTimer(leg: Leg): void {
    if (leg.timer) {
      this.clock.clearTimer(leg.timer);
      leg.timer = undefined;
    }
  }

  /** An extension as a party; one object per directory version of the extension. */
  extensionParty(e: Extension): Party {
    let p = this.parties.get(e);
    if (!p) {
      const account = accountId(e.ext, e.tenantId);
      p = { id: account, number: e.ext, name: e.name, account };
      this.parties.set(e, p);
    }
    return p;
  }

  voicemailParty(tenantId: number): Party {
    return { id: `VM@${tenantId}`, number: 'VM', name: 'Voicemail' };
  }
}
