import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest, preParsingAsyncHookHandler, RouteHandlerMethod } from 'fastify';
import { unavailable } from '../../core/errors.js';

/**
 * Where a request runs in a cluster (docs/cluster.md § Forwarding). A tenant's live state exists
 * only on the node that owns the tenant, so a request that concerns a tenant this node does not
 * own is sent whole (method, URL, headers, raw body, client address) to the owner, and answered
 * with exactly the owner's status, headers and body. A request on a voice WebSocket's
 * subscription sets goes, the same way, to the node that holds the socket. This is the port the
 * route core sees; the NATS transport that implements it is src/cluster/forwarding.ts.
 *
 * A standalone server has no placement: the route core then adds no hook and no check at all.
 *
 * The decision is taken in a route-level `preParsing` hook: the scope's authentication has run
 * (the principal is known), the path parameters are parsed, and the raw body has not been read
 * yet, so a request that leaves is captured byte for byte. The body is still parsed here (a
 * malformed one is refused here exactly as the owner would refuse it), then the route handler
 * sends the request instead of running it.
 */
export interface Placement {
  /**
   * A request another node sent here: never sent on again. It runs here, but a tenant's request
   * only while this node owns the tenant (otherwise 503, to retry).
   */
  isForwarded(req: FastifyRequest): boolean;
  /** Whether this node runs the target's requests now (owns the tenant, holds the socket). */
  runsHere(target: Target): boolean;
  /**
   * A forwarded request whose forwarding node has given up on it by now (it answered the client
   * 503 `OWNER_TIMEOUT`, which the client may retry): it must not run any more.
   */
  late(req: FastifyRequest): boolean;
  /**
   * A request whose tenant left this node before it could run (a handover while its body was read,
   * it was authenticated or it waited), answered 503 `OWNER_UNAVAILABLE`: when another node
   * forwarded it, that node is told it did not run and asks the tenant's new owner instead of
   * answering its client 503.
   */
  movedBeforeRun(req: FastifyRequest): void;
  /**
   * While this node is taking the tenant over (it owns it, but what the previous owner left is
   * not here yet), a promise that resolves once it is, or once waiting is no longer worth it
   * (bounded); otherwise undefined. A request of the tenant that runs here waits for it first.
   */
  takingOver(tenantId: number): Promise<void> | undefined;
  /**
   * Runs the request where the target is and writes that node's answer to `reply`. Resolves
   * false when the request is to run here after all (this node became the tenant's owner
   * meanwhile; no node holds the socket); rejects with a 503 `unavailable` error when no node
   * answers within the bounds.
   */
  forward(
    req: FastifyRequest,
    reply: FastifyReply,
    target: Target,
    body: Buffer | undefined,
  ): Promise<boolean>;
  /**
   * This node holds the socket `id` (a voice socket, or a resumable contact-center session): its
   * requests come here, and `state` answers what the socket holds to any node that asks (until
   * the returned release). `takeOver`, when given, closes it here for a connection that resumes
   * it on another node, if `identity` is its owner's; it resolves once the session is stored as
   * detached.
   */
  holdSocket(id: string, state: () => unknown, takeOver?: (identity: string) => Promise<void>): () => void;
  /**
   * A connection resumes session `id`, whose socket another node may still hold open (it has not
   * seen the drop yet): that node closes it, as resumed on another connection, and stores the
   * session as detached before this resolves. Resolves at once when no node holds it, and never
   * rejects: a holder that cannot be reached leaves the resume to go on without it.
   */
  takeOverSocket(id: string, identity: string): Promise<void>;
  /**
   * Resolves once every node can reach the sockets this node holds so far (their subscriptions
   * are registered): a socket's id is told to its client only then, or the client's first
   * request on it, sent to another node, could find no holder.
   */
  socketsHeard(): Promise<void>;
  /** What the node holding the voice socket `id` answers of it; undefined when none holds it. */
  socketState(id: string): Promise<unknown>;
  /**
   * The request run on every other node as a forwarded one (each answers its own part): their
   * 200 answers' JSON bodies, for a route that shows the whole cluster by merging them.
   */
  gather(req: FastifyRequest): Promise<unknown[]>;
}

/**
 * What a request concerns: a tenant (by id); a voice WebSocket (by webSocketId); the simulated
 * outside world, which every node keeps (`everywhere`: each node runs the request, then this
 * one); or something held by one node the route cannot name (`anywhere`: the other nodes run
 * it, and the first answer that is not a 404 is the answer; none, it runs here).
 */
export type Target = number | { socket: string } | { everywhere: true } | { anywhere: true };

/**
 * What a request concerns, from its principal and path; undefined: nothing, it runs here. `R` is
 * what an API hands its rules besides the request (the voice runtime: the tenant of a record the
 * path names, read from the directory); the core's own rule takes nothing more.
 */
