import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A loopback front for a cluster's nodes in the black-box suites: every HTTP request goes to a
 * node chosen at random (keep-alive or not), and every WebSocket upgrade is piped, bytes as they
 * are, to a node chosen at random. Clients see one address, as behind an operator's balancer;
 * they must never notice which node answered. The proxy connects to the node from the client's
 * own (loopback) address, so per-address limits and lock-outs see each client as it is.
 */
export interface RandomProxy {
  url: string;
  /** Requests and upgrades sent to each node, by index. */
  counts: number[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export async function startRandomProxy(
  nodes: { host: string; port: number }[],
  random: () => number = Math.random,
): Promise<RandomProxy> {
  const counts = nodes.map(() => 0);
  const pick = () => {
    const i = Math.floor(random() * nodes.length);
    counts[i]!++;
    return nodes[i]!;
  };
  const upstreams = new Set<Socket>();
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
    const up = connect({ port: node.port, host: node.host, localAddress: client.remoteAddress }, () => {
      let head0 = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        head0 += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
      up.write(`${head0}\r\n`);
      if (head.length) up.write(head);
      up.pipe(client).pipe(up);
    });
    upstreams.add(up);
    up.on('close', () => {
      upstreams.delete(up);
      client.destroy();
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of upstreams) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
