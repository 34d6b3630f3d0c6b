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
import type { Placement } from '../api/route-core/placement.js';
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

export class Forwarding implements Placement {
  private readonly secret = randomBytes(32).toString('base64url');
  private readonly secretBytes = Buffer.from(this.secret);
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private sub: Subscription | undefined;

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

  owns(tenantId: number): boolean {
    return this.opts.membership.owns(tenantId);
  }

  async forward(
    req: FastifyRequest,
    reply: FastifyReply,
    tenantId: number,
    body: Buffer | undefined,
  ): Promise<boolean> {
    const { membership } = this.opts;
    const head: RequestHead = {
      // A HEAD is asked as its GET: this node's HEAD route then answers the GET's headers, as locally.
      method: req.method === 'HEAD' ? 'GET' : req.method,
      url: req.raw.url ?? req.url,
      // The owner names the request with this node's id (request-ids.ts accepts it).
      headers: { ...endToEnd(req.headers, 'request'), 'x-request-id': req.id },
      ip: req.ip,
      tenantId,
    };
    const frame = encodeFrame(head, body);
    const settleBy = Date.now() + this.settleMs;
    for (;;) {
      if (membership.owns(tenantId)) return false;
      const owner = membership.ownerOf(tenantId);
      const answer = owner === undefined ? undefined : await this.ask(owner, frame);
      if (answer && 'status' in answer.head) {
        reply.code(answer.head.status);
        for (const [name, value] of Object.entries(answer.head.headers)) reply.header(name, value);
        reply.send(answer.body.length > 0 ? answer.body : undefined);
        return true;
      }
      if (answer && 'refused' in answer.head && answer.head.refused === 'failed') {
        throw unavailable('OWNER_FAILED', `The node running tenant ${tenantId} could not take the request.`);
      }
      // No owner yet, or it moved or went away: wait for the ownership to settle.
      if (Date.now() >= settleBy) {
        throw unavailable('OWNER_UNAVAILABLE', `No node is running tenant ${tenantId} now; retry shortly.`);
      }
      await sleep(SETTLE_POLL_MS);
    }
  }

  /** Sends the request to `owner`; undefined when no node listens there (it is gone). */
  private async ask(owner: string, frame: Uint8Array) {
    try {
      const msg = await this.opts.nats.request(forwardSubject(this.opts.prefix, owner), frame, {
        timeout: this.timeoutMs,
      });
      return decodeFrame<AnswerHead>(msg.data);
    } catch (e) {
      if (e instanceof RequestError && e.isNoResponders()) return undefined;
      if (e instanceof TimeoutError) {
        throw unavailable(
          'OWNER_TIMEOUT',
          `The node running the tenant did not answer in ${this.timeoutMs} ms.`,
        );
      }
      this.opts.log.warn({ err: e, owner }, 'forwarding a request failed');
      throw unavailable('OWNER_UNREACHABLE', 'The node running the tenant cannot be reached now.');
    }
  }

  // ---- the owner ----------------------------------------------------------------------------

  /** Runs the requests other nodes forward here through `app`, until `close`. */
  serve(app: FastifyInstance): void {
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
      if (!this.opts.membership.owns(head.tenantId)) {
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
    if (sub && !sub.isClosed()) await sub.drain().catch(() => {});
  }
}
