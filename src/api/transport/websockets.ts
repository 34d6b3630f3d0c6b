import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type WebSocket, WebSocketServer } from 'ws';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every upgraded socket of the server (`connection` is emitted for each). */
    websocketServer: WebSocketServer;
  }
}

/** The one subprotocol the server selects when a client offers it (browser tools do). */
export const SUBPROTOCOL = 'switchboard';

/** What an upgrade request brought: its socket and the bytes read past its headers. */
interface Upgrade {
  socket: Duplex;
  head: Buffer;
}
const UPGRADE = Symbol('websocket upgrade');
type UpgradeRequest = IncomingMessage & { [UPGRADE]?: Upgrade };

/** Whether the request asks for a WebSocket (it came through the server's `upgrade` event). */
export const isUpgrade = (req: FastifyRequest): boolean => (req.raw as UpgradeRequest)[UPGRADE] !== undefined;

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/**
 * WebSocket upgrades go through Fastify's router, hooks and handlers like any request, so the
 * API scopes authenticate and limit them; only `socketRoute` routes turn them into sockets. Any
 * other answer (401, 404, 426, 503 …) is written on the upgrade's socket, which then closes.
 * This replaces @fastify/websocket, whose global hooks and per-route wrapper every REST request
 * paid for (seen in the request-path profile, docs/decisions.md §1.12).
 */
export function installWebSockets(
  app: FastifyInstance,
  opts: { maxPayload: number; onClose: (wss: WebSocketServer) => void },
): void {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayload,
    // Only ever our own protocol name: `ws` would otherwise select the first one offered, which
    // may be a browser's `basic.<credentials>` (docs/browser-tools.md), and echo it.
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  app.decorate('websocketServer', wss);
  const onUpgrade = (req: UpgradeRequest, socket: Duplex, head: Buffer) => {
    // Node drops its own error listener before emitting 'upgrade'; the socket stays guarded
    // while the request is routed.
    socket.on('error', destroyOnError);
    req[UPGRADE] = { socket, head };
    const res = new ServerResponse(req);
    try {
      res.assignSocket(socket as never);
      res.once('finish', () => socket.destroy());
      app.routing(req, res);
    } catch (err) {
      app.log.warn({ err }, 'websocket upgrade failed');
      socket.destroy();
    }
  };
  app.server.on('upgrade', onUpgrade);
  app.addHook('preClose', (done) => {
    opts.onClose(wss);
    app.server.off('upgrade', onUpgrade);
    wss.close();
    done();
  });
}

export interface SocketRoute {
  url: string;
  /** Runs for upgrades and plain GETs alike, after the scope's hooks (an answer refuses the upgrade). */
  preHandler?: preHandlerAsyncHookHandler;
  /** Answers a GET that is not an upgrade. */
  handler: (req: FastifyRequest, reply: FastifyReply) => unknown;
  /** Takes the socket once the upgrade succeeded. */
  wsHandler: (socket: WebSocket, req: FastifyRequest) => void;
}

/** A GET route that upgrades to a WebSocket (needs `installWebSockets` on the root). */
export function socketRoute(app: FastifyInstance, def: SocketRoute): void {
  app.route({
    method: 'GET',
    url: def.url,
    ...(def.preHandler ? { preHandler: def.preHandler } : {}),
    handler(req, reply) {
      const upgrade = (req.raw as UpgradeRequest)[UPGRADE];
      if (!upgrade) return def.handler(req, reply);
      reply.hijack();
      upgrade.socket.off('error', destroyOnError);
      const wss = app.websocketServer;
      wss.handleUpgrade(req.raw, upgrade.socket, upgrade.head, (socket) => {
        wss.emit('connection', socket, req.raw);
        socket.on('error', (err) => {
          req.log.warn({ err }, 'websocket error');
          socket.terminate();
        });
        try {
          def.wsHandler(socket, req);
        } catch (err) {
          req.log.error({ err }, 'websocket handler failed');
          socket.terminate();
        }
      });
    },
  });
}
