/**
 * The cluster pass's front for nodes that serve TLS (test/helpers/random-proxy.ts with `tls`):
 * a TCP pass-through that must be invisible. Each connection goes to a node chosen at random;
 * its bytes pass as they are both ways, an end passes on as an end (half-close), a reset as a
 * reset, and the node sees the client's own loopback address. Raw TCP nodes (net) stand behind
 * it: the pass-through never reads what it carries, so no TLS is needed to test it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { type RandomProxy, startRandomProxy } from '../../helpers/random-proxy.js';

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

/** A raw node, half-open like a real one can be (it may answer after the client's end). */
async function rawNode(onSocket: (socket: Socket) => void): Promise<{ host: string; port: number }> {
  const server = createServer({ allowHalfOpen: true }, onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

async function withProxy(
  nodes: { host: string; port: number }[],
  use: (proxy: RandomProxy, port: number) => Promise<void>,
  random?: () => number,
): Promise<void> {
  const proxy = await startRandomProxy(nodes, { tls: true, ...(random ? { random } : {}) });
  try {
    await use(proxy, Number(new URL(proxy.url).port));
  } finally {
    await proxy.close();
  }
}

function client(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({
      host: '127.0.0.1',
      port,
      allowHalfOpen: true,
      ...(localAddress ? { localAddress } : {}),
    });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Everything `socket` receives until its end. */
async function readAll(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await once(socket, 'end');
  return Buffer.concat(chunks);
}

test('the url is https: the nodes speak TLS, the front only passes connections', async () => {
  const node = await rawNode((s) => s.end());
  await withProxy([node], async (proxy) => assert.match(proxy.url, /^https:\/\/127\.0\.0\.1:\d+$/));
});

test('each connection goes to the node chosen for it, and stays there', async () => {
  const nodes = await Promise.all(
    ['a', 'b', 'c'].map((name) =>
      rawNode((s) => {
        // Answers every chunk with its name: a second write on the same connection must reach the same node.
        s.on('data', () => s.write(name));
        s.on('end', () => s.end());
      }),
    ),
  );
  const picks = [0.1, 0.5, 0.9, 0.5, 0.1];
  let i = 0;
  await withProxy(
    nodes,
    async (proxy, port) => {
      const names: string[] = [];
      for (let k = 0; k < picks.length; k++) {
        const s = await client(port);
        const got = readAll(s);
        s.write('1');
        await once(s, 'data');
        s.end('2');
        names.push((await got).toString());
      }
      // Two chunks, two answers, from the one node the connection went to.
      assert.deepEqual(names, ['aa', 'bb', 'cc', 'bb', 'aa']);
      assert.deepEqual(proxy.counts, [2, 2, 1]);
    },
    () => picks[i++]!,
  );
});

test('with Math.random, connections spread over the nodes', async () => {
  const nodes = await Promise.all(['a', 'b'].map((name) => rawNode((s) => s.end(name))));
  await withProxy(nodes, async (proxy, port) => {
    const seen = new Set<string>();
    // 64 connections all on one of two nodes: one chance in 2^63.
    for (let k = 0; k < 64; k++) {
      const s = await client(port);
      const got = readAll(s);
      s.end();
      seen.add((await got).toString());
    }
    assert.deepEqual([...seen].sort(), ['a', 'b']);
    assert.equal(proxy.counts[0]! + proxy.counts[1]!, 64);
  });
});

test('bytes pass unchanged both ways', async () => {
  // Every byte value, then a few MiB of random bytes (more than any socket buffer holds).
  const sent = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, b) => b)), randomBytes(3 << 20)]);
  const greeting = randomBytes(64 << 10);
  let received: Promise<Buffer> | undefined;
  const node = await rawNode((s) => {
    s.write(greeting);
    received = readAll(s);
    s.pipe(s); // echoes, and ends after the client's end
  });
  await withProxy([node], async (_proxy, port) => {
    const s = await client(port);
    const back = readAll(s);
    s.end(sent);
    assert.ok(Buffer.concat([greeting, sent]).equals(await back), 'the client gets the node bytes unchanged');
    assert.ok(sent.equals((await received)!), 'the node gets the client bytes unchanged');
  });
});

test("a client's end reaches the node as an end, and the node can still answer", async () => {
  const node = await rawNode((s) => {
    let got = '';
    s.on('data', (c) => (got += c));
    s.on('end', () => {
      // The client can no longer send: the answer comes after that, then the node's own end.
      setTimeout(() => s.end(`after end: ${got}`), 20);
    });
  });
  await withProxy([node], async (_proxy, port) => {
    const s = await client(port);
    const back = readAll(s);
    s.end('question');
    assert.equal((await back).toString(), 'after end: question');
  });
});

test("a node's end reaches the client as an end, and the client can still send", async () => {
  let heard: Promise<Buffer> | undefined;
  const node = await rawNode((s) => {
    heard = readAll(s);
    s.end('bye');
  });
  await withProxy([node], async (_proxy, port) => {
    const s = await client(port);
    assert.equal((await readAll(s)).toString(), 'bye');
    s.end('still here');
    assert.equal((await heard!).toString(), 'still here');
  });
});

/** `end` when the peer ended the connection, or the error's code when it broke. */
function howItEnds(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('end', () => resolve('end'));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

test('a reset passes on as a reset, both ways', async () => {
  const nodeSockets: Socket[] = [];
  const node = await rawNode((s) => {
    nodeSockets.push(s);
    s.on('data', () => {});
    s.on('error', () => {});
  });
  await withProxy([node], async (_proxy, port) => {
    // The client resets: the node's connection breaks (ECONNRESET), it does not just end.
    const a = await client(port);
    a.write('x');
    while (nodeSockets.length < 1) await new Promise((r) => setTimeout(r, 5));
    const broke = howItEnds(nodeSockets[0]!);
    a.resetAndDestroy();
    assert.equal(await broke, 'ECONNRESET');
    // The node resets: the client's connection breaks.
    const b = await client(port);
    b.write('y');
    while (nodeSockets.length < 2) await new Promise((r) => setTimeout(r, 5));
    const broke2 = howItEnds(b);
    nodeSockets[1]!.resetAndDestroy();
    assert.equal(await broke2, 'ECONNRESET');
  });
});

test("the node sees the client's own loopback address", async () => {
  const node = await rawNode((s) => s.end(String(s.remoteAddress)));
  await withProxy([node], async (_proxy, port) => {
    const s = await client(port, '127.0.0.7');
    const got = readAll(s);
    s.end();
    assert.equal((await got).toString(), '127.0.0.7');
  });
});
