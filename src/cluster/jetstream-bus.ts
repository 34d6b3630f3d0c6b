/**
 * The event bus of a cluster node (docs/cluster.md, "Events"). The tenant's owner publishes each
 * event its switch and contact center raise to the tenant's subject of the cluster's event stream;
 * every node, the owner included, consumes every tenant's subject with one ordered consumer and
 * hands each event, with its stream sequence, to its own subscribers (the socket fan-outs and the
 * continuity journal) in stream order. So a socket on any node sees the frames a socket on the
 * owner sees, in the same order, and the stream sequence is the resume cursor on every node.
 *
 * It also is the journal's `EventStreamSource`: where this node stands in the stream, a barrier
 * that waits until the node has been handed everything published so far, and reading a tenant's
 * events back.
 */
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Bus, Handler } from '../bus/bus.js';
import type { Membership } from '../core/cluster.js';
import type { EventStreamSource } from '../core/event-stream.js';
import type { Telemetry } from '../core/telemetry.js';
import type { PlatformEvent } from '../api/platform-events.js';
import { encodeEvent } from './event-codec.js';
import { EventConsumer, type Origin } from './event-consumer.js';
import { EventPublisher } from './event-publisher.js';
import { EventReader } from './event-reader.js';
import {
  type EventRetention,
  type EventStreamNames,
  ensureEventStream,
  eventStreamNames,
} from './event-stream.js';

export interface JetStreamBusOptions {
  /** The node's one NATS connection (JetStream enabled on the server). */
  nc: NatsConnection;
  /** `--cluster-name`: names the stream and the subjects. */
  clusterName: string;
  membership: Membership;
  /** From `--event-retention` and `--resume-grace-ms`. */
  retention: EventRetention;
  log: Logger;
  /** How long the resume barrier waits for this node to catch up with the stream. */
  catchUpTimeoutMs?: number;
}

/** A `subscribeOthers` subscription, with the last lease epoch seen per key. */
interface Others {
  types: ReadonlySet<PlatformEvent['type']>;
  keyOf: (event: PlatformEvent) => string;
  handler: (event: PlatformEvent) => void;
  epochs: Map<string, number>;
}

export class JetStreamBus implements Bus<PlatformEvent>, EventStreamSource<PlatformEvent> {
  /** Events this node was asked to publish for a tenant it does not own (dropped). */
  notOwned = 0;
  /** Tenants whose dropped events were logged already (once each, the counter says the rest). */
  private readonly warned = new Set<number>();
  /**
   * What this node, as an event's owner, renders of it from its directory as it publishes it
   * (src/api/rendered-at-source.ts; set by the composition).
   */
  renderAtSource?: (event: PlatformEvent) => object | undefined;
  private handlers: Handler<PlatformEvent>[] = [];
  private others: Others[] = [];
  private readonly publisher: EventPublisher;
  private readonly reader: EventReader;
  private consumer!: EventConsumer;

  private constructor(
    private readonly options: JetStreamBusOptions,
    readonly names: EventStreamNames,
    private readonly jsm: JetStreamManager,
    limitAtStart: number,
  ) {
    const js = jetstream(options.nc);
    this.publisher = new EventPublisher(options.nc, js, {
      msgIdPrefix: `${options.membership.nodeId}:${randomUUID()}:`,
      log: options.log,
      isCurrent: (tenantId, epoch) => options.membership.epochOf(tenantId) === epoch,
    });
    this.reader = new EventReader(js, jsm, names, limitAtStart);
  }

  /** Makes sure the stream exists, then consumes every event published from now on. */
  static async start(options: JetStreamBusOptions): Promise<JetStreamBus> {
    const names = eventStreamNames(options.clusterName);
    const jsm = await jetstreamManager(options.nc);
    const limitAtStart = await ensureEventStream(jsm, names, options.retention);
    const bus = new JetStreamBus(options, names, jsm, limitAtStart);
    const head = (await jsm.streams.info(names.stream)).state.last_seq;
    bus.consumer = new EventConsumer(
      jetstream(options.nc),
      names.stream,
      names.all,
      head,
      (e, seq, origin) => bus.deliver(e, seq, origin),
      options.log,
      () => !options.nc.isClosed(),
      (e) => bus.publisher.recovering || bus.others.some((o) => o.types.has(e.type)),
      (subject, data) => (bus.publisher.awaiting ? bus.publisher.recognize(subject, data) : undefined),
    );
    await bus.consumer.start();
    return bus;
  }

  /** Publishes an event of a tenant this node owns; any other is dropped (the owner raises it). */
  publish(event: PlatformEvent): void {
    // Read before `owns`: a lease whose deadline passes between the two is not owned.
    const epoch = this.options.membership.epochOf(event.tenantId);
    if (!this.options.membership.owns(event.tenantId)) {
      this.notOwned++;
      if (!this.warned.has(event.tenantId)) {
        this.warned.add(event.tenantId);
        this.options.log.warn(
          { tenantId: event.tenantId, type: event.type },
          'event of a tenant this node does not own: not published (logged once per tenant)',
        );
      }
      return;
    }
    const bytes = encodeEvent(event, this.rendered(event));
    this.publisher.publish(this.names.subjectOf(event.tenantId), bytes, epoch, event.tenantId);
    if (epoch === undefined) return;
    for (const o of this.others) {
      if (!o.types.has(event.type)) continue;
      const key = o.keyOf(event);
      o.epochs.set(key, Math.max(epoch, o.epochs.get(key) ?? epoch));
    }
  }

