import { KeyedChain } from '../../../core/keyed-chain.js';
import type { Clock } from '../../../core/clock.js';
import { type Membership, StaleEpochError, type TenantLease } from '../../../core/cluster.js';
import { unavailable } from '../../../core/errors.js';
import { uuid } from '../../../core/ids.js';
import type { Principal } from '../../../core/permissions.js';
import {
  FINISHED_KEPT,
  prunesWith,
  type StoredDelivery,
  type WebhookStorePort,
} from '../../../core/webhooks.js';
import type { EventJournal } from '../../continuity/index.js';
import type { TrafficObserver } from '../../transport/traffic.js';
import { identityOf } from '../../continuity/index.js';
import { framerOf } from '../events/frames.js';
import type { AccountKind, SubscriptionIndex, SubscriptionSet } from '../events/subscriptions.js';
import { DeliveryQueue, type RetryPolicy } from './delivery-queue.js';
import { postOnce, type SendResult } from './sender.js';
import { sign } from './signing.js';

/** The operator's webhook settings (flags; docs/events.md "Webhooks"). */
export interface WebhookSettings extends RetryPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
}

/** The settings from the operator's flags; retries start after 5 s and wait at most an hour. */
export function webhookSettings(c: {
  webhooksAllowHttp: boolean;
  webhooksAllowPrivate: boolean;
  webhookTimeoutMs: number;
  webhookRetryMs: number;
}): WebhookSettings {
  return {
    allowHttp: c.webhooksAllowHttp,
    allowPrivate: c.webhooksAllowPrivate,
    timeoutMs: c.webhookTimeoutMs,
    retryWindowMs: c.webhookRetryMs,
    baseDelayMs: 5_000,
    maxDelayMs: 3_600_000,
  };
}

/** What a webhook was registered with; `secret` is never shown after creation. */
export interface WebhookState {
  url: string;
  secret: string;
  accounts: Record<AccountKind, string[]>;
  failing: boolean;
  createdAt: number;
  /** After a rotation: the secret before it, still signing until `previousUntil` (server clock). */
  previousSecret?: string;
  previousUntil?: number;
  /**
   * The sequence of the tenant's last event when the webhook was made: in a cluster, a node that
   * takes the tenant over reads the events after it back from the stream for a webhook that has
   * no delivery yet. Absent on webhooks made before it was kept: such a webhook without a
   * delivery gets none at its first takeover, and is given the sequence there for the next.
   */
  after?: number;
}

/** How long a rotated-out secret still signs (a second signature in the header). */
export const ROTATION_GRACE_MS = 86_400_000;

export interface Webhook {
  id: string;
  /**
   * Cluster: the sequence of the latest event this node queued a delivery of (or found stored):
   * kept in the stored state (`after`) before the store forgets old deliveries, so the next
   * owner's read-back starts after it, not after an older delivery's.
   */
  lastSequence: number;
  tenantId: number;
  owner: Principal;
  state: WebhookState;
  set: SubscriptionSet;
  queue: DeliveryQueue;
}

/**
 * The webhooks of the server. Each is one more subscription set in the voice fan-out's index, so
 * an event reaches a webhook as it reaches a socket, and no webhook costs nothing. Its tenant is
 * followed by the journal, so every delivery carries the event's sequence.
 *
 * In a cluster every node sees every event, but a tenant's webhooks live only on its owner, so
 * each event is queued, and delivered, once (docs/cluster.md, "Events"). A node that gains a
 * tenant takes up its webhooks and their stored queues, and queues the events the previous owner
 * had not (those after the last sequence stored, or after the webhook was made, read back from
 * the stream); a node that loses one stops its queues and forgets them, deleting nothing. The
 * owner's queue writes (deliveries, the `failing` mark) are fenced by its lease, and each delivery
 * attempt waits for the database to confirm the lease (a first attempt: for its delivery stored
 * under it): an owner that lost its lease without noticing yet is refused, and stops that
 * tenant's webhooks at once (docs/cluster.md, "Webhooks").
 */
