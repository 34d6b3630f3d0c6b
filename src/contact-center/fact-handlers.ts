import { parseAccountId } from '../core/accounts.js';
import type { AcdFact, SwitchFact } from '../switch/switch-facts.js';
import type { CallEndedEvent, CallEvent } from '../switch/types.js';
import type { CallRecords } from './call-records.js';
import type { CcContext } from './context.js';
import type { Dialing } from './dial.js';

/**
 * The contact center's one inbound channel: every switch fact, heard on the tenant's queue in
 * the order the switch produced it, goes to the part it concerns.
 */
export class SwitchFactHandlers {
  constructor(
    private readonly cc: CcContext,
    private readonly dialing: Dialing,
    private readonly records: CallRecords,
  ) {}

  hear(fact: SwitchFact): void {
    if (fact.type === 'acd') this.acd(fact);
    else if (fact.type === 'call') this.call(fact);
    else if (fact.type === 'callEnded') this.callEnded(fact);
  }

  private acd(f: AcdFact): void {
    switch (f.name) {
      case 'callQueued':
        return this.cc.queueCalls.queued(f.call);
      case 'offerAnswered':
        return this.cc.queueCalls.answered(f.smdrCallId, f.agentExt, f.at);
      case 'offerFailed':
        return this.cc.offers.failed(f.smdrCallId, f.agentExt, f.reason);
      case 'queueCallEnded':
        return this.cc.queueCalls.finish(f.smdrCallId, f.at, 'caller hung up');
    }
  }

  /** A call event of one party: hold time and outbound answers of the agent's call, and the agent's phone state. */
  private call(e: CallEvent): void {
    const who = parseAccountId(e.observed);
    if (!who) return;
    const call = this.cc.calls.get(e.smdrCallId);
    if (call && call.agentExt === who.ext) {
      if (e.name === 'hold') call.hold(e.at);
      if (e.name === 'resume') call.resume(e.at);
      if (e.name === 'answer') this.dialing.heardAnswer(call, e, who);
    }
    this.cc.agents.refreshPhoneOf(who.tenantId, who.ext);
  }

  /** The call's last leg ended: the contact center finishes its call, then the durable record is written. */
  private callEnded(e: CallEndedEvent): void {
    const now = this.cc.clock.now();
    this.cc.queueCalls.finish(e.smdrCallId, now, 'call ended');
    this.records.ended(e, this.cc.calls, now);
  }
}
