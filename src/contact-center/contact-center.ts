import { StaleEpochError, type WriteLease } from '../core/cluster.js';
import type { Clock } from '../core/clock.js';
import { unavailable } from '../core/errors.js';
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';
import type { CallRecord } from '../store/call-records.js';
import type { Db } from '../store/database.js';
import { type TextCounts, TextCounterStore } from '../store/text-counters.js';
import type { SwitchFact } from '../switch/switch-facts.js';
import type { CallRecordData } from '../switch/types.js';
import type { AgentRecord } from './agent-book.js';
import { AgentStates } from './agents.js';
import { CallBook } from './call-book.js';
import { CallControl } from './call-control.js';
import type { DurableCcCall } from './cc-call.js';
import { type CallRecordWriter, CallRecords } from './call-records.js';
import { CcEvents } from './cc-events.js';
import type { CcContext } from './context.js';
import { Dialing } from './dial.js';
import type { LiveStateSink } from './live-state-sink.js';
import { Distribution } from './distribution.js';
import { SwitchFactHandlers } from './fact-handlers.js';
import { Offers } from './offers.js';
import { QueueCalls } from './queue-calls.js';
import { QueueStatistics } from './queue-stats.js';
import { Restorer } from './restore.js';
import type { AcdSwitch } from './switch-port.js';
import type { AgentSnapshot, CcCallSnapshot, CcEvent, QueueStats } from './types.js';

export interface ContactCenterDeps {
  directory: Directory;
  clock: Clock;
  switch: AcdSwitch;
  db: Db;
  /** Where every ended call's durable record goes. */
  callRecords: CallRecordWriter;
  publish: (event: CcEvent) => void;
  /** A record that could not be written (default: console). */
  onRecordError?: (err: unknown, smdrCallId: string) => void;
  /** Told of every change of a live call or an agent's state, to keep them durable (failover). */
  liveState?: LiveStateSink;
  /**
   * This node's lease on a tenant, which fences its durable writes outside the journal (the text
   * counters); undefined when it does not own the tenant. Absent: nothing is fenced.
   */
  lease?: (tenantId: number) => WriteLease | undefined;
}

/**
 * ACD queues and distribution, agent states, recordings and suppression, outbound dialing, call
 * records and SMS/MMS counters: a facade over one part per concern (context.ts).
 *
 * It hears the switch through one channel (`hear`, the switch's facts on the tenant's queue) and
 * acts on it through one port (switch-port.ts). Its commands run on the tenant's queue too, so
 * everything it changes for a tenant happens in that tenant's turn. Time only through the clock.
 */
const ownerMoved = (tenantId: number) =>
  unavailable('OWNER_UNAVAILABLE', `Tenant ${tenantId} moved to another node; retry shortly.`);

export class ContactCenter {
  private readonly cc: CcContext;
  private readonly control: CallControl;
  private readonly dialing: Dialing;
  private readonly records: CallRecords;
  private readonly facts: SwitchFactHandlers;
  private readonly texts: TextCounterStore;
  private readonly restorer: Restorer;
  private callChanges = 0;
  private textChanges = 0;

  constructor(readonly deps: ContactCenterDeps) {
    const sink = deps.liveState;
    const publish = sink
      ? (e: CcEvent) => {
          deps.publish(e);
          if (e.category === 'call') sink.callChanged(e.tenantId, e.data.call.smdrCallId);
          else if (e.category === 'agent') sink.agentChanged(e.tenantId, e.data.agent.ext);
        }
      : deps.publish;
    const parts = {
      directory: deps.directory,
      clock: deps.clock,
      sw: deps.switch,
      events: new CcEvents(deps.clock, publish),
      calls: new CallBook(),
    } as { -readonly [K in keyof CcContext]: CcContext[K] };
    parts.agents = new AgentStates(parts);
    parts.stats = new QueueStatistics(parts);
    parts.distribution = new Distribution(parts);
    parts.offers = new Offers(parts);
    parts.queueCalls = new QueueCalls(parts);
    this.cc = parts;
    this.control = new CallControl(parts);
    this.dialing = new Dialing(parts);
    const onRecordError =
      deps.onRecordError ?? ((err, id) => console.error(`call record ${id} not written`, err));
    this.records = new CallRecords(deps.callRecords, onRecordError, () => this.callChanges++);
    this.facts = new SwitchFactHandlers(parts, this.dialing, this.records);
    this.texts = new TextCounterStore(deps.db);
    this.restorer = new Restorer(parts);
  }

  private get now() {
    return this.deps.clock.now();
  }

  private onQueue<T>(tenantId: number, command: () => T): T {
    return this.cc.sw.onQueue(tenantId, command);
  }

