import type { QueuedCall } from '../switch/switch-facts.js';
import { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';

/** A queue call's life as the switch reports it: queued (again), answered by an agent, ended. */
export class QueueCalls {
  constructor(private readonly cc: CcContext) {}

  /** A call waits in an ACD: a new contact-center call, or one redirected to another queue. */
  queued(q: QueuedCall): void {
    const acd = this.cc.directory.extension(q.tenantId, q.acdExt);
    let call = this.cc.calls.get(q.smdrCallId);
    if (!call) {
      call = new CcCall(
        {
          smdrCallId: q.smdrCallId,
          tenantId: q.tenantId,
          direction: 'in',
          calling: { number: q.callerNumber, name: q.callerName },
          called: { number: q.dialed, name: acd?.name ?? q.acdExt },
          startedAt: q.at,
          acdExt: q.acdExt,
        },
        'waiting',
      );
      call.log('inbound', q.at, `Inbound call from ${q.callerNumber} to ${q.dialed}`);
      this.cc.calls.add(call);
    } else {
      call.log('redirected', q.at, `Redirected to ${q.acdExt} ${acd?.name ?? ''}`.trim());
    }
    call.enterQueue(q.acdExt, q.at);
    call.log('called', q.at, `Queued in ${q.acdExt} ${acd?.name ?? ''}`.trim());
    this.cc.events.call(call, 'call_queued');
    this.cc.stats.publish(q.tenantId, q.acdExt);
    this.cc.distribution.schedule(q.tenantId);
  }

  /** The offered agent answered: the call leaves the queue, connected to the agent. */
  answered(smdrCallId: string, agentExt: string, at: number): void {
    const call = this.cc.calls.get(smdrCallId);
    if (!call) return;
    this.cc.offers.clearRingTimer(smdrCallId);
    const ext = this.cc.directory.extension(call.tenantId, agentExt);
    call.leaveQueue(at);
    call.agentName = ext?.name;
    const recording = call.connect(agentExt, ext?.agent?.recordingType ?? 'None', at);
    call.log('answered', at, `Answered by ${agentExt} ${ext?.name ?? ''}`.trim());
    const a = this.cc.agents.get(call.tenantId, agentExt);
    a.consecutiveMissed = 0;
    this.cc.agents.setQueueState(a, 'Connected', call);
    this.cc.events.call(call, 'call_answered', { agentExt });
    if (recording) this.cc.events.recordingStarted(call, at);
    if (call.acdExt) this.cc.stats.publish(call.tenantId, call.acdExt);
    this.cc.agents.refreshPhone(a);
  }

  /** The call is over (caller left, kill, or the switch reported its end). Idempotent. */
  finish(smdrCallId: string, at: number, why: string): void {
    const call = this.cc.calls.get(smdrCallId);
    if (!call || call.status === 'ended') return;
    this.cc.offers.clearRingTimer(smdrCallId);
    const acdExt = call.acdExt;
    const wasWaiting = call.isWaiting;
    const wasRecording = call.isRecording;
    call.end(at);
    if (wasRecording) {
      call.log('recording_stopped', at, 'Recording stopped');
      this.cc.events.call(call, 'recording_stopped');
    }
    const reason = call.endReason ?? why;
    call.log(
      'disconnected',
      at,
      wasWaiting ? `Disconnected while waiting (${reason})` : `Disconnected (${reason})`,
    );
    if (call.agentExt) {
      const a = this.cc.agents.peek(call.tenantId, call.agentExt);
      if (a && a.queueCallId === smdrCallId) {
        a.idleSince = at;
        this.cc.agents.setQueueState(a, 'None');
      }
      if (a) this.cc.agents.refreshPhone(a);
    }
    this.cc.events.call(call, 'call_ended', { reason });
    if (acdExt) this.cc.stats.publish(call.tenantId, acdExt);
    this.cc.distribution.schedule(call.tenantId);
  }
}
