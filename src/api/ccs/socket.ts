import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { CcEvent } from '../../contact-center/types.js';
import type { Principal } from '../../core/permissions.js';
import type { Runtime } from '../../server/runtime.js';
import { observeFrames } from '../../server/traffic.js';
import { socketRoute } from '../../server/websockets.js';
import { clientOf, type Limits, type SocketSlot } from '../limits/index.js';
import { firstIssue, matches } from '../schema/validate.js';
import { CATEGORIES, EVENT_NAMES, eventFrame } from './event-frames.js';
import {
  type ConnectRequest,
  ConnectRequestSchema,
  type SubscribeRequest,
  SubscribeRequestSchema,
} from './event-schemas.js';
import { principalOfSubject } from './principals.js';
import type { TokenService } from './tokens.js';

interface Session {
  socket: WebSocket;
  principal: Principal;
  slot: SocketSlot;
  /** Event names the client narrowed to; null: everything its permissions allow. */
  only: Set<string> | null;
}

const TEXT = { binary: false };
const POLICY_VIOLATION = 1008;
const TRY_AGAIN_LATER = 1013;

/** `/6/v2/sock`: connect with a token, then every permitted event, optionally narrowed by subscribe. */
export function eventSocket(app: FastifyInstance, runtime: Runtime, tokens: TokenService, limits: Limits) {
  const sessions = new Set<Session>();
  const { directory, config } = runtime;

  // One fan-out: each event is rendered, serialized and UTF-8 encoded once, then sent as a text
  // frame to the sessions that may see it (a string would be encoded again for every socket).
  runtime.bus.subscribe((e) => {
    if (e.type !== 'cc' || sessions.size === 0) return;
    let frame: Buffer | null | undefined;
    for (const s of sessions) {
      if (!receives(s, e)) continue;
      if (frame === undefined) {
        const f = eventFrame(directory, e);
        frame = f && Buffer.from(JSON.stringify(f));
      }
      if (frame === null) return;
      s.slot.touch();
      s.socket.send(frame, TEXT);
    }
  });

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
    let slot = limits.pendingSockets.admit(ip, () => socket.close(1000, 'idle'));
    let session: Session | undefined;
    let connecting = false;
    const connectTimer = setTimeout(() => {
      if (!session) socket.close(POLICY_VIOLATION, 'no connect');
    }, config.wsConnectTimeoutMs);
    connectTimer.unref?.();
    const send = (msg: unknown) => {
      slot.touch();
      socket.send(JSON.stringify(msg));
    };

    socket.on('message', async (raw) => {
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
        const subject = matches(ConnectRequestSchema, msg)
          ? await tokens.subjectOf((msg as ConnectRequest).token)
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
        if (limits.sockets.refusal(client)) {
          send({ response: 'connect', success: false, reason: 'Too many connections' });
          socket.close(TRY_AGAIN_LATER, 'too many connections');
          return;
        }
        clearTimeout(connectTimer);
        slot.release();
        slot = limits.sockets.admit(client, () => socket.close(1000, 'idle'));
        session = { socket, principal, slot, only: null };
        sessions.add(session);
        send({ response: 'connect', success: true });
        return;
      }
      if (msg.request === 'subscribe') {
        const issue = firstIssue(SubscribeRequestSchema, msg);
        if (issue) {
          const reason = issue.field.startsWith('events.') ? 'Unknown event name' : issue.message;
          send({ response: 'subscribe', success: false, reason });
          return;
        }
        const names = expand((msg as SubscribeRequest).events);
        session.only = names;
        send({ response: 'subscribe', success: true, events: [...names] });
        return;
      }
      send({
        response: typeof msg.request === 'string' ? msg.request : 'error',
        success: false,
        reason: 'Unknown request',
      });
    });

    socket.on('close', () => {
      clearTimeout(connectTimer);
      slot.release();
      if (session) sessions.delete(session);
    });
  }
}

function receives(s: Session, e: CcEvent): boolean {
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
