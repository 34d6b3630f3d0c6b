import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Msg,
  type NatsConnection,
  RequestError,
  type Subscription,
  TimeoutError,
} from '@nats-io/transport-node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Placement, Target } from '../api/route-core/placement.js';
import type { Membership } from '../core/cluster.js';
import { unavailable } from '../core/errors.js';
import { type AnswerHead, decodeFrame, encodeFrame, endToEnd, type RequestHead } from './forward-wire.js';

/**
 * Command forwarding between the nodes of a cluster (docs/cluster.md § Forwarding), over core
 * NATS request/reply on `<prefix>.node.<nodeId>.http`:
 *
 * - as the forwarding node (`Placement.forward`), a request for a tenant another node owns goes
 *   there whole, and its answer (status, headers, body) is written to the original connection;
 * - as the owner (`serve`), each request that arrives runs through this node's own Fastify
 *   (`app.inject`) from the client's address, marked forwarded so it is never sent on again.
 *
 * A request on a voice socket's subscription sets goes to `<prefix>.ws.<webSocketId>.http`,
 * which only the node holding that socket listens to (`holdSocket`); when no node does, the
 * socket exists nowhere and the request runs where it arrived (its 404 is the same everywhere).
 *
 * The mark is a header holding a secret only this process knows (32 random bytes): a client
 * cannot forge it, so nothing has to strip it at the front door; the owner removes it when it
 * sees it. Time is bounded both ways: an unknown or unreachable owner is waited for up to
 * `settleMs` (a takeover, at most the lease TTL), then 503; a request that reached an owner gets
 * no second chance (it may have run), so no answer within `timeoutMs` is 503 too.
 */
export interface ForwardingOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  membership: Membership;
  log: Logger;
  /** How long a request that reached an owner may take to be answered (default 10 s). */
  timeoutMs?: number;
  /** How long an unknown, moving or unreachable owner is waited for (default 5 s, the lease TTL). */
  settleMs?: number;
}

const MARK = 'x-switchboard-forwarded';
const FORWARDED = Symbol('forwarded');
/** How often the ownership is looked at again while it settles. */
const SETTLE_POLL_MS = 25;

