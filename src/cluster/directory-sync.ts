import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Directory, EntityKey } from '../directory/directory.js';

/**
 * Keeps every node's directory (an in-memory cache of the provisioned world, loaded at start)
 * the same as the database (docs/cluster.md § Directory). After a node writes records, it
 * publishes their keys on `<prefix>.dir` (or "all" after a whole-world replace); every other
 * node reads those records again from the database and applies them without writing, so its
 * listeners (the switch, the credential caches, token revocation) hear the change as from a
 * local write. Only keys travel: the database stays the one source of the records.
 *
 * The writer waits, before its write resolves, until every other node has applied it (or
 * `ackTimeoutMs` has passed: a node that went away is not waited for long). A client that wrote
 * through one node therefore reads its write, and logs in with a new PIN, on any node next.
 * `clusterSize` says how many nodes to wait for; without it the writer does not wait.
 *
 * A node that may have missed news reads the whole directory again: after a change it failed to
 * apply (the database failed it), retried with back-off until a reload succeeds, and after its
 * NATS connection came back (news sent while it was away never reached it). Without that, one
 * missed PIN change left the node accepting the old PIN, and counting the new one as failures
 * towards a lock-out, until it restarted.
 */
export interface DirectorySyncOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  nodeId: string;
  directory: Directory;
  log: Logger;
  /** The live nodes of the cluster, this one included. */
  clusterSize?: () => number;
  /** The longest a write waits for the other nodes (default 1 s). */
  ackTimeoutMs?: number;
  /** The first wait before reading everything again after a failure (default 1 s; it doubles). */
  retryFirstMs?: number;
  /**
   * After the whole directory was read again because news may have been missed: what keeps
   * state derived from it (the switch's presence) rebuilds it, since a reload tells no change
   * record by record.
   */
  onReloaded?: () => void;
}

/** After a failed change, the whole directory is read again after this, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** What travels: who wrote, and which records (or all of them). */
interface DirectoryNews {
  from: string;
  written: readonly EntityKey[] | 'all';
}

export class DirectorySync {
  private sub: Subscription | undefined;
  /** Refreshes run one after the other, in the order their news arrived. */
  private applying: Promise<void> = Promise.resolve();
  private readonly subject: string;
  /** The next whole reload after a failure, and the wait before the one after it. */
  private retry: NodeJS.Timeout | undefined;
  private retryMs: number;
  private closed = false;

  constructor(private readonly opts: DirectorySyncOptions) {
    this.subject = `${opts.prefix}.dir`;
    this.retryMs = opts.retryFirstMs ?? RETRY_FIRST_MS;
  }

  /**
   * Listens to the other nodes' news, then reads the whole directory once more: a write another
   * node made between this node's first load and its listening is not missed.
   */
  async start(): Promise<void> {
    this.sub = this.opts.nats.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) this.opts.log.error({ err }, 'directory sync subscription failed');
        else this.hear(msg);
      },
    });
    this.opts.directory.replicateWith((written) => this.tell(written));
    await this.opts.nats.flush();
    const { directory } = this.opts;
    this.applying = this.applying.then(() => directory.reload());
    await this.applying;
    void this.watchConnection();
  }

  /** After NATS came back: news sent meanwhile was lost, so everything is read again. */
  private async watchConnection(): Promise<void> {
    try {
      for await (const s of this.opts.nats.status()) {
        if (this.closed) return;
        if (s.type === 'reconnect') this.reloadAll('NATS reconnected');
      }
    } catch {
      // The connection closed for good.
    }
  }

  /** Reads the whole directory again, in turn with the news; on failure, again later. */
  private reloadAll(why: string): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    if (this.closed) return;
    this.opts.log.info({ why }, 'reading the whole directory again');
    this.applying = this.applying
      .then(() => this.opts.directory.reload())
      .then(
        () => {
          this.retryMs = this.opts.retryFirstMs ?? RETRY_FIRST_MS;
          this.opts.onReloaded?.();
        },
        (err: unknown) => this.failed(err, 'reading the whole directory again failed'),
      );
  }

  private failed(err: unknown, msg: string): void {
    this.opts.log.error({ err, retryInMs: this.retryMs }, msg);
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => this.reloadAll('a change was not applied'), this.retryMs);
    this.retry.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** Resolves once every piece of news heard so far is applied. */
  settled(): Promise<void> {
    return this.applying;
  }

  private hear(msg: Msg): void {
    let news: DirectoryNews;
    try {
      news = msg.json<DirectoryNews>();
    } catch (err) {
      this.opts.log.error({ err }, 'unreadable directory news');
      return;
    }
    if (news.from === this.opts.nodeId) return;
    const { directory } = this.opts;
    this.applying = this.applying
      .then(() => (news.written === 'all' ? directory.reload() : directory.refresh(news.written)))
      .catch((err: unknown) => this.failed(err, 'applying another node’s directory change failed'))
      .then(() => {
        if (msg.reply) msg.respond();
      });
  }

  /** Tells the other nodes, and waits (bounded) until they have applied it. */
  private async tell(written: readonly EntityKey[] | 'all'): Promise<void> {
    const { nats, nodeId, clusterSize } = this.opts;
    const data = JSON.stringify({ from: nodeId, written } satisfies DirectoryNews);
    const others = (clusterSize?.() ?? 1) - 1;
    try {
      if (others <= 0) {
        nats.publish(this.subject, data);
        return;
      }
      const acks = await nats.requestMany(this.subject, data, {
        strategy: 'count',
        maxMessages: others,
        maxWait: this.opts.ackTimeoutMs ?? 1000,
      });
      for await (const ack of acks) void ack;
    } catch (err) {
      // The write is in the database: a node that missed the news reads it at its next start.
      this.opts.log.warn({ err }, 'telling the other nodes of a directory change failed');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.opts.directory.replicateWith(undefined);
    const sub = this.sub;
    this.sub = undefined;
    if (sub && !sub.isClosed()) await sub.drain().catch(() => {});
  }
}