  /**
   * The JSON of what the owner renders of the event; a renderer's failure is logged, never thrown
   * to the publisher.
   */
  private rendered(event: PlatformEvent): string | undefined {
    try {
      const rendered = this.renderAtSource?.(event);
      return rendered === undefined ? undefined : JSON.stringify(rendered);
    } catch (err) {
      this.options.log.error({ err, type: event.type }, 'event not rendered at its source: nodes render it');
      return undefined;
    }
  }

  subscribe(handler: Handler<PlatformEvent>): () => void {
    this.handlers = [...this.handlers, handler];
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    };
  }

  /**
   * The events of these types that another node published: the owner of a tenant this node does
   * not run, or the previous owner of one it took over, whose last events may arrive after the
   * takeover. Not this node's own (its switch raised them and holds their state already), nor one
   * raised under an older lease on its tenant than the last event of its key (`keyOf`) this node
   * published or was handed: a previous owner's late event, stored after its successor's. Lease
   * epochs order the owners of a tenant, and every node reads the stream in one order, so every
   * node keeps the same event of each key, whatever their clocks say.
   */
  subscribeOthers(
    types: readonly PlatformEvent['type'][],
    keyOf: (event: PlatformEvent) => string,
    handler: (event: PlatformEvent) => void,
  ): () => void {
    const entry: Others = { types: new Set(types), keyOf, handler, epochs: new Map() };
    this.others = [...this.others, entry];
    return () => {
      this.others = this.others.filter((o) => o !== entry);
    };
  }

  /** Whether an event this node raised for the tenant is not stored in the stream yet. */
  unpublished(tenantId: number): boolean {
    return this.publisher.pending(tenantId);
  }

  position(): number {
    return this.consumer.position;
  }

  /** Bounded as a whole, the stream's own answer included (NATS may be away: false, no throw). */
  caughtUp(): Promise<boolean> {
    const bound = this.options.catchUpTimeoutMs ?? 2_000;
    const caught = this.jsm.streams.info(this.names.stream).then(
      (info) => this.consumer.reached(info.state.last_seq, bound),
      () => false,
    );
    return within(caught, bound);
  }

  /**
   * Resolves true once every event this node published so far is in the stream (false after
   * `timeoutMs`): a node that then catches up with the stream (`caughtUp`) has them.
   */
  stored(timeoutMs = 2_000): Promise<boolean> {
    return within(
      this.publisher.storedSoFar().then(() => true),
      timeoutMs,
    );
  }

  read(tenantId: number, after: number, upTo: number) {
    return this.reader.read(tenantId, after, upTo);
  }

  /** The bus's counters, as gauges of `GET /metrics` (docs/operations.md). */
  offerMetrics(telemetry: Telemetry): void {
    const p = this.publisher.stats;
    const c = this.consumer.stats;
    const gauge = (name: string, help: string, read: () => number) =>
      telemetry.offerGauge(`cluster_events_${name}`, { help, read });
    gauge('published', 'Events this node published to the cluster event stream.', () => p.published);
    gauge('publish_failures', 'Event publishes not confirmed (each retried in order).', () => p.failures);
    gauge('reordered', 'Events stored after a later one because their publish failed.', () => p.reordered);
    gauge('lost', 'Events given up after the publish retry window.', () => p.lost);
    gauge('not_owned', 'Events of tenants this node does not own, not published.', () => this.notOwned);
    gauge('consumed', 'Events this node consumed from the cluster event stream.', () => c.consumed);
    gauge('consumer_restarts', 'Times the event consumer was started again.', () => c.restarts);
    gauge('position', 'Stream sequence of the last event this node consumed.', () => this.consumer.position);
  }

  /** Waits for the publishes in flight (bounded), then stops consuming. The connection stays open. */
  async close(): Promise<void> {
    await Promise.race([this.publisher.idle(), new Promise((r) => setTimeout(r, 5_000).unref?.())]);
    this.publisher.close();
    await this.consumer.close();
  }

  private deliver(event: PlatformEvent, seq: number, origin: Origin | undefined): void {
    if (origin?.msgId && !origin.own) this.publisher.confirm(origin.msgId);
    for (const h of this.handlers) this.hand(() => h(event, seq), seq);
    if (this.others.length === 0 || this.publisher.published(origin?.msgId)) return;
    const epoch = origin?.epoch;
    for (const o of this.others) {
      if (!o.types.has(event.type)) continue;
      if (epoch !== undefined) {
        const key = o.keyOf(event);
        if (epoch < (o.epochs.get(key) ?? -Infinity)) continue;
        o.epochs.set(key, epoch);
      }
      this.hand(() => o.handler(event), seq);
    }
  }

  private hand(run: () => void, seq: number): void {
    try {
      run();
    } catch (err) {
      this.options.log.error({ err, seq }, 'event subscriber failed');
    }
  }
}

/** What `p` answers, or false once `ms` have passed. */
async function within(p: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