export class WebhookRegistry {
  private readonly byId = new Map<string, Webhook>();
  /** By owner, and a count per tenant: a client's list never walks the other tenants' webhooks. */
  private readonly byOwner = new Map<string, Map<string, Webhook>>();
  private readonly perTenant = new Map<number, number>();
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Cluster: each tenant's take-ups and let-gos, chained in order. */
  private readonly owning = new KeyedChain<number>();
  private unwatch = () => {};
  private changes = 0;
  /** Cluster: new deliveries whose first save their first attempt still has to wait for. */
  private readonly unsaved = new WeakMap<StoredDelivery, Promise<WriteOutcome>>();
  /** Cluster: take-ups that failed, waiting to be tried again. */
  private readonly takeUpRetries = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly store: WebhookStorePort,
    private readonly index: SubscriptionIndex,
    private readonly journal: EventJournal,
    private readonly clock: Clock,
    readonly settings: WebhookSettings,
    private readonly log: { error(obj: object, msg: string): void },
    private readonly membership: Pick<Membership, 'nodeId' | 'clustered' | 'owns' | 'epochOf' | 'onChange'>,
    /** Sees every delivery attempt (the contract tests). */
    private readonly traffic?: TrafficObserver,
  ) {}

  /**
   * Grows with every change of what the webhook reads answer: a webhook added, changed (its
   * `failing` mark, a rotation), deleted or let go, and every change of a delivery (queued, tried,
   * finished), each stored as it happens (kept reads, route-core/read-cache.ts).
   */
  get generation(): number {
    return this.changes;
  }

  /**
   * Builds the stored webhooks again, with their pending deliveries queued in order. In a cluster:
   * those of the tenants this node owns, and from then on of each tenant it gains.
   */
  async load(): Promise<void> {
    if (!this.membership.clustered) {
      this.restore(await this.store.loadAll());
      return;
    }
    this.unwatch = this.membership.onChange((c) =>
      c.owned ? this.takeUpInTurn(c.tenantId) : this.inTurn(() => this.letGo(c.tenantId), c.tenantId),
    );
    const { webhooks } = await this.store.loadAll();
    for (const t of new Set(webhooks.map((w) => w.tenantId))) {
      if (this.membership.owns(t)) void this.takeUpInTurn(t);
    }
    await this.owning.all();
  }

  /**
   * A tenant is taken up and let go in the order asked, other tenants side by side; a turn that
   * fails is logged, and the tenant's next goes on (a failed turn must not stop every later one).
   */
  private inTurn(turn: () => void | Promise<void>, tenantId: number, failed?: () => void): Promise<void> {
    return this.owning.run(tenantId, turn).catch((err) => {
      this.log.error({ err, tenantId }, 'webhooks: taking a tenant up or letting it go failed');
      failed?.();
    });
  }

  /**
   * Takes the tenant up in its turn; one that failed (the database did not answer) is tried
   * again, waiting 1 s, then twice as long each time up to 30 s, while this node still owns it:
   * its webhooks would otherwise stay silent here until the tenant moves.
   */
  private takeUpInTurn(tenantId: number, waitMs = 1_000): Promise<void> {
    return this.inTurn(
      async () => {
        await this.takeUp(tenantId);
        this.cancelTakeUpRetry(tenantId);
      },
      tenantId,
      () => {
        this.cancelTakeUpRetry(tenantId);
        const timer = setTimeout(() => {
          this.takeUpRetries.delete(tenantId);
          if (!this.closed && this.membership.owns(tenantId))
            void this.takeUpInTurn(tenantId, Math.min(waitMs * 2, 30_000));
        }, waitMs);
        timer.unref?.();
        this.takeUpRetries.set(tenantId, timer);
      },
    );
  }

  private cancelTakeUpRetry(tenantId: number): void {
    clearTimeout(this.takeUpRetries.get(tenantId));
    this.takeUpRetries.delete(tenantId);
  }

  /** Adds stored webhooks and their deliveries (pending ones queued in order); answers those added. */
  private restore(stored: Awaited<ReturnType<WebhookStorePort['loadAll']>>): Webhook[] {
    const added: Webhook[] = [];
    for (const w of stored.webhooks) {
      if (this.byId.has(w.id)) continue;
      added.push(
        this.add(w.id, w.tenantId, JSON.parse(w.owner) as Principal, JSON.parse(w.state) as WebhookState),
      );
    }
    for (const d of stored.deliveries) {
      const hook = this.byId.get(d.webhookId);
      if (!hook || !added.includes(hook)) continue;
      if (d.status === 'pending') hook.queue.push(d);
      else {
        hook.queue.finished.push(d);
        hook.queue.nextPosition = Math.max(hook.queue.nextPosition, d.position + 1);
      }
    }
    // The store keeps a few more finished ones than the log shows (it forgets them in steps).
    for (const hook of added) hook.queue.finished.splice(0, hook.queue.finished.length - FINISHED_KEPT);
    return added;
  }

  /**
   * Cluster: this node now owns the tenant. Its webhooks come back with their queues, and each
   * webhook is given the events after the last one it has a delivery of (the previous owner may
   * not have queued them all), read back from the stream where this node lacks them; then the
   * live events, with nothing in between.
   */
  private async takeUp(tenantId: number): Promise<void> {
    if (this.closed) return;
    const stored = await this.store.loadAll(tenantId);
    // None: nothing to read back (a tenant's requests wait for its takeover, this one included).
    if (stored.webhooks.length === 0) return;
    const lastSeq = new Map<string, number>();
    const later = (id: string, seq: unknown) => {
      if (typeof seq === 'number') lastSeq.set(id, Math.max(lastSeq.get(id) ?? 0, seq));
    };
    for (const w of stored.webhooks) later(w.id, (JSON.parse(w.state) as WebhookState).after);
    for (const d of stored.deliveries)
      later(d.webhookId, (JSON.parse(d.body) as { sequence?: unknown }).sequence);
    const cursors = [...lastSeq.values()].map((after) => ({ tenantId, after }));
    // A read-back that failed fails the take-up, which is tried again (`takeUpInTurn`).
    const release = await this.journal.ready(cursors, true);
    try {
      if (this.closed || !this.membership.owns(tenantId)) return;
      for (const hook of this.restore(stored)) {
        const after = lastSeq.get(hook.id);
        if (after !== undefined) hook.lastSequence = Math.max(hook.lastSequence, after);
        if (after === undefined) {
          const at = this.journal.last(tenantId);
          this.change(hook, (s) => {
            if (typeof s.after === 'number') return false;
            s.after = at;
            return true;
          });
          continue;
        }
        const missed = this.journal.since(tenantId, after);
        if (!missed)
          this.log.error(
            { webhook: hook.id, after },
            'webhook takeover: events after its last delivery (or its making) are gone',
          );
        for (const e of missed ?? []) {
          if (e.channel === 'voice' && this.index.hears(hook.set, e.tags))
            hook.set.deliver(framerOf(e.body)(hook.id, e.seq));
        }
      }
    } finally {
      release();
    }
  }

  /** Cluster: another node owns the tenant now; its webhooks stop here (nothing is deleted). */
  private letGo(tenantId: number): void {
    this.cancelTakeUpRetry(tenantId);
    for (const hook of [...this.byId.values()]) if (hook.tenantId === tenantId) this.forget(hook);
  }

  /** Resolves once it may be answered (in a cluster: once stored; see `persist`). */
  async create(tenantId: number, owner: Principal, state: WebhookState): Promise<Webhook> {
    // A request that ran here while the tenant moved to another node (a handover): that node
    // holds the tenant's webhooks now, so the client is asked to try again, and reaches it.
    if (!this.membership.owns(tenantId)) throw moving(tenantId);
    const hook = this.add(uuid(), tenantId, owner, { ...state, after: this.journal.last(tenantId) });
    await this.persist(hook);
    return hook;
  }

  /** The webhook, only when `p` created it (others are told it does not exist). */
  ownedBy(id: string, p: Principal): Webhook | undefined {
    const w = this.byId.get(id);
    return w && identityOf(w.owner) === identityOf(p) ? w : undefined;
  }

  listOf(p: Principal): Webhook[] {
    return [...(this.byOwner.get(identityOf(p))?.values() ?? [])];
  }

  countOf(tenantId: number): number {
    return this.perTenant.get(tenantId) ?? 0;
  }

  /** Resolves once it may be answered (in a cluster: once stored; see `persist`). */
  delete(hook: Webhook): Promise<void> {
    this.forget(hook);
    return this.clientWrite(hook.tenantId, (lease) => this.store.deleteWebhook(hook.id, lease));
  }

  /** Stops a webhook here and drops it from every index (deleted, or its tenant let go). */
  private forget(hook: Webhook): void {
    if (this.byId.get(hook.id) !== hook) return;
    this.changes++;
    this.byId.delete(hook.id);
    const mine = this.byOwner.get(identityOf(hook.owner));
    mine?.delete(hook.id);
    if (mine?.size === 0) this.byOwner.delete(identityOf(hook.owner));
    this.perTenant.set(hook.tenantId, (this.perTenant.get(hook.tenantId) ?? 1) - 1);
    this.index.remove(hook.set);
    this.journal.unfollow(hook.tenantId);
    hook.queue.stop();
  }

  /**
   * A new secret; the old one keeps signing for ROTATION_GRACE_MS. Resolves once it may be
   * answered (in a cluster: once stored; see `persist`).
   */
  rotate(hook: Webhook, secret: string): Promise<void> {
    hook.state.previousSecret = hook.state.secret;
    hook.state.previousUntil = this.clock.now() + ROTATION_GRACE_MS;
    hook.state.secret = secret;
    return this.persist(hook);
  }

  /**
   * Deletes every webhook, its queue and its log (the simulator's reset): unfenced, as a reset
   * wipes whatever the tenants' owners hold, a tenant moving meanwhile included.
   */
  async deleteAll(): Promise<void> {
    for (const hook of [...this.byId.values()]) {
      this.forget(hook);
      this.write(() => this.store.deleteWebhook(hook.id));
    }
    await this.writing;
  }

  /** Sends a logged delivery again, as a new log entry with the same message (id and body). */
  redeliver(hook: Webhook, d: StoredDelivery): StoredDelivery {
    const again: StoredDelivery = {
      id: uuid(),
      webhookId: hook.id,
      position: hook.queue.nextPosition++,
      body: d.body,
      status: 'pending',
      attempts: [],
    };
    this.firstSave(hook, again);
    hook.queue.push(again);
    return again;
  }

  /** Stops sending and waits for what is being stored. */
  async close(): Promise<void> {
    this.closed = true;
    this.unwatch();
    for (const timer of this.takeUpRetries.values()) clearTimeout(timer);
    for (const w of this.byId.values()) w.queue.stop();
    await this.writing;
  }

  private add(id: string, tenantId: number, owner: Principal, state: WebhookState): Webhook {
    const prefix = `{"subscriptionSetId":${JSON.stringify(id)},`;
    this.changes++;
    const hook = { id, tenantId, owner, state, lastSequence: state.after ?? 0 } as Webhook;
    hook.set = {
      id,
      webSocketId: `webhook:${id}`,
      tenantId,
      owner,
      accounts: {
        call: new Set(state.accounts.call),
        presence: new Set(state.accounts.presence),
        park: new Set(state.accounts.park),
      },
      parkScope: state.accounts.park.length > 0 ? 'set' : 'none',
      resumable: true,
      deliver: (frame) => this.enqueue(hook, frame.slice(prefix.length)),
    };
    hook.queue = new DeliveryQueue({
      clock: this.clock,
      policy: this.settings,
      attempt: (d) => this.attempt(hook, d),
      save: (d) => this.save(hook, d),
      failing: (value) => {
        if (hook.state.failing === value || !this.byId.has(hook.id)) return;
        this.change(hook, (s) => {
          s.failing = value;
          return true;
        });
      },
    });
    this.byId.set(id, hook);
    const who = identityOf(owner);
    if (!this.byOwner.has(who)) this.byOwner.set(who, new Map());
    this.byOwner.get(who)!.set(id, hook);
    this.perTenant.set(tenantId, (this.perTenant.get(tenantId) ?? 0) + 1);
    this.index.update(hook.set);
    this.journal.follow(tenantId);
    return hook;
  }

  /** A frame the fan-out gave the webhook's set, without its set id: the delivery's body. */
  private enqueue(hook: Webhook, rest: string): void {
    // Only the owner queues.
    if (!this.membership.owns(hook.tenantId)) return;
    const sequence = SEQUENCE_FIRST.exec(rest);
    if (sequence) hook.lastSequence = Math.max(hook.lastSequence, Number(sequence[1]));
    const id = uuid();
    const d: StoredDelivery = {
      id,
      webhookId: hook.id,
      position: hook.queue.nextPosition++,
      body: `{"webhookId":${JSON.stringify(hook.id)},"deliveryId":"${id}",${rest}`,
      status: 'pending',
      attempts: [],
    };
    this.firstSave(hook, d);
    hook.queue.push(d);
  }

  /**
   * A new delivery's first save. In a cluster its first attempt waits for it (`attempt`): a
   * delivery is stored, under the lease, before anything is sent, so a node that takes the tenant
   * over finds every delivery that may have gone out, and sends it again under the same id, never
   * the same event under a new one.
   */
  private firstSave(hook: Webhook, d: StoredDelivery): void {
    const stored = this.save(hook, d);
    if (this.membership.clustered) this.unsaved.set(d, stored);
  }

  private async attempt(hook: Webhook, d: StoredDelivery): Promise<SendResult> {
    if (this.membership.clustered) {
      const lease = this.leaseOf(hook.tenantId);
      if (!lease) {
        // The tenant is no longer this node's, though its loss is not announced here yet.
        this.forget(hook);
        return { error: 'not the owner' };
      }
      const stored = this.unsaved.get(d);
      this.unsaved.delete(d);
      // Its first try: the save, a write fenced by the lease, confirms the lease too, unless the
      // lease ran out meanwhile (a refusal under it then stops nothing: `refused`). A save that
      // failed otherwise (the database) lets the try go ahead, unstored: logged.
      if (stored) {
        if ((await stored) === 'refused' || this.membership.epochOf(hook.tenantId) !== lease.epoch)
          return { error: 'lease lost' };
      } else
        try {
          await this.store.assertLease(lease);
        } catch (err) {
          if (err instanceof StaleEpochError) {
            this.refused(err);
            return { error: 'lease lost' };
          }
          // The database did not answer: the attempt goes ahead (deliveries are at least once).
        }
      // Stopped meanwhile (a write of the tenant's was refused, or the tenant let go).
      if (this.byId.get(hook.id) !== hook) return { error: 'stopped' };
    }
    const messageId = (JSON.parse(d.body) as { deliveryId: string }).deliveryId;
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers = {
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': this.secretsOf(hook)
        .map((secret) => sign(secret, messageId, timestamp, d.body))
        .join(' '),
      'content-type': 'application/json',
      'user-agent': 'Switchboard-Webhooks/1',
    };
    this.traffic?.frame('voice-webhooks', d.body, headers);
    return postOnce(new URL(hook.state.url), headers, d.body, {
      timeoutMs: this.settings.timeoutMs,
      allowPrivate: this.settings.allowPrivate,
    });
  }

  /** The secrets that sign now: the current one, and the previous one within its grace. */
  private secretsOf(hook: Webhook): string[] {
    const { secret, previousSecret, previousUntil } = hook.state;
    return previousSecret && (previousUntil ?? 0) > this.clock.now() ? [secret, previousSecret] : [secret];
  }

  /** Stores a client's change of the webhook (made, rotated) as this node has it (`clientWrite`). */
  private persist(hook: Webhook): Promise<void> {
    this.changes++;
    const row = {
      id: hook.id,
      tenantId: hook.tenantId,
      owner: JSON.stringify(hook.owner),
      state: JSON.stringify(hook.state),
    };
    return this.clientWrite(hook.tenantId, (lease) => this.store.saveWebhook(row, lease));
  }

  /**
   * A client's change (a webhook made, rotated, deleted). On a standalone server it is stored
   * after the answer, as every write here. In a cluster it is stored under this node's lease
   * before the answer: a node that lost the tenant without hearing yet (a handover) would
   * otherwise write it after the new owner loaded the tenant's webhooks, which would then sign
   * with, or deliver to, what the client changed. There the write is refused, the tenant's
   * webhooks stop here, and the client is answered 503 `OWNER_UNAVAILABLE`: its retry reaches the
   * new owner. A write that fails otherwise (the database) is logged, and answered as done, as
   * on a standalone server.
   */
  private clientWrite(tenantId: number, op: (lease?: TenantLease) => Promise<void>): Promise<void> {
    if (!this.membership.clustered) {
      this.write(() => op());
      return Promise.resolve();
    }
    const lease = this.leaseOf(tenantId);
    if (!lease) return Promise.reject(moving(tenantId));
    return this.write(() => op(lease)).then((outcome) => {
      if (outcome === 'refused') throw moving(tenantId);
    });
  }

  /**
   * The owner's change of the webhook (its `failing` mark, its making point): applied to this
   * node's copy, and stored under its lease (not at all by a node without one) by applying it to
   * the state as stored, not by writing this copy: a client's change made meanwhile on another
   * node is kept (`changeWebhook`). `apply` answers whether it changed anything.
   */
  private change(hook: Webhook, apply: (state: WebhookState) => boolean): void {
    this.changes++;
    apply(hook.state);
    const lease = this.leaseOf(hook.tenantId);
    if (!lease) return;
    this.write(() =>
      this.store.changeWebhook(
        hook.id,
        (stored) => {
          const state = JSON.parse(stored) as WebhookState;
          return apply(state) ? JSON.stringify(state) : undefined;
        },
        lease,
      ),
    );
  }

  /**
   * Every change of a delivery is saved at once, in the same turn: the reads follow it here.
   * Under this node's lease; a node without one (the tenant went elsewhere) writes nothing.
   */
  private save(hook: Webhook, d: StoredDelivery): Promise<WriteOutcome> {
    this.changes++;
    const lease = this.leaseOf(hook.tenantId);
    if (!lease) return Promise.resolve('refused');
    // The store forgets old finished deliveries with this one (`prunesWith`): the latest
    // sequence is kept in the webhook first (redeliveries can push its delivery out).
    const last = hook.lastSequence;
    if (this.membership.clustered && prunesWith(d))
      this.change(hook, (s) => {
        if (typeof s.after === 'number' && s.after >= last) return false;
        s.after = last;
        return true;
      });
    const snapshot = { ...d, attempts: [...d.attempts] };
    return this.write(() => this.store.saveDelivery(snapshot, lease));
  }

  /**
   * The lease this node writes a tenant's webhooks under, taken when the write is asked for
   * (epoch 0 on a standalone server, which never lacks one); none in a cluster when this node
   * does not own the tenant.
   */
  private leaseOf(tenantId: number): TenantLease | undefined {
    const epoch = this.membership.epochOf(tenantId);
    return epoch === undefined ? undefined : { tenantId, nodeId: this.membership.nodeId, epoch };
  }

  /**
   * The database refused this node's lease on a tenant: another node owns it, though this one
   * has not heard yet. Its webhooks stop here now (the loss announced later finds none left); a
   * lease taken again since, under a newer epoch, is left alone.
   */
  private refused(err: StaleEpochError): void {
    if (this.membership.epochOf(err.tenantId) !== err.epoch) return;
    this.log.error({ tenantId: err.tenantId, epoch: err.epoch }, 'webhooks stopped here: the lease is lost');
    this.letGo(err.tenantId);
  }

  /**
   * Store writes run one after another, in the order they were asked for. Resolves once this one
   * is done or has failed (a failure is handled here).
   */
  private write(op: () => Promise<void>): Promise<WriteOutcome> {
    if (this.closed) return Promise.resolve('failed');
    const done = this.writing.then(op).then(
      (): WriteOutcome => 'stored',
      (err: unknown): WriteOutcome => {
        if (!(err instanceof StaleEpochError)) {
          this.log.error({ err }, 'webhook store write failed');
          return 'failed';
        }
        this.refused(err);
        return 'refused';
      },
    );
    this.writing = done.then(() => {});
    return done;
  }
}

/** A delivery body's rest begins with the event's sequence when the journal gave it one. */
const SEQUENCE_FIRST = /^"sequence":(\d+),/;

/** How a store write ended: stored, refused by the lease fence (or no lease to write under), or failed. */
type WriteOutcome = 'stored' | 'refused' | 'failed';

/** The answer to a client whose request ran on a node that no longer runs its tenant. */
function moving(tenantId: number) {
  return unavailable('OWNER_UNAVAILABLE', `Tenant ${tenantId} is moving to another node; retry shortly.`);
}