export type PlaceOf<R = void> = (
  req: FastifyRequest,
  params: Record<string, string>,
  runtime: R,
) => Target | undefined;
/** The tenant a request concerns, from its parsed body (a route whose path names none). */
export type PlaceOfBody = (body: unknown) => number | undefined;

/** A request that may leave: its target when known before the body, and its raw bytes. */
interface Leaving {
  target: Target | undefined;
  body: Buffer | undefined;
}
const LEAVING = Symbol('leaving');
/** The target of a request that runs here (placed before its body). */
const HERE = Symbol('here');
type Carrier = FastifyRequest & { [LEAVING]?: Leaving; [HERE]?: Target };

/**
 * The route-level hooks of a route that may run elsewhere: `preParsing` decides and captures,
 * the handler forwards or runs `local`.
 */
export function placementHooks(
  placement: Placement,
  place: PlaceOf | undefined,
  placeByBody: PlaceOfBody | undefined,
  local: RouteHandlerMethod,
): { preParsing: preParsingAsyncHookHandler; handler: RouteHandlerMethod } {
  const preParsing: preParsingAsyncHookHandler = async (req, _reply, payload) => {
    let target: Target | undefined;
    if (!placeByBody) target = place?.(req, req.params as Record<string, string>);
    if (placement.isForwarded(req)) {
      (req as Carrier)[HERE] = target;
      return payload;
    }
    if (!placeByBody) {
      if (target === undefined) return payload;
      if (placement.runsHere(target)) {
        (req as Carrier)[HERE] = target;
        return payload;
      }
    }
    if (!hasBody(req)) {
      (req as Carrier)[LEAVING] = { target, body: undefined };
      return payload;
    }
    const limit = req.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
    // Announced over the limit: the parser refuses it at once, before it arrives, as the owner
    // would (read up to the limit here first, the 413 would wait for the client's bytes).
    if (Number(req.headers['content-length']) > limit) return payload;
    const read = await capture(payload, limit);
    // Over the limit: the request stays, and is refused here as the owner would refuse it.
    if (read.whole) (req as Carrier)[LEAVING] = { target, body: read.bytes };
    return read.stream;
  };
  const handler: RouteHandlerMethod = function (req, reply) {
    const carrier = req as Carrier;
    const leaving = carrier[LEAVING];
    const target = leaving?.target ?? carrier[HERE] ?? placeByBody?.(req.body);
    // A tenant's request that runs here waits until this node has taken the tenant over, and
    // runs only while the node still owns it: a handover may have come while its body was read,
    // it was authenticated or it waited (its events would reach no one, its changes be lost).
    const gone = () => typeof target === 'number' && !placement.runsHere(target);
    const run = () => {
      if (gone()) {
        placement.movedBeforeRun(req);
        throw moved(target as number);
      }
      if (placement.late(req)) throw tooLate();
      return local.call(this, req, reply);
    };
    const here = () => {
      const taking = typeof target === 'number' ? placement.takingOver(target) : undefined;
      return taking
        ? taking.then(run, (e: unknown) => {
            if (gone()) placement.movedBeforeRun(req);
            throw e;
          })
        : run();
    };
    if (leaving === undefined || target === undefined || placement.runsHere(target)) return here();
    return placement
      .forward(req, reply, target, leaving.body)
      .then((answered) => (answered ? reply : here()));
  };
  return { preParsing, handler };
}

function moved(tenantId: number) {
  return unavailable(
    'OWNER_UNAVAILABLE',
    `Tenant ${tenantId} moved to another node meanwhile; retry shortly.`,
  );
}

function tooLate() {
  return unavailable(
    'OWNER_TIMEOUT',
    'The request reached its handler after its time was up; it did not run.',
  );
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the body up to `limit` bytes and gives back a stream of the same bytes for the parser.
 * `whole` is false when the body is larger: the stream then carries the rest unread.
 */
function capture(
  payload: Readable,
  limit: number,
): Promise<{ whole: boolean; bytes: Buffer; stream: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      payload.pause();
      stop();
      const rest = new PassThrough();
      for (const c of chunks) rest.write(c);
      payload.pipe(rest);
      resolve({ whole: false, bytes: Buffer.alloc(0), stream: rest });
    };
    const onEnd = () => {
      stop();
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      const stream = new PassThrough();
      stream.end(bytes);
      resolve({ whole: true, bytes, stream });
    };
    const onError = (e: Error & { statusCode?: number }) => {
      stop();
      // As Fastify's own body reader answers a body that broke off (aborted, timed out): 400.
      if (!(typeof e.statusCode === 'number' && e.statusCode >= 400)) e.statusCode = 400;
      reject(e);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}
