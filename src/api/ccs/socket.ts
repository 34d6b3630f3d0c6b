import type { FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { CcEvent } from '../../contact-center/types.js';
import type { Principal } from '../../core/permissions.js';
import type { CcRuntime } from './cc-runtime.js';
import { observeFrames } from '../transport/traffic.js';
import { socketRoute } from '../transport/websockets.js';
import { clientOf, type Limits, type SocketSlot } from '../limits/index.js';
import { firstIssue, matches } from '../schema/validate.js';
import { type Continuity, identityOf } from '../continuity/index.js';
import {
  type ConnectResume,
  ConnectResumeSchema,
  ccCursors,
  ccEventOf,
  ccJournalRenderer,
  openCcSession,
  sessionState,
  withSequence,
} from './cc-resume.js';
import { CATEGORIES, EVENT_NAMES, eventFrame } from './event-frames.js';
import {
  type ConnectRequest,
  ConnectRequestSchema,
  type SubscribeRequest,
  SubscribeRequestSchema,
} from './event-schemas.js';
import { principalOfSubject } from './principals.js';
import { SessionIndex } from './session-index.js';
import type { TokenService } from './tokens.js';

interface Session {
  socket: WebSocket;
  principal: Principal;
  slot: SocketSlot;
  /** Event names the client narrowed to; null: everything its permissions allow. */
  only: Set<string> | null;
  /** A resumable session (docs/events.md): its id and where its tenants stood at its start. */
  resume?: { id: string; start: Record<string, number> };
  /** In a cluster: stops a resume on another node from reaching this socket (Placement.holdSocket). */
  release?: () => void;
  /** The last of the socket's requests that wait (`inTurn`), while one does. */
  waiting?: Promise<void>;
}

/**
 * Runs a request of a connected socket once those before it that wait are done (in a cluster a
 * `subscribe` waits for the stream), so the socket's requests are answered in the order they came;
 * with none waiting, at once.
 */
function inTurn(s: Session, step: () => void | Promise<void>): Promise<void> | undefined {
  let mine: Promise<void>;
  if (s.waiting) mine = s.waiting.then(step);
  else {
    const now = step();
    if (!now) return undefined;
    mine = now;
  }
  s.waiting = mine;
  const done = () => {
    if (s.waiting === mine) s.waiting = undefined;
  };
  mine.then(done, done);
  return mine;
}

const TEXT = { binary: false };
const POLICY_VIOLATION = 1008;
const TRY_AGAIN_LATER = 1013;
const INTERNAL_ERROR = 1011;

/** `/6/v2/sock`: connect with a token, then every permitted event, optionally narrowed by subscribe. */
export function eventSocket(
  app: FastifyInstance,
  runtime: CcRuntime,
  tokens: TokenService,
  limits: Limits,
  continuity: Continuity,
) {
  const sessions = new SessionIndex<Session>();
  const { directory, config } = runtime;
  continuity.journal.addRenderer(ccJournalRenderer(directory));

  // One fan-out: each event is rendered, serialized and UTF-8 encoded once, then sent as a text
  // frame to the sessions that may see it (a string would be encoded again for every socket).
  // Resumable sessions get a second encoding that carries the event's sequence.
  runtime.events.subscribe((e) => {
    if (e.type !== 'cc' || sessions.size === 0) return;
    let json: string | null | undefined;
    let frame: Buffer | undefined;
    let sequenced: Buffer | undefined;
    for (const s of sessions.audience(e.tenantId)) {
      if (!receives(s, e)) continue;
      if (json === undefined) {
        const f = eventFrame(directory, e);
        json = f && JSON.stringify(f);
      }
      if (json === null) return;
      s.slot.touch();
      if (s.resume) {
        const seq = continuity.journal.sequenceOf(e);
        sequenced ??= Buffer.from(seq === undefined ? json : withSequence(json, seq));
        s.socket.send(sequenced, TEXT);
      } else s.socket.send((frame ??= Buffer.from(json)), TEXT);
      runtime.telemetry.eventsSent.contactCenter++;
    }
  });

  /** Ends a session's socket bookkeeping; a resumable one waits for its grace period. */
  const detach = (s: Session) => {
    if (!sessions.delete(s)) return;
    s.slot.release();
    s.release?.();
    if (s.resume) continuity.sessions.detach(s.resume.id, sessionState(s.only, s.resume.start));
  };

  socketRoute(app, {
    url: '/sock',
    // A plain GET (no upgrade) is told the address is a WebSocket.
    handler: (_req, reply) =>
      reply
        .code(426)
        .header('upgrade', 'websocket')
        .header('connection', 'Upgrade')
        .send({ success: false, reason: 'Upgrade Required' }),
    wsHandler: (socket, req) => onSocket(socket, req.ip),
  });

  function onSocket(socket: WebSocket, ip: string) {
    observeFrames(socket, runtime.traffic, 'contact-center-events');
    // Until `connect` succeeds the socket holds a slot of the pending pool (capped per IP), never
    // one of the authenticated sockets': anonymous sockets cannot crowd out clients.
    if (limits.pendingSockets.refusal(ip)) {
      socket.close(TRY_AGAIN_LATER, 'too many connections');
      return;
    }
    let slot = limits.pendingSockets.admit(
      ip,
      () => socket.close(1000, 'idle'),
      // In a cluster: admitted on several nodes at once, over the address's limit.
      () => socket.close(TRY_AGAIN_LATER, 'too many connections'),
    );
    let session: Session | undefined;
    let connecting = false;
    /** A resume readied for this connect, let go of however the connect ends. */
    let releaseResume = () => {};
    const connectTimer = setTimeout(() => {
      if (!session) socket.close(POLICY_VIOLATION, 'no connect');
    }, config.wsConnectTimeoutMs);
    connectTimer.unref?.();
    const send = (msg: unknown) => {
      slot.touch();
      socket.send(JSON.stringify(msg));
    };

    // A failure (the database unreachable while the token or the socket claim is looked up) closes
    // this socket; unhandled, the rejection of a listener would end the process.
    socket.on('message', (raw) => {
      onMessage(raw).catch((err: unknown) => {
        app.log.error({ err }, 'contact-center socket: a request failed');
        releaseResume();
        if (socket.readyState !== socket.OPEN) return;
        if (!session) send({ response: 'connect', success: false, reason: 'Service Unavailable' });
        socket.close(INTERNAL_ERROR, 'internal error');
      });
    });

    async function onMessage(raw: RawData): Promise<void> {
      slot.touch();
      let msg: Record<string, unknown>;
      try {
        const parsed = JSON.parse(raw.toString());
        msg = parsed && typeof parsed === 'object' ? parsed : {};
      } catch {
        msg = {};
      }
      if (!session) {
        if (connecting) return;
        connecting = true;
        // `resume` is judged after the token (a malformed one is its own refusal).
        const { resume: rawResume, ...connect } = msg;
        const subject = matches(ConnectRequestSchema, connect)
          ? await tokens.subjectOf((connect as ConnectRequest).token)
          : null;
        // Closed while the token was looked up: its close already ran, so it must take no slot.
        if (socket.readyState !== socket.OPEN) return;
        const principal = subject ? principalOfSubject(directory, subject) : null;
        if (!principal) {
          send({ response: 'connect', success: false, reason: 'Unauthorized' });
          socket.close(POLICY_VIOLATION, 'unauthorized');
          return;
        }
        const client = clientOf('cc', principal.id, ip);
        const resume = parseResume(rawResume);
        if (resume === undefined) {
          send({ response: 'connect', success: false, reason: 'Invalid resume' });
          socket.close(POLICY_VIOLATION, 'invalid resume');
          return;
        }
        // In a cluster a resume is readied first (docs/cluster.md); `release` lets go of it.
        let release = () => {};
        releaseResume = () => release();
        if (resume !== null && resume !== true) {
          await takeOver(resume.session.toLowerCase(), principal);
          if (socket.readyState !== socket.OPEN) return;
          const ready = continuity.prepareResume(resume.session.toLowerCase(), (stored) =>
            ccCursors(directory, principal, resume.after, stored),
          );
          if (ready) {
            release = await ready;
            if (socket.readyState !== socket.OPEN) return release();
          }
        }
        // In a cluster a new session hears what is raised from now on, not what this node has yet
        // to consume (a resume starts at its cursor instead).
        if (resume === null || resume === true) await runtime.eventsCaughtUp?.();
        const refusal = await limits.sockets.check(client, () => socket.readyState === socket.OPEN);
        // Closed while the other nodes were asked: its close already ran, so it must take no slot.
        if (socket.readyState !== socket.OPEN) return release();
        if (refusal) {
          release();
          send({ response: 'connect', success: false, reason: 'Too many connections' });
          socket.close(TRY_AGAIN_LATER, 'too many connections');
          return;
        }
        clearTimeout(connectTimer);
        slot.release();
        slot = limits.sockets.admit(
          client,
          () => socket.close(1000, 'idle'),
          () => socket.close(TRY_AGAIN_LATER, 'too many connections'),
        );
        session = { socket, principal, slot, only: null };
        sessions.add(session);
        if (resume === null) {
          send({ response: 'connect', success: true });
          return;
        }
        const opened = openCcSession(continuity, directory, principal, resume);
        session.only = opened.only;
        session.resume = { id: opened.id, start: opened.start };
        const held = session;
        held.release = runtime.placement?.holdSocket(
          opened.id,
          () => null,
          (identity) => takenOver(held, identity),
        );
        send({ response: 'connect', success: true, ...opened.answer });
        for (const e of opened.missed) {
          if (receives(session, ccEventOf(e))) socket.send(withSequence(e.body, e.seq));
        }
        release();
        return;
      }
      const s = session;
      if (msg.request === 'subscribe') {
        const issue = firstIssue(SubscribeRequestSchema, msg);
        if (issue) {
          const reason = issue.field.startsWith('events.') ? 'Unknown event name' : issue.message;
          return inTurn(s, () => send({ response: 'subscribe', success: false, reason }));
        }
        const names = expand((msg as SubscribeRequest).events);
        const apply = () => {
          if (!sessions.has(s)) return;
          s.only = names;
          if (s.resume) continuity.sessions.update(s.resume.id, sessionState(names, s.resume.start));
          send({ response: 'subscribe', success: true, events: [...names] });
        };
        // In a cluster it applies to what is raised from now on, as on one node.
        const caughtUp = runtime.eventsCaughtUp;
        return inTurn(s, caughtUp ? () => caughtUp().then(apply) : apply);
      }
      return inTurn(s, () =>
        send({
          response: typeof msg.request === 'string' ? msg.request : 'error',
          success: false,
          reason: 'Unknown request',
        }),
      );
    }

    socket.on('close', () => {
      clearTimeout(connectTimer);
      slot.release();
      if (session) detach(session);
    });
  }

  /**
   * A reconnect resumes a session whose old socket the server still holds: that one closes, here
   * or, in a cluster, on the node holding it (which has stored the session detached by then).
   */
  async function takeOver(id: string, principal: Principal) {
    const identity = identityOf(principal);
    const here = [...sessions.values()].filter((s) => s.resume?.id === id);
    for (const s of here) closeResumed(s, identity);
    if (here.length === 0) await runtime.placement?.takeOverSocket(id, identity);
  }

  /**
   * Another node resumes the session of `s` for `identity`: it closes here (if still open), and
   * what this node stores of the session (its close, now or a moment ago) is written first.
   */
  async function takenOver(s: Session, identity: string) {
    closeResumed(s, identity);
    await continuity.sessions.written();
  }

  function closeResumed(s: Session, identity: string): boolean {
    if (identityOf(s.principal) !== identity || !sessions.has(s)) return false;
    detach(s);
    s.socket.close(1000, 'resumed on another connection');
    return true;
  }
}

/** The connect's `resume`: null when absent, undefined when malformed. */
function parseResume(raw: unknown): ConnectResume | null | undefined {
  if (raw === undefined) return null;
  return matches(ConnectResumeSchema, raw) ? (raw as ConnectResume) : undefined;
}

function receives(s: Session, e: Pick<CcEvent, 'tenantId' | 'category' | 'name'>): boolean {
  const p = s.principal;
  if (p.authority !== 'telco' && p.tenantId !== e.tenantId) return false;
  if (!p.ccPermissions.includes(CATEGORIES[e.category].permission)) return false;
  return s.only === null || s.only.has(e.name);
}

/** Event names and category names (`agent`, `call`, `inbound_queue`), validated, to event names. */
function expand(wanted: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const w of wanted) {
    const category = (Object.keys(CATEGORIES) as CcEvent['category'][]).find((c) => CATEGORIES[c].wire === w);
    if (category) for (const n of EVENT_NAMES[category]) out.add(n);
    else out.add(w);
  }
  return out;
}