  /** The inbound channel: the switch calls this with each fact, on the fact's tenant queue. */
  hear(fact: SwitchFact): void {
    this.callChanges++;
    this.facts.hear(fact);
    const sink = this.deps.liveState;
    if (fact.type === 'call') sink?.callChanged(fact.tenantId, fact.smdrCallId);
    else if (fact.type === 'acd')
      sink?.callChanged(fact.tenantId, fact.name === 'callQueued' ? fact.call.smdrCallId : fact.smdrCallId);
  }

  // ---- agents ----------------------------------------------------------------------------

  /** An agent extension of the tenant, or a typed error. */
  agentExtension(tenantId: number, ext: string): Extension {
    return this.cc.agents.extension(tenantId, ext);
  }

  agentState(tenantId: number, ext: string): AgentSnapshot {
    return this.onQueue(tenantId, () => this.cc.agents.snapshot(tenantId, ext));
  }

  /**
   * Moves whenever an agent state read may answer differently, for any tenant run here: an agent's
   * state changed, restored or forgotten, a reset, and any change of the switch's legs (an agent's
   * phone state is read from them, also where the switch raises no event). Only grows. Its
   * durations move with the clock besides.
   */
  get agentGeneration(): number {
    return this.cc.agents.changes + this.cc.sw.stateGeneration();
  }

  /** updateAgentState: `Ready` or a presence option name. sign_out states sign the agent out of every queue. */
  setAgentState(tenantId: number, ext: string, name: unknown, reason = 'request'): AgentSnapshot {
    return this.onQueue(tenantId, () => this.cc.agents.choose(tenantId, ext, name, reason));
  }

  queueStats(tenantId: number, acdExt: string): QueueStats {
    return this.cc.stats.of(tenantId, acdExt);
  }

  // ---- calls -------------------------------------------------------------------------------

  /**
   * Moves whenever what the call reads answer may change, for any tenant run here: every fact
   * the switch reports (a call starts, changes or ends), a record reaching the store, a tenant
   * taken over or given up, a reset. It only grows.
   */
  get callGeneration(): number {
    return this.callChanges;
  }

  /** Whether the tenant has a call under way here (a contact-center call or any other). */
  hasLiveCalls(tenantId: number): boolean {
    return this.cc.calls.hasAny(tenantId) || this.cc.sw.hasLiveCalls(tenantId);
  }

  /** The tenant's live contact-center calls (queue calls, click to call), newest first. */
  liveCalls(tenantId: number): CcCallSnapshot[] {
    return this.cc.calls.snapshots(tenantId, this.now);
  }

  liveCall(tenantId: number, smdrCallId: string): CcCallSnapshot | undefined {
    return this.cc.calls.live(tenantId, smdrCallId)?.snapshot(this.now);
  }

  /** The tenant's other live calls (between extensions, to voicemail...), as the switch has them so far. */
  otherLiveCalls(tenantId: number): CallRecordData[] {
    return this.cc.sw.liveCallRecords(tenantId).filter((r) => !this.cc.calls.get(r.smdrCallId));
  }

  otherLiveCall(tenantId: number, smdrCallId: string): CallRecordData | undefined {
    if (this.cc.calls.get(smdrCallId)) return undefined;
    return this.cc.sw.liveCallRecord(tenantId, smdrCallId);
  }

  /** Records of ended calls not in the store yet; read them before the store. */
  unwrittenRecords(tenantId: number): CallRecord[] {
    return this.records.notYetWritten(tenantId);
  }

  unwrittenRecord(tenantId: number, smdrCallId: string): CallRecord | undefined {
    return this.records.notYetWrittenOne(tenantId, smdrCallId);
  }

  /** Contact-center details of a call (recordings, timeline), finished first if it is still live. */
  recordDetails(smdrCallId: string): CcCallSnapshot | undefined {
    const call = this.cc.calls.get(smdrCallId);
    if (!call) return undefined;
    return this.onQueue(call.tenantId, () => {
      this.cc.queueCalls.finish(smdrCallId, this.now, 'call ended');
      return call.snapshot(this.now);
    });
  }

  startSuppression(tenantId: number, smdrCallId: string): void {
    this.onQueue(tenantId, () => this.control.startSuppression(tenantId, smdrCallId));
  }

  stopSuppression(tenantId: number, smdrCallId: string): void {
    this.onQueue(tenantId, () => this.control.stopSuppression(tenantId, smdrCallId));
  }

  /** Ends any live call of the tenant. */
  kill(tenantId: number, smdrCallId: string): void {
    this.onQueue(tenantId, () => this.control.kill(tenantId, smdrCallId));
  }

