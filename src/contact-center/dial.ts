import { accountId } from '../core/accounts.js';
import { invalid } from '../core/errors.js';
import type { CallEvent } from '../switch/types.js';
import { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';
import type { CcCallSnapshot } from './types.js';

const TARGET = /^\+?[0-9*#]{1,32}$/;

/** Click to call through an outbound queue, and the far end's answer that connects it. */
export class Dialing {
  constructor(private readonly cc: CcContext) {}

  /** The queue gives the caller id; the agent's phone rings first, then the target. */
  dial(tenantId: number, ext: string, target: unknown, outboundQueueId: unknown): CcCallSnapshot {
    const from = this.cc.directory.extension(tenantId, ext);
    if (from?.type !== 'userExt') throw invalid('INVALID_EXTENSION', 'Extension cannot dial');
    if (typeof target !== 'string' || !TARGET.test(target.trim())) {
      throw invalid('INVALID_TARGET', 'target must be a number');
    }
    const oq = this.cc.directory.outboundQueues(tenantId).find((q) => q.id === outboundQueueId);
    if (!oq)
      throw invalid('INVALID_OUTBOUND_QUEUE', 'outbound_queue_uuid is not an outbound queue of this tenant');
    const leg = this.cc.sw.makeCall({
      tenantId,
      fromExt: ext,
      to: target.trim(),
      callerId: { number: oq.callerId, name: oq.name },
    });
    this.cc.agents.refreshPhoneOf(tenantId, ext);
    const at = this.cc.clock.now();
    const call = new CcCall(
      {
        smdrCallId: leg.smdrCallId,
        tenantId,
        direction: 'out',
        calling: { number: oq.callerId, name: oq.name },
        called: { number: target.trim(), name: '' },
        startedAt: at,
        outboundQueueId: oq.id,
      },
      'dialing',
    );
    call.agentExt = ext;
    call.agentName = from.name;
    call.log('outbound', at, `Outbound call from ${ext} ${from.name} through ${oq.name}`);
    call.log('called', at, `Dialed ${target.trim()}`);
    this.cc.calls.add(call);
    this.cc.events.call(call, 'call_dialed', { agentExt: ext });
    return call.snapshot(at);
  }

  /** An `answer` on the agent's leg of a dialing call, by someone else than the agent: the far end answered. */
  heardAnswer(
    call: CcCall,
    e: Extract<CallEvent, { name: 'answer' }>,
    agent: { ext: string; tenantId: number },
  ): void {
    if (call.init.direction !== 'out' || call.status !== 'dialing') return;
    const party = e.fields.answeringParty;
    if (party === accountId(agent.ext, agent.tenantId) || party === agent.ext) return;
    const ext = this.cc.directory.extension(call.tenantId, call.agentExt!);
    const recording = call.connect(call.agentExt!, ext?.agent?.recordingType ?? 'None', e.at);
    call.log('answered', e.at, `Answered by ${call.init.called.number}`);
    this.cc.events.call(call, 'call_answered', { agentExt: call.agentExt });
    if (recording) this.cc.events.recordingStarted(call, e.at);
  }
}
