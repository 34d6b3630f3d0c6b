import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Msg, type NatsConnection, RequestError, type Subscription } from '@nats-io/transport-node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Placement, Target } from '../api/route-core/placement.js';
import type { Membership } from '../core/cluster.js';
import { unavailable } from '../core/errors.js';
import {
  type AnswerHead,
  decodeFrame,
  encodeFrame,
  endToEnd,
  type HeaderValues,
  type RequestHead,
} from './forward-wire.js';
import { NoAnswer, ReplyMux, respond } from './reply-mux.js';

/**
 * Command forwarding between the nodes of a cluster (docs/cluster.md § Forwarding), over core
 * NATS request/reply on `<prefix>.node.<nodeId>.http`:
 *
 * - as the forwarding node (`Placement.forward`), a request for a tenant another node owns goes
 *   there whole, and its answer (status, headers, body) is written to the original connection;
 * - as the owner (`serve`), each request that arrives runs through this node's own Fastify
 *   (`app.inject`) from the client's address, marked forwarded so it is never sent on again
 *   (a tenant's request whose tenant left this node before it ran is answered 503 instead).
 *
 * A request on a voice socket's subscription sets goes to `<prefix>.ws.<webSocketId>.http`,
 * which only the node holding that socket listens to (`holdSocket`); when no node does for a
 * second (a socket opened a moment ago may not be registered yet), the socket exists nowhere
 * and the request runs where it arrived (its 404 is the same everywhere).
 * The holder also answers `<prefix>.ws.<webSocketId>.state` (what the socket holds) for a node
 * that needs it to answer a request of its own tenant (the status reads by subscription set),
 * and `<prefix>.ws.<id>.takeover` (a resume on another node: the socket closes here first).
 * A holder lets a socket go by draining its subscription, not dropping it: NATS may have sent it
 * a request before it heard the unsubscription, and the NATS client drops a message for a
 * subscription it no longer has, unanswered (its sender would wait the whole time-out). Such a
 * request is answered `moved`, having run nothing, and asked again of whoever holds the socket
 * now (resumed on another node) or of no one. The holders of one socket form one queue group, so
 * a request reaches one of them at most and asking again never runs it twice.
 * A request for every node (the simulated outside world) or for whichever node holds what it
 * names goes to `<prefix>.all.http`, which every node listens to.
 *
 * The mark is a header holding a secret only this process knows (32 random bytes): a client
 * cannot forge it, so nothing has to strip it at the front door; the owner removes it when it
 * sees it. Time is bounded both ways: an unknown or unreachable owner is waited for up to
 * `settleMs` (a takeover: the lease TTL and a second), then 503; a request that reached an
 * owner gets no second chance (it may have run), so no answer within `timeoutMs` is 503 too.
 */
export interface ForwardingOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  membership: Membership;
  log: Logger;
  /** How long a request that reached an owner may take to be answered (default 10 s). */
  timeoutMs?: number;
  /**
   * How long an unknown, moving or gone owner is waited for, and a takeover here (default 6 s;
   * a node is given its lease TTL + 1 s).
   */
  settleMs?: number;
  /** The live nodes, this one included: how many answers a request for every node waits for. */
  clusterSize?: () => number;
}

const MARK = 'x-switchboard-forwarded';
/** Beside the mark (and trusted only with it): when the request must have started running by. */
const RUN_BY = 'x-switchboard-run-by';
/** Beside the mark: which of this node's forwarded requests it is (`movedBeforeRun`). */
const ASK = 'x-switchboard-ask';
const FORWARDED = Symbol('forwarded');
const DEADLINE = Symbol('deadline');
const ASK_ID = Symbol('ask');
/**
 * A forwarded request may start running until this long before its sender's time-out: the
 * answer's way back, and the two clocks' starts (the sender's at its publish, the owner's when
 * its event loop took the request in), fit in it.
 */
