import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Responses still being made when the server starts closing end their connection
 * (`Connection: close`), so close() need not wait for keep-alive time-outs. Fastify itself does
 * this for requests that arrive after, and closes the idle connections. Tracked per connection,
 * not per request: a response hook cost every request (seen in the request-path profile).
 */
export function closeConnectionsOnShutdown(app: FastifyInstance, tls: boolean): void {
  const connections = new Set<Socket>();
  app.server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of connections) {
      // The response a connection is serving (Node's own link from socket to response).
      const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (res && !res.headersSent) res.setHeader('connection', 'close');
    }
    done();
  });
}
