import assert from 'node:assert/strict';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { Forwarding } from '../../src/cluster/forwarding.js';
import { NATS_URL } from '../helpers/cluster-engines.js';
import { clusterSkip } from '../helpers/cluster-nodes.js';
import { StaticMembership } from '../helpers/static-membership.js';

/**
 * A request on a voice socket that reaches the socket's node just as it lets the socket go
 * (docs/cluster.md § Sockets). NATS delivers it to that node before it hears the unsubscription;
 * a NATS client drops a message for a subscription it no longer has, so the sender used to wait
 * the whole forward time-out and answer 503 instead of the 404 of a socket that is gone. The
 * window is opened on purpose: node b's NATS connection goes through a proxy that holds what the
 * server sends b until b has let the socket go.
 */
const skip = await clusterSkip();
const log = pino({ level: 'silent' });
const SOCKET = 'ws-release-test';

/** A TCP proxy to NATS whose server-to-client bytes can be held back. */
class HoldingProxy {
  private readonly server: Server;
  private readonly clients = new Set<Socket>();
  private held: { to: Socket; data: Buffer }[] | undefined;
  private watch: { text: string; seen: () => void } | undefined;
  port = 0;

  constructor(upstream: URL) {
    this.server = createServer((client) => {
      const up = tcpConnect(Number(upstream.port || 4222), upstream.hostname);
      this.clients.add(client).add(up);
      client.on('data', (d) => up.write(d));
      up.on('data', (d) => {
        if (this.watch && d.toString('latin1').includes(this.watch.text)) this.watch.seen();
        if (this.held) this.held.push({ to: client, data: d });
        else client.write(d);
      });
      for (const s of [client, up])
        s.on('error', () => {}).on('close', () => [client, up].forEach((x) => x.destroy()));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Holds what the server sends from now on; resolves `seen` once it sent `text`. */
  hold(text: string): { seen: Promise<void> } {
    this.held = [];
    return { seen: new Promise<void>((seen) => (this.watch = { text, seen })) };
  }

  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.watch = undefined;
    for (const { to, data } of held) to.write(data);
  }

  async stop(): Promise<void> {
    for (const s of this.clients) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

interface Node {
  nc: NatsConnection;
  fwd: Forwarding;
  app: FastifyInstance;
  runs: number;
}

describe('a socket let go while a request for it is on its way', { skip }, () => {
  const prefix = `sb.trel${process.pid}_${Date.now()}`;
  const proxy = new HoldingProxy(new URL(NATS_URL));
  const nodes: Node[] = [];

  /** A node whose app answers GET /x with its name (after `delayMs`), counting its runs. */
  async function node(name: string, servers: string, delayMs = 0): Promise<Node> {
    const nc = await connect({ servers });
    const fwd = new Forwarding({
      nats: nc,
      prefix,
      membership: new StaticMembership(name),
      log,
      timeoutMs: 3000,
    });
    const app = Fastify();
    const n: Node = { nc, fwd, app, runs: 0 };
    app.get('/x', async (req, reply) => {
      if (!fwd.isForwarded(req) && (await fwd.forward(req, reply, { socket: SOCKET }, undefined)))
        return reply;
      if (!fwd.runsHere({ socket: SOCKET })) return reply.code(404).send({ ranOn: name, socket: 'nowhere' });
      n.runs++;
      await sleep(delayMs);
      return { ranOn: name };
    });
    await app.ready();
    fwd.serve(app);
    nodes.push(n);
    return n;
  }

  let a: Node;
  let b: Node;
  before(async () => {
    await proxy.start();
    a = await node('a', NATS_URL);
    b = await node('b', `127.0.0.1:${proxy.port}`);
  });
  after(async () => {
    for (const n of nodes) {
      await n.fwd.close();
      await n.app.close();
      await n.nc.close();
    }
    await proxy.stop();
  });

  test('is answered as a socket that exists nowhere (404), not left to time out', async () => {
    const release = b.fwd.holdSocket(SOCKET, () => ({}));
    await b.nc.flush();
    assert.deepEqual((await a.app.inject('/x')).json(), { ranOn: 'b' }, 'b holds the socket');

    const held = proxy.hold(`.ws.${SOCKET}.http`);
    const answer = a.app.inject('/x');
    await held.seen; // NATS gave the request to b; b has not read it yet
    release();
    proxy.open();
    const r = await answer;
    assert.equal(r.statusCode, 404, r.body);
    assert.deepEqual(r.json(), { ranOn: 'a', socket: 'nowhere' });
  });

  test('a question on what the socket holds is answered: it is held nowhere', async () => {
    const release = b.fwd.holdSocket(SOCKET, () => ({ sets: [] }));
    await b.nc.flush();
    assert.deepEqual(await a.fwd.socketState(SOCKET), { sets: [] });
    const held = proxy.hold(`.ws.${SOCKET}.state`);
    const state = a.fwd.socketState(SOCKET);
    await held.seen;
    release();
    proxy.open();
    assert.equal(await state, undefined);
  });

  test('reaches the node the socket resumed on, and runs there once', async () => {
    const c = await node('c', NATS_URL, 300);
    b.runs = 0;
    const release = b.fwd.holdSocket(SOCKET, () => ({}));
    await b.nc.flush();
    const held = proxy.hold(`.ws.${SOCKET}.http`);
    // The socket resumes on c while b has not let it go yet: for a moment both listen.
    const releaseC = c.fwd.holdSocket(SOCKET, () => ({}));
    await c.nc.flush();
    const answer = a.app.inject('/x');
    // NATS gives the request to b or to c: wait for either.
    while (c.runs === 0 && !(await Promise.race([held.seen.then(() => true), sleep(10).then(() => false)])));
    release();
    proxy.open();
    const r = await answer;
    releaseC();
    assert.deepEqual(r.json(), { ranOn: 'c' });
    assert.equal(b.runs, 0);
    assert.equal(c.runs, 1, 'run once, on c');
  });

  // Last: node b stops taking requests for good.
  test('a node that stops as the request arrives answers it moved: 404, not a time-out', async () => {
    b.fwd.holdSocket(SOCKET, () => ({}));
    await b.nc.flush();
    const held = proxy.hold(`.ws.${SOCKET}.http`);
    const answer = a.app.inject('/x');
    await held.seen;
    const closing = b.fwd.close();
    proxy.open();
    const r = await answer;
    await closing;
    assert.equal(r.statusCode, 404, r.body);
    assert.deepEqual(r.json(), { ranOn: 'a', socket: 'nowhere' });
  });
});