const RUN_MARGIN_MS = 500;
/** How often the ownership is looked at again while it settles. */
const SETTLE_POLL_MS = 25;
/** How long a node that lost the tenant while it had a request may still answer it. */
const LOST_GRACE_MS = 300;
/** The longest a request for every node waits for their answers. */
const ALL_WAIT_MS = 2_000;
/** How long a new socket's first frame, or a request on an unknown socket, waits for NATS. */
const HEARD_WAIT_MS = 1_000;
/**
 * How long a resume waits for the node holding its old socket to let it go: well within the
 * contact-center connect time-out, so a holder that hangs leaves the resume to go on.
 */
const TAKEOVER_WAIT_MS = 2_000;

export const forwardSubject = (prefix: string, nodeId: string) => `${prefix}.node.${nodeId}.http`;
const socketSubject = (prefix: string, webSocketId: string, what: SocketAsk | '*') =>
  `${prefix}.ws.${webSocketId}.${what}`;
/** A webSocketId as a subject token: a client's path segment may hold anything. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
/** The queue group of a socket's subscriptions: NATS gives each request to one holder. */
const HOLDERS = 'holder';
/** What a socket's holder is asked: a request on it, what it holds, or to let a resume take it. */
type SocketAsk = 'http' | 'state' | 'takeover';
const DONE = encodeFrame({ status: 200, headers: {} });
const MOVED = encodeFrame({ refused: 'moved' });
/** The body of a `.state` ask from a node that joins an answer's parts (an older one sends none). */
const JOINS_PARTS = new Uint8Array([1]);

export class Forwarding implements Placement {
  private readonly secret = randomBytes(32).toString('base64url');
  private readonly secretBytes = Buffer.from(this.secret);
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private readonly replies: ReplyMux;
  private subs: Subscription[] = [];
  private app: FastifyInstance | undefined;
  /** The voice sockets this node holds, each listening for its requests. */
  private readonly sockets = new Map<string, Subscription>();
  /** Forwarded requests running here now: `close` lets them finish. */
  private readonly running = new Set<Promise<void>>();
  private asks = 0;
  /** The forwarded requests running here that did not run after all: their tenant moved. */
  private readonly movedAway = new Set<string>();

  constructor(private readonly opts: ForwardingOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.settleMs = opts.settleMs ?? 6_000;
    this.replies = new ReplyMux(opts.nats, SETTLE_POLL_MS, LOST_GRACE_MS);
  }

  // ---- the forwarding node ------------------------------------------------------------------

  isForwarded(req: FastifyRequest): boolean {
    const r = req as FastifyRequest & { [FORWARDED]?: boolean; [DEADLINE]?: number; [ASK_ID]?: string };
    if (r[FORWARDED]) return true;
    const mark = req.headers[MARK];
    if (typeof mark !== 'string') return false;
    const sent = Buffer.from(mark);
    const ok = sent.length === this.secretBytes.length && timingSafeEqual(sent, this.secretBytes);
    if (ok) {
      r[FORWARDED] = true;
      delete req.headers[MARK];
      const runBy = Number(req.headers[RUN_BY]);
      if (Number.isFinite(runBy)) r[DEADLINE] = runBy;
      delete req.headers[RUN_BY];
      const ask = req.headers[ASK];
      if (typeof ask === 'string') r[ASK_ID] = ask;
      delete req.headers[ASK];
    }
    return ok;
  }

  movedBeforeRun(req: FastifyRequest): void {
    if (!this.isForwarded(req)) return;
    const ask = (req as FastifyRequest & { [ASK_ID]?: string })[ASK_ID];
    if (ask !== undefined) this.movedAway.add(ask);
  }

  late(req: FastifyRequest): boolean {
    const deadline = (req as FastifyRequest & { [DEADLINE]?: number })[DEADLINE];
    return deadline !== undefined && performance.now() > deadline;
  }

