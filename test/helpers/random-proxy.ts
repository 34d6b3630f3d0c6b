import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import {
  connect,
  createServer as createTcpServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';

/**
 * A loopback front for a cluster's nodes in the black-box suites: every HTTP request goes to a
 * node chosen at random (keep-alive or not), and every WebSocket upgrade is piped, bytes as they
 * are, to a node chosen at random. Clients see one address, as behind an operator's balancer;
 * they must never notice which node answered. The proxy connects to the node from the client's
 * own (loopback) address, so per-address limits and lock-outs see each client as it is.
 *
 * With `tls`, the nodes serve TLS themselves and the front cannot read a request: each
 * connection goes to a node chosen at random and is passed through, bytes as they are both ways
 * (as a TCP balancer does), so the handshake and its policy are the node's own.
 */
export interface RandomProxy {
  /** `http://…`, or `https://…` with `tls`. */
  url: string;
  /** Requests and upgrades (with `tls`: connections) sent to each node, by index. */
  counts: number[];
  close(): Promise<void>;
}

export interface RandomProxyOptions {
  /** Picks a node: `nodes[floor(random() * nodes.length)]` (default Math.random). */
  random?: () => number;
  /** The nodes serve TLS: pass each connection through to a node instead of each request. */
  tls?: boolean;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export async function startRandomProxy(
  nodes: { host: string; port: number }[],
  { random = Math.random, tls = false }: RandomProxyOptions = {},
): Promise<RandomProxy> {
  const counts = nodes.map(() => 0);
  const pick = () => {
    const i = Math.floor(random() * nodes.length);
    counts[i]!++;
    return nodes[i]!;
  };
  return tls ? passThrough(pick, counts) : perRequest(pick, counts);
}

type Pick = () => { host: string; port: number };

async function perRequest(pick: Pick, counts: number[]): Promise<RandomProxy> {
  const sockets = new Sockets();
  const server: Server = createServer((req, res) => {
    const node = pick();
    // A connection of its own per request (`agent: false`): a reused keep-alive connection the
    // node closed meanwhile would fail the request before any byte of its answer (a 502 of ours).
    const up = request({
      host: node.host,
      port: node.port,
      localAddress: req.socket.remoteAddress,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent: false,
    });
    up.on('response', (answer: IncomingMessage) => {
      // A node may answer before it read the whole body (a 413 on the announced length): the
      // rest of the body is the client's to finish sending, and ours to drop.
      if (!req.complete) {
        req.unpipe(up);
        req.resume();
        // The request upstream stays unfinished: its connection ends with the answer.
        answer.once('end', () => up.destroy());
      }
      // The connection's own headers are the proxy's: a node's `Keep-Alive: timeout=…` would
      // have the client reuse a connection the proxy already closed (ECONNRESET).
      const headers: string[] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i]!;
        if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push(name, answer.rawHeaders[i + 1]!);
      }
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
      // An answer that breaks off reaches the client broken off, never as a complete one.
      answer.on('aborted', () => res.destroy());
    });
    up.on('error', () => {
      if (res.headersSent) return void (res.writableFinished || res.destroy());
      res.writeHead(502);
      res.end();
      req.resume();
    });
    // A client that leaves before its answer is complete: the node sees it leave too, as behind
    // a balancer (a held request's slot comes back at once, not at the node's body time-out).
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const node = pick();
    const up = connect({ port: node.port, host: node.host, localAddress: client.remoteAddress });
    // Written before the client's next bytes: a socket keeps writes made before it connects, in order.
    let head0 = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      head0 += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
    up.write(`${head0}\r\n`);
    if (head.length) up.write(head);
    sockets.track(up);
    splice(client, up);
  });
  server.on('connection', (client: Socket) => sockets.track(client));
  // An idle connection is closed by its client first (a second or two before the hint in
  // `Keep-Alive` runs out), and the tests never leave one idle for nearly a minute: so the proxy
  // rarely closes one just as the client reuses it. It shares its event loop with the tests, whose
  // long steps (a document parsed) let the two time-outs fire in either order (ECONNRESET); with
  // the default 5 s they were seconds apart, which such a step covered.
  server.keepAliveTimeout = 60_000;
  return listen(server, 'http', counts, sockets);
}

async function passThrough(pick: Pick, counts: number[]): Promise<RandomProxy> {
  const sockets = new Sockets();
  // Half-open both ways: a client's end reaches the node as an end, and the node may still answer.
  const server = createTcpServer({ allowHalfOpen: true }, (client) => {
    const node = pick();
    const up = connect({
      port: node.port,
      host: node.host,
      localAddress: client.remoteAddress,
      allowHalfOpen: true,
    });
    sockets.track(client);
    sockets.track(up);
    splice(client, up);
  });
  return listen(server, 'https', counts, sockets);
}

/** The sockets still open, each side of each connection: close() breaks them all. */
class Sockets extends Set<Socket> {
  track(socket: Socket): void {
    this.add(socket);
    socket.on('close', () => this.delete(socket));
  }
}

/** Listens on a free loopback port; close() breaks every connection still open, then stops. */
async function listen(
  server: NetServer,
  scheme: 'http' | 'https',
  counts: number[],
  sockets: Sockets,
): Promise<RandomProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Bytes as they are, both ways, between a client and its node: an end passes on as an end (the
 * other way stays open until its own end); a connection that breaks (reset, error, or closed
 * before its end) breaks the other one with a reset, as the peer would have seen it.
 */
function splice(client: Socket, up: Socket): void {
  for (const [from, to] of [
    [client, up],
    [up, client],
  ] as const) {
    from.pipe(to);
    const abort = () => void (to.destroyed || to.resetAndDestroy());
    from.on('error', abort);
    from.on('close', () => {
      if (!from.readableEnded) abort();
    });
  }
}
