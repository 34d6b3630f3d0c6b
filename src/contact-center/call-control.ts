import { invalid, notFound } from '../core/errors.js';
import type { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';

const TARGET = /^\+?[0-9*#]{1,32}$/;

/** Call control requests (`POST calls/<id>`): suppression, kill, and the wait_* requests on waiting calls. */
export class CallControl {
  constructor(private readonly cc: CcContext) {}

  private get now() {
    return this.cc.clock.now();
  }

  startSuppression(tenantId: number, smdrCallId: string): void {
    const call = this.cc.calls.require(tenantId, smdrCallId);
    call.suppress(this.now);
    call.log('suppression_started', this.now, 'Recording suppressed');
    this.cc.events.call(call, 'suppression_started');
  }

  stopSuppression(tenantId: number, smdrCallId: string): void {
    const call = this.cc.calls.require(tenantId, smdrCallId);
    const started = call.unsuppress(this.now);
    if (started) this.cc.events.recordingStarted(call, this.now);
    call.log('suppression_stopped', this.now, 'Recording resumed');
    this.cc.events.call(call, 'suppression_stopped');
  }

  /** Ends any live call of the tenant. */
  kill(tenantId: number, smdrCallId: string): void {
    const call = this.cc.calls.live(tenantId, smdrCallId);
    if (!call) {
      if (!this.cc.sw.legs(tenantId).some((l) => l.smdrCallId === smdrCallId)) {
        throw notFound('CALL_NOT_FOUND', 'Call not found');
      }
      this.cc.sw.endCall(smdrCallId, 'kill');
      return;
    }
    call.log('killed', this.now, 'Call killed by request');
    call.endReason = 'killed';
    this.endNow(call, 'kill', 'killed');
  }

  /** wait_transfer: to an extension, an ACD extension or an outside number. */
  waitTransfer(tenantId: number, smdrCallId: string, target: unknown): void {
    const call = this.cc.calls.requireWaiting(tenantId, smdrCallId);
    if (typeof target !== 'string' || !TARGET.test(target.trim())) {
      throw invalid('INVALID_TARGET', 'target must be an extension or a number');
    }
    this.sendOut(call, target.trim(), 'transferred', `Transferred while waiting to ${target.trim()}`);
  }

  /** wait_redirect: to another ACD, by its uuid. */
  waitRedirect(tenantId: number, smdrCallId: string, acdUuid: unknown): void {
    const call = this.cc.calls.requireWaiting(tenantId, smdrCallId);
    const acd = typeof acdUuid === 'string' ? this.cc.directory.extensionByUuid(acdUuid) : undefined;
    if (!acd || acd.tenantId !== tenantId || acd.type !== 'acdExt') {
      throw invalid('INVALID_TARGET', 'target must be the uuid of an ACD of this tenant');
    }
    this.sendOut(call, acd.ext, 'redirected', `Redirected while waiting to ${acd.ext} ${acd.name}`);
  }

  waitKill(tenantId: number, smdrCallId: string): void {
    const call = this.cc.calls.requireWaiting(tenantId, smdrCallId);
    this.cc.offers.withdraw(call);
    call.log('killed', this.now, 'Killed while waiting');
    call.endReason = 'killed while waiting';
    this.endNow(call, 'wait_kill', 'killed while waiting');
  }

  /** Ends the call on the switch and in the contact center (the agent's phone first, as the switch's facts will say). */
  private endNow(call: CcCall, switchReason: string, why: string): void {
    this.cc.sw.endCall(call.smdrCallId, switchReason);
    this.cc.agents.refreshPhoneOf(call.tenantId, call.agentExt);
    this.cc.queueCalls.finish(call.smdrCallId, this.now, why);
  }

  private sendOut(call: CcCall, target: string, kind: 'transferred' | 'redirected', text: string): void {
    this.cc.offers.withdraw(call);
    const fromAcd = call.acdExt!;
    call.leaveQueue(this.now);
    call.status = 'left';
    call.log(kind, this.now, text);
    this.cc.events.call(call, kind === 'transferred' ? 'call_transferred' : 'call_redirected', {
      reason: target,
    });
    // An ACD target queues the call again (a callQueued fact); the old queue's statistics follow it.
    this.cc.sw.redirectQueuedCall(call.smdrCallId, target);
    this.cc.sw.later(call.tenantId, () => this.cc.stats.publish(call.tenantId, fromAcd));
  }
}