  /** wait_transfer: to an extension, an ACD extension or an outside number. */
  waitTransfer(tenantId: number, smdrCallId: string, target: unknown): void {
    this.onQueue(tenantId, () => this.control.waitTransfer(tenantId, smdrCallId, target));
  }

  /** wait_redirect: to another ACD, by its uuid. */
  waitRedirect(tenantId: number, smdrCallId: string, acdUuid: unknown): void {
    this.onQueue(tenantId, () => this.control.waitRedirect(tenantId, smdrCallId, acdUuid));
  }

  waitKill(tenantId: number, smdrCallId: string): void {
    this.onQueue(tenantId, () => this.control.waitKill(tenantId, smdrCallId));
  }

  /** Click to call through an outbound queue: the queue gives the caller id. */
  dial(tenantId: number, ext: string, target: unknown, outboundQueueId: unknown): CcCallSnapshot {
    return this.onQueue(tenantId, () => this.dialing.dial(tenantId, ext, target, outboundQueueId));
  }

  // ---- SMS/MMS counters -------------------------------------------------------------------

  /**
   * Moves whenever what `textCounts` answers may change, for any tenant run here: a message
   * counted, counters reset (one tenant's, or all by a reset), a tenant taken over or given up
   * (its counters were another node's to change meanwhile). It moves once the store has the
   * change: a read that sees the new count reads the counters after it, and an answer made under
   * the old count is dropped by the new one. It only grows.
   */
  get textGeneration(): number {
    return this.textChanges;
  }

  countTextMessage(tenantId: number, direction: 'in' | 'out', kind: 'sms' | 'mms'): Promise<void> {
    return this.textsChanged(() =>
      this.texts.increment(tenantId, `${direction}_${kind}`, this.leaseOn(tenantId)),
    );
  }

  textCounts(tenantId: number): Promise<TextCounts> {
    return this.texts.get(tenantId);
  }

  resetTextCounts(tenantId: number): Promise<void> {
    return this.textsChanged(() => this.texts.reset(tenantId, this.leaseOn(tenantId)));
  }

  /** The lease this node's writes of the tenant go under; refused (503, to retry) when it has none. */
  private leaseOn(tenantId: number): WriteLease | undefined {
    if (!this.deps.lease) return undefined;
    const lease = this.deps.lease(tenantId);
    if (!lease) throw ownerMoved(tenantId);
    return lease;
  }

  /**
   * Moves `textGeneration` once the store's change is made (or failed: it may have been made).
   * A write the lease fence refused (the tenant moved while it ran) is answered 503, to retry.
   */
  private textsChanged(write: () => Promise<void>): Promise<void> {
    return Promise.resolve()
      .then(write)
      .catch((err: unknown) => {
        throw err instanceof StaleEpochError ? ownerMoved(err.tenantId) : err;
      })
      .finally(() => this.textChanges++);
  }

  // ---- failover: durable state, and a tenant taken over (restore.ts) -------------------------

  /** The contact center's part of a live call, as data; undefined when it holds none. */
  durableCall(tenantId: number, smdrCallId: string): DurableCcCall | undefined {
    return this.restorer.durableCall(tenantId, smdrCallId);
  }

  durableAgent(tenantId: number, ext: string): AgentRecord | undefined {
    return this.restorer.durableAgent(tenantId, ext);
  }

  /** Call on the tenant's turn: an agent's state as the previous owner left it, without an event. */
  restoreAgent(a: AgentRecord): void {
    this.restorer.agent(a);
  }

  /** Call on the tenant's turn, before the switch ends the call: it finishes with `reason`. */
  restoreLostCall(d: DurableCcCall, reason: string): void {
    this.restorer.lostCall(d, reason);
  }

  /** Call on the tenant's turn, once the switch has the caller waiting again. */
  restoreWaitingCall(d: DurableCcCall): void {
    this.restorer.waitingCall(d);
  }

  /** Call on the tenant's turn, after restoring: phones, queue states, statistics, distribution. */
  restored(tenantId: number): void {
    this.callChanges++;
    this.textChanges++;
    this.restorer.settle(tenantId);
  }

  /** The tenant is no longer run here: its calls and agents are forgotten, without events. */
  forgetTenant(tenantId: number): void {
    this.callChanges++;
    this.textChanges++;
    this.restorer.forgetTenant(tenantId);
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  /** Resolves once every call record asked for so far is written. */
  recordsWritten(): Promise<void> {
    return this.records.written();
  }

  /** Back to the demo state: no calls, counters empty, every agent Ready and signed in. */
  async reset(): Promise<void> {
    this.cc.offers.reset();
    this.cc.distribution.reset();
    this.cc.agents.reset();
    this.cc.calls.clear();
    this.records.clear();
    this.callChanges++;
    await this.textsChanged(() => this.texts.clear());
  }
}