export const forwardSubject = (prefix: string, nodeId: string) => `${prefix}.node.${nodeId}.http`;
export const socketSubject = (prefix: string, webSocketId: string) => `${prefix}.ws.${webSocketId}.http`;
/** A webSocketId as a subject token: a client's path segment may hold anything. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

export class Forwarding implements Placement {
  private readonly secret = randomBytes(32).toString('base64url');
  private readonly secretBytes = Buffer.from(this.secret);
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private sub: Subscription | undefined;
  private app: FastifyInstance | undefined;
  /** The voice sockets this node holds, each listening for its requests. */
  private readonly sockets = new Map<string, Subscription>();

  constructor(private readonly opts: ForwardingOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.settleMs = opts.settleMs ?? 5_000;
  }

  // ---- the forwarding node ------------------------------------------------------------------

  isForwarded(req: FastifyRequest): boolean {
    const r = req as FastifyRequest & { [FORWARDED]?: boolean };
    if (r[FORWARDED]) return true;
    const mark = req.headers[MARK];
    if (typeof mark !== 'string') return false;
    const sent = Buffer.from(mark);
    const ok = sent.length === this.secretBytes.length && timingSafeEqual(sent, this.secretBytes);
    if (ok) {
      r[FORWARDED] = true;
      delete req.headers[MARK];
    }
    return ok;
  }

  runsHere(target: Target): boolean {
    return typeof target === 'number' ? this.opts.membership.owns(target) : this.sockets.has(target.socket);
  }

  holdSocket(id: string): () => void {
    if (!SUBJECT_TOKEN.test(id)) return () => {};
    this.sockets.get(id)?.unsubscribe();
    const sub = this.opts.nats.subscribe(socketSubject(this.opts.prefix, id), {
      callback: (err, msg) => {
        if (!err && this.app) void this.run(this.app, msg);
      },
    });
    this.sockets.set(id, sub);
    return () => {
      if (this.sockets.get(id) !== sub) return;
      this.sockets.delete(id);
      sub.unsubscribe();
    };
  }

  async forward(
    req: FastifyRequest,
    reply: FastifyReply,
    target: Target,
    body: Buffer | undefined,
  ): Promise<boolean> {
    const head: RequestHead = {
      // A HEAD is asked as its GET: this node's HEAD route then answers the GET's headers, as locally.
      method: req.method === 'HEAD' ? 'GET' : req.method,
      url: req.raw.url ?? req.url,
      // The owner names the request with this node's id (request-ids.ts accepts it).
      headers: { ...endToEnd(req.headers, 'request'), 'x-request-id': req.id },
      ip: req.ip,
      target,
    };
    const frame = encodeFrame(head, body);
    if (typeof target !== 'number') {
      if (!SUBJECT_TOKEN.test(target.socket)) return false;
      const answer = await this.ask(socketSubject(this.opts.prefix, target.socket), frame);
      return answer !== undefined && this.answer(reply, answer);
    }
    const { membership } = this.opts;
    const settleBy = Date.now() + this.settleMs;
    for (;;) {
      if (membership.owns(target)) return false;
      const owner = membership.ownerOf(target);
      const answer =
        owner === undefined ? undefined : await this.ask(forwardSubject(this.opts.prefix, owner), frame);
      if (answer && this.answer(reply, answer)) return true;
      // No owner yet, or it moved or went away: wait for the ownership to settle.
      if (Date.now() >= settleBy) {
        throw unavailable('OWNER_UNAVAILABLE', `No node is running tenant ${target} now; retry shortly.`);
      }
      await sleep(SETTLE_POLL_MS);
    }
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

  /** Sends the request to `subject`; undefined when no node listens there (it is gone). */
  private async ask(subject: string, frame: Uint8Array) {
    try {
      const msg = await this.opts.nats.request(subject, frame, { timeout: this.timeoutMs });
      return decodeFrame<AnswerHead>(msg.data);
    } catch (e) {
      if (e instanceof RequestError && e.isNoResponders()) return undefined;
      if (e instanceof TimeoutError) {
        throw unavailable(
          'OWNER_TIMEOUT',
          `The node running the request did not answer in ${this.timeoutMs} ms.`,
        );
      }
      this.opts.log.warn({ err: e, subject }, 'forwarding a request failed');
      throw unavailable('OWNER_UNREACHABLE', 'The node running the request cannot be reached now.');
    }
  }

  // ---- the owner ----------------------------------------------------------------------------

  /** Runs the requests other nodes forward here through `app`, until `close`. */
  serve(app: FastifyInstance): void {
    this.app = app;
    const subject = forwardSubject(this.opts.prefix, this.opts.membership.nodeId);
    this.sub = this.opts.nats.subscribe(subject, {
      callback: (err, msg) => {
        if (err) {
          this.opts.log.error({ err }, 'forwarding subscription failed');
          return;
        }
        void this.run(app, msg);
      },
    });
  }

  private async run(app: FastifyInstance, msg: Msg): Promise<void> {
    let answer: Uint8Array;
    try {
      const { head, body } = decodeFrame<RequestHead>(msg.data);
      if (!this.runsHere(head.target)) {
        answer = encodeFrame({ refused: 'moved' });
      } else {
        const res = await app.inject({
          method: head.method as 'GET',
          url: head.url,
          headers: { ...head.headers, [MARK]: this.secret },
          ...(body.length > 0 ? { payload: body } : {}),
          remoteAddress: head.ip,
        });
        answer = encodeFrame(
          { status: res.statusCode, headers: endToEnd(res.headers, 'answer') },
          res.rawPayload,
        );
      }
    } catch (err) {
      this.opts.log.error({ err }, 'running a forwarded request failed');
      answer = encodeFrame({ refused: 'failed' });
    }
    msg.respond(answer);
  }

  /** Stops taking forwarded requests (those under way still answer). */
  async close(): Promise<void> {
    const sub = this.sub;
    this.sub = undefined;
    for (const s of this.sockets.values()) s.unsubscribe();
    this.sockets.clear();
    if (sub && !sub.isClosed()) await sub.drain().catch(() => {});
  }
}
