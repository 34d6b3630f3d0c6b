import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { TestServer } from '../../helpers/server.js';

/** Takes items from an async iterator until one matches (bounded by a real-time limit). */
export async function nextMatching<T>(
  it: AsyncIterator<T>,
  match: (item: T) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    for (;;) {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done) throw new Error(`iteration ended before ${what}`);
      if (match(r.value)) return r.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves when `register` calls back (e.g. a client listener), bounded by a real-time limit. */
export function when<T>(register: (done: (value: T) => void) => void, what: string, timeoutMs = 5000) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** The server's side of one WebSocket: its upgrade request and every message it received. */
export interface ServerSocket {
  ws: WebSocket;
  path: string;
  headers: IncomingMessage['headers'];
  received: string[];
}

/**
 * Records every socket the server accepts from now on, with the messages it receives, in the
 * order they were opened.
 */
export function trackSockets(server: TestServer): ServerSocket[] {
  const sockets: ServerSocket[] = [];
  server.app.websocketServer.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const s: ServerSocket = { ws, path: req.url ?? '', headers: req.headers, received: [] };
    ws.on('message', (data) => s.received.push(String(data)));
    sockets.push(s);
  });
  return sockets;
}

/** Drops the server's side of every open socket on `path` without a closing handshake. */
export function dropServerSockets(sockets: ServerSocket[], path: string): number {
  const open = sockets.filter((s) => s.path.startsWith(path) && s.ws.readyState === s.ws.OPEN);
  for (const s of open) s.ws.terminate();
  return open.length;
}
