import { observeFrames } from '../../transport/traffic.js';
import type { FastifyInstance } from 'fastify';
import { uuid } from '../../../core/ids.js';
import type { VoiceRuntime } from '../voice-runtime.js';
import { isUpgrade, socketRoute } from '../../transport/websockets.js';
import { Type } from '@sinclair/typebox';
import { PROBLEM_JSON, problem, sendProblem } from '../hal/problem.js';
import { ProblemSchema } from '../hal/problem-schema.js';
import { RETRY_AFTER } from '../hal/resource.js';
import { VOICE_OPENAPI } from '../openapi-info.js';
import { clientKey, principalOf } from '../request-auth.js';
import type { Continuity } from '../../continuity/index.js';
import { parseResumeQuery, ResumeQuerySchema, resumeSocket } from './voice-resume.js';
import type { VoiceSockets } from './voice-sockets.js';

/** How long a readied resume waits for its upgrade at most. */
const READIED_MS = 30_000;

/**
 * `/api/ws`: Basic auth on the upgrade (the scope's auth hook answers 401 without upgrading),
 * then `{"webSocketId": "<uuid>"}`, then an echo of whatever the client sends. Idle sockets close
 * after wsIdleMs; closing cancels the socket's subscription sets.
 */
export function registerEventSocket(
  app: FastifyInstance,
  runtime: VoiceRuntime,
  sockets: VoiceSockets,
  continuity: Continuity,
): void {
  const { limits } = runtime;
  documentEventSocket(runtime);
  // In a cluster a resume is readied before the upgrade; what that holds is let go once resumed.
  const readied = new WeakMap<object, () => void>();
  socketRoute(app, {
    url: '/ws',
    preHandler: async (req, reply) => {
      if (!isUpgrade(req)) return;
      const resume = parseResumeQuery(req.query);
      if ('invalid' in resume)
        return sendProblem(
          reply,
          problem(400, 'INVALID_FIELD', resume.invalid, [{ type: 'field', value: 'resume' }]),
        );
      // Resuming a socket the server still holds open (the drop not yet seen) takes it over; in a
      // cluster, on whichever node holds it.
      if (resume.kind === 'resume') await sockets.takeOver(resume.id, principalOf(req));
      const refusal = await limits.sockets.check(clientKey(req), () => !req.raw.socket.destroyed);
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
      const tenantId = principalOf(req).tenantId;
      if (resume.kind === 'resume' && tenantId !== undefined) {
        const ready = continuity.prepareResume(resume.id, () => [{ tenantId, after: resume.after }]);
        if (ready) {
          const release = await ready;
          readied.set(req.raw, release);
          setTimeout(release, READIED_MS).unref?.();
        }
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
      const slot = limits.sockets.admit(
        clientKey(req),
        () => ws.close(1000, 'idle timeout'),
        () => ws.close(1013, 'too many connections'),
      );
      const echo = observeFrames(ws, runtime.traffic, 'voice-events');
      const resume = parseResumeQuery(req.query);
      let socketId = id;
      if ('invalid' in resume || resume.kind === 'none') {
        sockets.add({ id, owner, ws, slot, sets: new Map() });
        const hello = () => ws.send(JSON.stringify({ webSocketId: id }));
        // In a cluster the id is told once any node can route a request on it here.
        const heard = sockets.heard();
        if (heard) void heard.then(hello, hello);
        else hello();
      } else {
        socketId = resumeSocket(sockets, continuity, { id, owner, ws, slot }, resume);
        readied.get(req.raw)?.();
      }
      ws.on('message', (data, isBinary) => {
        slot.touch();
        echo(data, { binary: isBinary });
      });
      ws.on('close', () => sockets.close(socketId, ws));
      ws.on('error', () => sockets.close(socketId, ws));
    },
  });
}

/** The HTTP face of /api/ws; the socket's frames are in the AsyncAPI document voice-events. */
function documentEventSocket(runtime: VoiceRuntime): void {
  const refused = (description: string) => ({
    description,
    schema: ProblemSchema,
    contentType: PROBLEM_JSON,
  });
  runtime.docs.addOperation(VOICE_OPENAPI.name, {
    method: 'GET',
    path: '/api/ws',
    operationId: 'openEventSocket',
    summary: 'The event WebSocket',
    description:
      'Send a WebSocket upgrade with Basic credentials; the first frame is `{"webSocketId": "<uuid>"}`. ' +
      'The frames are described by /openapi/voice-events.json. A plain GET is answered 426. ' +
      'With `resume` the socket is resumable: its frames carry a per-tenant `sequence`, and a later ' +
      'connection with `resume=<webSocketId>&after=<sequence>` within the grace period gets its ' +
      'subscription sets back and every event it missed (docs/events.md).',
    tags: ['events'],
    query: ResumeQuerySchema,
    responses: {
      '101': { description: 'Switching to the WebSocket protocol.' },
      '426': {
        ...refused('Not an upgrade request: this address is a WebSocket.'),
        headers: {
          upgrade: { description: '`websocket`', schema: Type.Literal('websocket'), required: true },
        },
      },
      '4XX': refused(
        'A bad `resume` or `after` (400), bad credentials (401, no upgrade), a page on an origin the ' +
          'operator did not allow (403, only with --cors-origins) or this client holds its maximum of sockets (429).',
      ),
      '503': {
        ...refused('The server holds its maximum of WebSockets, or the server is busy.'),
        headers: { 'Retry-After': RETRY_AFTER },
      },
    },
  });
}
