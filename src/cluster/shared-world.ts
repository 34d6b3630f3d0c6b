import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';

/**
 * What the simulator changes for the whole cluster at once (docs/cluster.md § Clock): the
 * virtual clock, and the reset to the demo world. Every node keeps its own clock, and the
 * timers of the tenants it owns; advancing on any node moves every node's clock to the same
 * instant (`<prefix>.clock`), each firing its own due timers in order, and the advance answers
 * once every node has. A reset runs in full on the node asked (the shared database and its own
 * state) and then on every other node for its own state (`<prefix>.reset`). A node that joins
 * with `--clock virtual` moves its clock to the cluster's first.
 */
export interface SharedWorld {
  advanceClock(ms: number): Promise<void>;
  reset(): Promise<void>;
}

export interface SharedWorldOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  nodeId: string;
  clock: Clock;
  log: Logger;
  /** The reset of the database and of this node's state (Runtime.resetToDemo). */
  resetAll(): Promise<void>;
  /** This node's part of another node's reset (Runtime.resetNodeState). */
  resetHere(): Promise<void>;
  /** Resolves once the directory news heard so far is applied (a reset replaced the world). */
  directorySettled(): Promise<void>;
  /** The live nodes of the cluster, this one included. */
  clusterSize?: () => number;
  /** The longest an advance or a reset waits for the other nodes (default 5 s). */
  ackTimeoutMs?: number;
  /** The tenants' clock when live state was last written (the first node's virtual clock starts there). */
  lastStoredAt?: () => Promise<number | undefined>;
}

type ClockNews = { from: string; op: 'advance'; to: number } | { from: string; op: 'now' };

export class ClusterWorld implements SharedWorld {
  private subs: Subscription[] = [];

  constructor(private readonly opts: SharedWorldOptions) {}

  /** Listens to the other nodes; a virtual clock first catches up with theirs. */
  async start(): Promise<void> {
    const { nats, prefix } = this.opts;
    // Before listening: no answer of its own to wait for when it is the first node.
    if (this.opts.clock.mode === 'virtual') await this.catchUp();
    this.subs = [
      nats.subscribe(`${prefix}.clock`, { callback: (err, msg) => this.onClock(err, msg) }),
      nats.subscribe(`${prefix}.reset`, { callback: (err, msg) => this.onReset(err, msg) }),
    ];
  }

  async advanceClock(ms: number): Promise<void> {
    const { clock, nodeId } = this.opts;
    const to = clock.now() + ms;
    const others = this.broadcast('clock', { from: nodeId, op: 'advance', to } satisfies ClockNews);
    clock.advance(ms);
    await others;
  }

  async reset(): Promise<void> {
    await this.opts.resetAll();
    await this.broadcast('reset', { from: this.opts.nodeId });
  }

  private onClock(err: Error | null, msg: Msg): void {
    if (err) return this.opts.log.error({ err }, 'clock subscription failed');
    const news = readNews<ClockNews>(msg, this.opts.log);
    if (!news) return;
    const { clock } = this.opts;
    if (news.op === 'now') {
      if (news.from !== this.opts.nodeId) msg.respond(JSON.stringify({ now: clock.now() }));
      return;
    }
    if (news.from === this.opts.nodeId) return;
    try {
      if (news.to > clock.now()) clock.advance(news.to - clock.now());
    } catch (e) {
      this.opts.log.error({ err: e }, 'advancing the clock for another node failed');
    }
    msg.respond();
  }

  private onReset(err: Error | null, msg: Msg): void {
    if (err) return this.opts.log.error({ err }, 'reset subscription failed');
    const news = readNews<{ from: string }>(msg, this.opts.log);
    if (!news || news.from === this.opts.nodeId) return;
    // The new world was published before the reset: this node reads it first.
    void this.opts
      .directorySettled()
      .then(() => this.opts.resetHere())
      .catch((e: unknown) => this.opts.log.error({ err: e }, 'resetting for another node failed'))
      .then(() => msg.respond());
  }

  /**
   * Moves a joining node's virtual clock to the cluster's (any node answers). None answers: it is
   * the first node, and its clock becomes the cluster's, brought forward (never back) to the
   * last time an owner wrote live state before (the whole cluster stopped: what it left must not
   * be in the future, or the calls a takeover ends would end before they started).
   */
  private async catchUp(): Promise<void> {
    const { nats, prefix, clock, nodeId } = this.opts;
    let now: number | undefined;
    try {
      const answer = await nats.request(
        `${prefix}.clock`,
        JSON.stringify({ from: nodeId, op: 'now' } satisfies ClockNews),
        { timeout: 1000 },
      );
      now = answer.json<{ now: number }>().now;
    } catch {
      now = await this.opts.lastStoredAt?.();
    }
    if (now !== undefined && now > clock.now()) clock.advance(now - clock.now());
  }

  /** Sends `news` to every other node and waits (bounded) for each to answer it has acted. */
  private async broadcast(subject: 'clock' | 'reset', news: object): Promise<void> {
    const { nats, prefix, clusterSize } = this.opts;
    const others = (clusterSize?.() ?? 1) - 1;
    if (others <= 0) {
      nats.publish(`${prefix}.${subject}`, JSON.stringify(news));
      return;
    }
    try {
      const acks = await nats.requestMany(`${prefix}.${subject}`, JSON.stringify(news), {
        strategy: 'count',
        maxMessages: others,
        maxWait: this.opts.ackTimeoutMs ?? 5000,
      });
      for await (const ack of acks) void ack;
    } catch (err) {
      this.opts.log.warn({ err, subject }, 'a node did not confirm a shared clock or reset change');
    }
  }

  async close(): Promise<void> {
    const subs = this.subs;
    this.subs = [];
    for (const s of subs) if (!s.isClosed()) await s.drain().catch(() => {});
  }
}

function readNews<T>(msg: Msg, log: Logger): T | undefined {
  try {
    return msg.json<T>();
  } catch (err) {
    log.error({ err, subject: msg.subject }, 'unreadable cluster news');
    return undefined;
  }
}
