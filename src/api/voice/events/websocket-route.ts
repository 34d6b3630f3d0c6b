import { observeFrames } from '../../../server/traffic.js';
import type { FastifyInstance } from 'fastify';
import { uuid } from '../../../core/ids.js';
import type { Runtime } from '../../../server/runtime.js';
import { limitsFor } from '../../limits/index.js';
import { problem, sendProblem } from '../hal/problem.js';
import { clientKey, principalOf } from '../request-auth.js';
import type { VoiceSockets } from './voice-sockets.js';

/**
 * `/api/ws`: Basic auth on the upgrade (the scope's auth hook answers 401 without upgrading),
 * then `{"webSocketId": "<uuid>"}`, then an echo of whatever the client sends. Idle sockets close
 * after wsIdleMs; closing cancels the socket's subscription sets.
 */
export function registerEventSocket(app: FastifyInstance, runtime: Runtime, sockets: VoiceSockets): void {
  const limits = limitsFor(runtime);
  app.route({
    method: 'GET',
    url: '/ws',
    preHandler: async (req, reply) => {
      if (!req.ws) return;
      const refusal = limits.sockets.refusal(clientKey(req));
      if (refusal === 'global') {
        return sendProblem(
          reply,
          problem(503, 'TOO_MANY_CONNECTIONS', 'The server holds its maximum of WebSockets.'),
          {
            'retry-after': '60',
          },
        );
      }
      if (refusal === 'client') {
        return sendProblem(
          reply,
          problem(429, 'CONNECTION_LIMIT_PER_CLIENT', 'This client already holds its maximum of WebSockets.'),
        );
      }
    },
    // A plain GET (no upgrade) is told how to use the address, and holds no socket slot.
    handler: (_req, reply) =>
      sendProblem(
        reply,
        problem(426, 'UPGRADE_REQUIRED', 'This address is a WebSocket: send an upgrade request.'),
        {
          upgrade: 'websocket',
          connection: 'Upgrade',
        },
      ),
    wsHandler: (ws, req) => {
      const owner = principalOf(req);
      const id = uuid();
      const slot = limits.sockets.admit(clientKey(req), () => ws.close(1000, 'idle timeout'));
      const echo = observeFrames(ws, runtime.traffic, 'voice-events');
      sockets.add({ id, owner, ws, slot, sets: new Map() });
      ws.on('message', (data, isBinary) => {
        slot.touch();
        echo(data, { binary: isBinary });
      });
      ws.on('close', () => sockets.close(id));
      ws.on('error', () => sockets.close(id));
      ws.send(JSON.stringify({ webSocketId: id }));
    },
  });
}
