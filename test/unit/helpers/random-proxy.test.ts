/**
 * The cluster pass's random proxy (test/helpers/random-proxy.ts) must be invisible: a node's
 * answer reaches the client as the node gave it, whatever the timing. Each test stands a raw node
 * (net) behind it that does what made the proxy answer for itself: a node that serves one request
 * per connection and drops the next one unanswered (a keep-alive connection it closed meanwhile),
 * an answer before the body, an answer that breaks off.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { startRandomProxy } from '../../helpers/random-proxy.js';

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

async function rawNode(onSocket: (socket: Socket) => void): Promise<{ host: string; port: number }> {
  const server = createServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

/** Resolves with the status and body, rejects when the connection broke. */
function send(
  url: string,
  agent: Agent,
  opts: { method?: string; body?: Buffer[]; afterAnswer?: Buffer } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const size = [...(opts.body ?? []), opts.afterAnswer ?? Buffer.alloc(0)].reduce(
      (n, b) => n + b.length,
      0,
    );
    const req = request(url, {
      method: opts.method ?? 'GET',
      agent,
      headers: size ? { 'content-length': String(size) } : {},
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('answer broke off')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      if (opts.afterAnswer) req.end(opts.afterAnswer);
    });
    for (const b of opts.body ?? []) req.write(b);
    if (!opts.afterAnswer) req.end();
  });
}

/** Runs `use` against a proxy in front of `node` alone, with a keep-alive client of one connection. */
async function throughProxy(
  node: { host: string; port: number },
  use: (url: string, agent: Agent) => Promise<void>,
): Promise<void> {
  const proxy = await startRandomProxy([node]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await use(proxy.url, agent);
  } finally {
    agent.destroy();
    await proxy.close();
  }
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

test('a node that drops a reused connection unanswered: the request is answered all the same', async () => {
  // Answers the first request on each connection (keep-alive, as far as the client knows), then
  // closes the connection as the next request arrives on it, unanswered.
  const node = await rawNode((socket) => {
    let served = false;
    socket.on('data', () => {
      if (served) return void socket.destroy();
      served = true;
      socket.write(OK);
    });
    socket.on('error', () => {});
  });
  await throughProxy(node, async (url, agent) => {
    for (let i = 0; i < 5; i++) assert.deepEqual(await send(`${url}/x`, agent), { status: 200, body: 'ok' });
  });
});

test('a node that answers before the body arrived: the answer passes, the connection stays usable', async () => {
  // Answers 413 on the headers alone, then reads and drops the announced body.
  const node = await rawNode((socket) => {
    let head = '';
    let left = -1;
    socket.on('data', (chunk: Buffer) => {
      if (left > 0) return void (left -= chunk.length);
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      left = length - (head.length - end - 4);
      head = '';
      socket.write(left > 0 ? 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 3\r\n\r\nbig' : OK);
    });
    socket.on('error', () => {});
  });
  await throughProxy(node, async (url, agent) => {
    const big = await send(`${url}/x`, agent, {
      method: 'PUT',
      body: [Buffer.alloc(1000, 'x')],
      afterAnswer: Buffer.alloc(500_000, 'x'),
    });
    assert.deepEqual(big, { status: 413, body: 'big' });
    assert.deepEqual(await send(`${url}/x`, agent), { status: 200, body: 'ok' });
  });
});

test('an answer that breaks off reaches the client broken off, never as a whole one', async () => {
  const node = await rawNode((socket) => {
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b');
      setTimeout(() => socket.destroy(), 20);
    });
    socket.on('error', () => {});
  });
  await throughProxy(node, async (url, agent) => {
    await assert.rejects(send(`${url}/x`, agent));
  });
});
