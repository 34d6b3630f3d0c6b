import type { IncomingMessage } from 'node:http';
import { after, before } from 'node:test';
import type { WebSocket } from 'ws';
import type { Config } from '../../../src/server/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

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
 * Records every socket the server (every node of a cluster run) accepts from now on, with the
 * messages it receives, in the order they were opened.
 */
export function trackSockets(server: TestServer): ServerSocket[] {
  const sockets: ServerSocket[] = [];
  for (const node of server.nodes) {
    node.app.websocketServer.on('connection', (ws: WebSocket, req: IncomingMessage) => {
      const s: ServerSocket = { ws, path: req.url ?? '', headers: req.headers, received: [] };
      ws.on('message', (data) => s.received.push(String(data)));
      sockets.push(s);
    });
  }
  return sockets;
}

/** Drops the server's side of every open socket on `path` without a closing handshake. */
export function dropServerSockets(sockets: ServerSocket[], path: string): number {
  const open = sockets.filter((s) => s.path.startsWith(path) && s.ws.readyState === s.ws.OPEN);
  for (const s of open) s.ws.terminate();
  return open.length;
}

interface ClientLogin {
  url: string;
  username: string;
  password: string;
}

/** A server for one `describe` block, the sockets it accepts, and the block's clients. */
export interface ClientTestBed<O, C> {
  readonly server: TestServer;
  readonly sockets: ServerSocket[];
  /** A client of `username` (password 1234) on the server, closed after the block. */
  client(username: string, extra?: Partial<O>): C;
}

/** Starts a server before the block's tests and stops it (and closes the clients) after them. */
export function clientTestBed<O extends ClientLogin, C extends { close(): Promise<void> }>(
  Client: new (options: O) => C,
  config: Partial<Config> = {},
): ClientTestBed<O, C> {
  let server: TestServer | undefined;
  let sockets: ServerSocket[] = [];
  const open: C[] = [];
  before(async () => {
    server = await startTestServer(config);
    sockets = trackSockets(server);
  });
  after(async () => {
    for (const c of open) await c.close();
    await server?.stop();
  });
  const bed: ClientTestBed<O, C> = {
    get server() {
      if (!server) throw new Error('the server starts before the tests');
      return server;
    },
    get sockets() {
      return sockets;
    },
    client: (username, extra = {}) => {
      const c = new Client({ url: bed.server.httpUrl, username, password: '1234', ...extra } as O);
      open.push(c);
      return c;
    },
  };
  return bed;
}

/** Reconnects quickly, so a test sees the next socket soon. */
export const FAST_RECONNECT = { initialDelayMs: 20, maxDelayMs: 200 };

/** Keep-alive every 100 ms against the 600 ms idle time-out of the keep-alive suites' servers. */
export const KEEP_ALIVE = { keepAliveMs: 100, serverIdleTimeoutMs: 600 };

/**
 * Socket options of the tests that let a socket go quiet: KEEP_ALIVE, fast reconnects, and no
 * resume (a new socket, as a client without resume sees it).
 */
export const QUIET_SOCKET = { ...KEEP_ALIVE, reconnect: FAST_RECONNECT, resume: false };

/**
 * The server side of a stream's newest socket stops answering: it still reads (close frames too)
 * but sends nothing, keep-alive answers included. Resolves how the server saw the socket close,
 * the stream's next `connected`, and collects the errors of its reconnect attempts.
 */
export function stopAnswering<I>(
  sockets: ServerSocket[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  stream: { on(name: 'reconnecting' | 'connected', listener: (info: any) => void): () => void },
) {
  const side = sockets.at(-1)!;
  const attempts: unknown[] = [];
  stream.on('reconnecting', ({ error }) => attempts.push(error));
  const serverClosed = when<{ code: number; reason: string }>(
    (done) => side.ws.once('close', (code, reason) => done({ code, reason: String(reason) })),
    'the close frame at the server',
  );
  const reconnected = when<I>((done) => stream.on('connected', done), 'reconnect');
  side.ws.removeAllListeners('message');
  return { side, attempts, serverClosed, reconnected };
}