  /**
   * Bounded by the settle time, and within a forwarding node's time-out (less a second), so that
   * a forwarded request is answered 503 `OWNER_UNAVAILABLE` here rather than left to time out
   * there and run after.
   */
  takingOver(tenantId: number): Promise<void> | undefined {
    const taking = this.opts.membership.takingOver(tenantId);
    if (!taking) return undefined;
    const busy = () =>
      unavailable('OWNER_UNAVAILABLE', `Tenant ${tenantId} is being taken over here; retry shortly.`);
    let timer: NodeJS.Timeout | undefined;
    let watch: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(busy()), Math.min(this.settleMs, this.timeoutMs - 1_000));
      // Lost meanwhile: refused at once (answered `moved` to a forwarding node, which would
      // otherwise hear nothing until the takeover ends, and give up on the request as lost).
      watch = setInterval(() => {
        if (!this.opts.membership.owns(tenantId)) reject(busy());
      }, SETTLE_POLL_MS);
    });
    return Promise.race([taking, late])
      .then(() => {
        // The lease may have gone while the takeover ran (a slow database fails renewals too).
        if (!this.opts.membership.owns(tenantId)) throw busy();
      })
      .finally(() => {
        clearTimeout(timer);
        clearInterval(watch);
      });
  }

  runsHere(target: Target): boolean {
    if (typeof target === 'number') return this.opts.membership.owns(target);
    return 'socket' in target && this.sockets.has(target.socket);
  }

  holdSocket(id: string, state: () => unknown, takeOver?: (identity: string) => Promise<void>): () => void {
    if (!SUBJECT_TOKEN.test(id)) return () => {};
    const sub: Subscription = this.opts.nats.subscribe(socketSubject(this.opts.prefix, id, '*'), {
      queue: HOLDERS,
      callback: (err, msg) => {
        if (err) return;
        const moved = this.sockets.get(id) !== sub;
        // A takeover runs even here while draining: the socket may have closed a moment ago, and
        // what its close stores must be written before the resume reads the session.
        if (msg.subject.endsWith('.takeover')) {
          Promise.resolve(takeOver?.(msg.string()))
            .catch((e: unknown) => this.opts.log.warn({ err: e, socket: id }, 'socket takeover failed'))
            .finally(() => this.respond(msg, moved ? MOVED : DONE));
        }
        // Let go of, still draining: the sender asks again.
        else if (moved) this.respond(msg, MOVED);
        else if (msg.subject.endsWith('.state'))
          this.answerOrRefuse(
            msg,
            encodeFrame({ status: 200, headers: {} }, Buffer.from(JSON.stringify(state()))),
            msg.data.length === 0,
          );
        else if (this.app) this.track(this.run(this.app, msg));
      },
    });
    const previous = this.sockets.get(id);
    this.sockets.set(id, sub);
    if (previous) letGo(previous);
    return () => {
      if (this.sockets.get(id) !== sub) return;
      this.sockets.delete(id);
      letGo(sub);
    };
  }

  socketsHeard(): Promise<void> {
    // The server has every subscription this connection sent once it answers a flush's ping.
    // While NATS reconnects nothing can reach the socket anyway: wait a second at most.
    return Promise.race([this.opts.nats.flush().catch(() => {}), sleep(HEARD_WAIT_MS)]);
  }

  async takeOverSocket(id: string, identity: string): Promise<void> {
    if (!SUBJECT_TOKEN.test(id) || this.sockets.has(id)) return;
    try {
      await this.askSocket(id, 'takeover', new TextEncoder().encode(identity), false, TAKEOVER_WAIT_MS);
    } catch (err) {
      this.opts.log.warn({ err, socket: id }, 'the node holding a resumed socket did not let it go');
    }
  }

  async socketState(id: string): Promise<unknown> {
    if (!SUBJECT_TOKEN.test(id)) return undefined;
    let answer;
    try {
      answer = await this.askSocket(id, 'state', JOINS_PARTS, false);
    } catch {
      throw unavailable('OWNER_UNREACHABLE', 'The node holding the WebSocket cannot be reached now.');
    }
    return answer && 'status' in answer.head ? JSON.parse(answer.body.toString('utf8')) : undefined;
  }

  async forward(
    req: FastifyRequest,
    reply: FastifyReply,
    target: Target,
    body: Buffer | undefined,
  ): Promise<boolean> {
    const frame = encodeFrame(this.headOf(req, target), body);
    if (typeof target !== 'number' && !('socket' in target))
      return this.toAll(reply, frame, 'anywhere' in target);
    if (typeof target !== 'number') {
      if (!SUBJECT_TOKEN.test(target.socket)) return false;
      // A socket opened a moment ago on another node may not be registered with NATS yet (a
      // resumable socket's first frame is not held back for it): look again for a second.
      const answer = await this.askSocket(target.socket, 'http', frame, true);
      return answer !== undefined && this.answer(reply, answer);
    }
    const { membership } = this.opts;
    const settleBy = Date.now() + this.settleMs;
    for (;;) {
      if (membership.owns(target)) return false;
      const owner = membership.ownerOf(target);
      const answer =
        owner === undefined
          ? undefined
          : await this.ask(
              forwardSubject(this.opts.prefix, owner),
              frame,
              () => membership.ownerOf(target) !== owner,
            );
      if (answer && this.answer(reply, answer)) return true;
      // No owner yet, or it moved or went away: wait for the ownership to settle.
      if (Date.now() >= settleBy) {
        throw unavailable('OWNER_UNAVAILABLE', `No node is running tenant ${target} now; retry shortly.`);
      }
      await sleep(SETTLE_POLL_MS);
    }
  }

  private headOf(req: FastifyRequest, target: Target): RequestHead {
    // A request for every node is given up on sooner (its answers are waited for ALL_WAIT_MS).
    const everyNode = typeof target === 'object' && ('everywhere' in target || 'anywhere' in target);
    const waitMs = everyNode ? Math.min(this.timeoutMs, ALL_WAIT_MS) : this.timeoutMs;
    return {
      // A HEAD is asked as its GET: this node's HEAD route then answers the GET's headers, as locally.
      method: req.method === 'HEAD' ? 'GET' : req.method,
      url: req.raw.url ?? req.url,
      // The owner names the request with this node's id (request-ids.ts accepts it).
      headers: { ...endToEnd(req.headers, 'request'), 'x-request-id': req.id },
      ip: req.ip,
      target,
      from: this.opts.membership.nodeId,
      runWithinMs: Math.max(0, waitMs - RUN_MARGIN_MS),
      parts: true,
    };
  }

  async gather(req: FastifyRequest): Promise<unknown[]> {
    const parts: unknown[] = [];
    const frame = encodeFrame(this.headOf(req, { everywhere: true }));
    for await (const { head, body } of this.everyOther(frame)) {
      // A node that could not answer its part: the merged view would be short of it.
      if ('refused' in head && head.refused === 'failed')
        throw unavailable('OWNER_FAILED', 'A node could not answer its part of the view.');
      if ('status' in head && head.status === 200) parts.push(JSON.parse(body.toString('utf8')));
    }
    return parts;
  }

  /**
   * Sends the request to every other node. `anywhere`: writes the first answer that is not a 404
   * (true), or none (false: it runs here). Else waits for every node's answer, then false: the
   * request runs here last.
   */
  private async toAll(reply: FastifyReply, frame: Uint8Array, anywhere: boolean): Promise<boolean> {
    for await (const answer of this.everyOther(frame)) {
      if (anywhere && 'status' in answer.head && answer.head.status !== 404)
        return this.answer(reply, answer);
    }
    return false;
  }

  /** Every other live node's answer to `frame` (those that answer within ALL_WAIT_MS). */
  private async *everyOther(frame: Uint8Array): AsyncGenerator<{ head: AnswerHead; body: Buffer }> {
    const others = (this.opts.clusterSize?.() ?? 1) - 1;
    if (others <= 0) return;
    let answers;
    try {
      answers = await this.opts.nats.requestMany(`${this.opts.prefix}.all.http`, frame, {
        strategy: 'count',
        maxMessages: others,
        // A node counted live that went away is not waited for long.
        maxWait: Math.min(this.timeoutMs, ALL_WAIT_MS),
      });
    } catch (e) {
      throw this.everyOtherFailed(e);
    }
    const iterator = answers[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next;
        try {
          next = await iterator.next();
        } catch (e) {
          if (e instanceof RequestError && e.isNoResponders()) return;
          throw this.everyOtherFailed(e);
        }
        if (next.done) return;
        yield decodeFrame<AnswerHead>(next.value.data);
      }
    } finally {
      // The caller may stop at the first answer it wants: the others are not waited for.
      await iterator.return?.();
    }
  }

  private everyOtherFailed(e: unknown): Error {
    this.opts.log.warn({ err: e }, 'a request for every node failed');
    return unavailable('OWNER_UNREACHABLE', 'The other nodes cannot be reached now.');
  }

  /** Writes a node's answer; false when it refused the request as not its own. */
  private answer(reply: FastifyReply, answer: { head: AnswerHead; body: Buffer }): boolean {
    const { head, body } = answer;
    if ('refused' in head) {
      if (head.refused === 'moved') return false;
      throw unavailable('OWNER_FAILED', 'The node running the request could not take it.');
    }
    reply.code(head.status);
    for (const [name, value] of Object.entries(head.headers)) reply.header(name, value);
    reply.send(body.length > 0 ? body : undefined);
    return true;
  }

  /**
   * Asks the node holding socket `id`; undefined when none does (within a second when
   * `waitForNew`). A `moved` answer (the socket's node had just let it go) is asked again.
   */
  private async askSocket(
    id: string,
    what: SocketAsk,
    frame: Uint8Array,
    waitForNew: boolean,
    timeoutMs = this.timeoutMs,
  ) {
    const lookUntil = Date.now() + HEARD_WAIT_MS;
    for (;;) {
      const answer = await this.ask(socketSubject(this.opts.prefix, id, what), frame, undefined, timeoutMs);
      const moved = answer !== undefined && 'refused' in answer.head && answer.head.refused === 'moved';
      if (answer !== undefined && !moved) return answer;
      if (Date.now() >= lookUntil || this.sockets.has(id) || (!moved && !waitForNew)) return undefined;
      await sleep(SETTLE_POLL_MS);
    }
  }

  /**
   * Sends the request to `subject`; undefined when no node listens there (it is gone). `lost`
   * says the node asked no longer runs what the request concerns (its lease lapsed: it died with
   * the request in hand, before NATS saw it go); the answer is then waited for only LOST_GRACE_MS
   * more, so the client hears 503 about when the takeover happens, not after the whole time-out.
   */
  private async ask(subject: string, frame: Uint8Array, lost?: () => boolean, timeoutMs = this.timeoutMs) {
    let data: Uint8Array | undefined;
    try {
      data = await this.replies.request(subject, frame, timeoutMs, lost);
    } catch (e) {
      const why = e instanceof NoAnswer ? e.why : 'failed';
      if (why === 'lost') {
        throw unavailable(
          'OWNER_LOST',
          'The node running the request went away before it answered; the request may have run.',
        );
      }
      if (why === 'timeout') {
        throw unavailable('OWNER_TIMEOUT', `The node running the request did not answer in ${timeoutMs} ms.`);
      }
      this.opts.log.warn({ err: e, subject }, 'forwarding a request failed');
      throw unavailable('OWNER_UNREACHABLE', 'The node running the request cannot be reached now.');
    }
    return data === undefined ? undefined : decodeFrame<AnswerHead>(data);
  }

  // ---- the owner ----------------------------------------------------------------------------

  /** Runs the requests other nodes forward here through `app`, until `close`. */
  serve(app: FastifyInstance): void {
    this.app = app;
    const callback = (err: Error | null, msg: Msg) => {
      if (err) this.opts.log.error({ err }, 'forwarding subscription failed');
      else this.track(this.run(app, msg));
    };
    const { nats, prefix, membership } = this.opts;
    this.subs = [
      nats.subscribe(forwardSubject(prefix, membership.nodeId), { callback }),
      nats.subscribe(`${prefix}.all.http`, { callback }),
    ];
  }

  private async run(app: FastifyInstance, msg: Msg): Promise<void> {
    const arrived = performance.now();
    let answer: Uint8Array;
    const forEveryNode = msg.subject === `${this.opts.prefix}.all.http`;
    let joinsParts = false;
    const ask = String(++this.asks);
    try {
      const { head, body } = decodeFrame<RequestHead>(msg.data);
      joinsParts = head.parts === true;
      // Its own request for every node: the sender runs it itself.
      if (head.from === this.opts.membership.nodeId && forEveryNode) return;
      const mine =
        typeof head.target === 'number' || 'socket' in head.target ? this.runsHere(head.target) : true;
      if (!mine) {
        answer = MOVED;
      } else {
        const res = await app.inject({
          method: head.method as 'GET',
          url: head.url,
          headers: { ...this.markedHeaders(head, arrived), [ASK]: ask },
          ...(body.length > 0 ? { payload: body } : {}),
          remoteAddress: head.ip,
          // Built here from a decoded frame: light-my-request's own check of its options (Ajv) is not needed.
          validate: false,
        });
        // Its tenant moved before it ran: the forwarding node asks the new owner.
        answer = this.movedAway.has(ask)
          ? MOVED
          : encodeFrame({ status: res.statusCode, headers: endToEnd(res.headers, 'answer') }, res.rawPayload);
      }
    } catch (err) {
      this.opts.log.error({ err }, 'running a forwarded request failed');
      answer = encodeFrame({ refused: 'failed' });
    } finally {
      this.movedAway.delete(ask);
    }
    // A request for every node is asked with NATS's own request, and a node of the previous
    // release does not join parts either: an answer too large for one message is refused
    // (the asker's 503) rather than sent cut short.
    this.answerOrRefuse(msg, answer, forEveryNode || !joinsParts);
  }

  /** Sends the answer; one that cannot be sent whole to an asker that cannot join parts is refused. */
  private answerOrRefuse(msg: Msg, answer: Uint8Array, whole: boolean): void {
    if (!this.respond(msg, answer, whole) && whole) this.respond(msg, encodeFrame({ refused: 'failed' }));
  }

  /** The request's headers, marked forwarded, with when it must start running by (this process's clock). */
  private markedHeaders(head: RequestHead, arrived: number): HeaderValues {
    const headers: HeaderValues = { ...head.headers, [MARK]: this.secret };
    delete headers[RUN_BY];
    delete headers[ASK];
    if (head.runWithinMs !== undefined) headers[RUN_BY] = String(arrived + head.runWithinMs);
    return headers;
  }

  /** Sends an answer (in parts when large); false, logged, when it could not be sent. */
  private respond(msg: Msg, data: Uint8Array, whole = false): boolean {
    if (respond(this.opts.nats, msg, data, whole)) return true;
    this.opts.log.error({ subject: msg.subject, bytes: data.length }, 'a forwarded answer could not be sent');
    return false;
  }

  private track(run: Promise<void>): void {
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /**
   * Stops taking forwarded requests, and resolves once those under way have answered (within the
   * forwarding time-out): the node's stop closes the app and drops its calls only after, so no
   * forwarded command runs on what is already gone. The sockets' subscriptions are let go of as
   * on a close: a request NATS already sent here is answered `moved`, not dropped.
   */
  async close(): Promise<void> {
    const subs = this.subs;
    this.subs = [];
    const held = [...this.sockets.values()];
    this.sockets.clear();
    for (const s of held) letGo(s);
    for (const s of subs) if (!s.isClosed()) await s.drain().catch(() => {});
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise((r) => (timer = setTimeout(r, this.timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}

/** Stops listening on a socket's subjects, answering (`moved`) what NATS sent before it heard. */
function letGo(sub: Subscription): void {
  sub.drain().catch(() => {});
}
