import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Placement, Target } from '../../../../src/api/route-core/placement.js';
import { addRoute, type RouteAdapter } from '../../../../src/api/route-core/route-core.js';
import { ApiDocs } from '../../../../src/api/schema/registry.js';
import { DomainError } from '../../../../src/core/errors.js';

/**
 * Step 0 of the route core (route-core/placement.ts), with a fake placement: which requests
 * leave, with exactly which bytes, and which run here.
 */
interface Sent {
  target: Target;
  body: string | undefined;
  parsed: unknown;
}

function fakePlacement(
  here: (t: Target) => boolean,
  answer = true,
  takingOver: (tenantId: number) => Promise<void> | undefined = () => undefined,
) {
  const sent: Sent[] = [];
  /** The requests reported as not run because their tenant moved. */
  const movedAway: string[] = [];
  const placement: Placement = {
    isForwarded: (req) => req.headers['x-test-forwarded'] === 'yes',
    movedBeforeRun: (req) => void movedAway.push(req.url),
    late: (req) => req.headers['x-test-late'] === 'yes',
    runsHere: here,
    takingOver,
    async forward(req: FastifyRequest, reply: FastifyReply, target: Target, body: Buffer | undefined) {
      sent.push({ target, body: body?.toString(), parsed: req.body });
      if (!answer) return false;
      reply.code(299).header('x-from', 'owner').send({ owner: true });
      return true;
    },
    holdSocket: () => () => {},
    gather: async () => [],
    socketsHeard: async () => {},
    socketState: async () => undefined,
    takeOverSocket: async () => {},
  };
  return { placement, sent, movedAway };
}

async function app(placement: Placement | undefined, opts: { byBody?: boolean; bodyLimit?: number } = {}) {
  const server = Fastify({ bodyLimit: opts.bodyLimit ?? 1024 });
  // As the APIs' error handlers answer a busy refusal (503 with its code).
  server.setErrorHandler((err, _req, reply) => {
    if (err instanceof DomainError && err.kind === 'unavailable')
      return reply.code(503).send({ code: err.code });
    return reply.send(err);
  });
  const routes: { method: unknown; preParsing?: unknown }[] = [];
  server.addHook('onRoute', (r) => void routes.push(r));
  const adapter: RouteAdapter<undefined, unknown, unknown> = {
    document: 'fake',
    placement,
    place: (_req, params) => (params.id === 'sock' ? { socket: 's1' } : Number(params.id) || undefined),
    admit: () => undefined,
    check: () => {},
    queryOf: () => undefined,
    input: (req) => req.body,
  };
  addRoute(server, new ApiDocs(), adapter, {
    method: 'POST',
    url: '/t/:id',
    def: undefined,
    body: Type.Unknown(),
    bodyRequired: false,
    ...(opts.byBody ? { placeByBody: (b: unknown) => (b as { tenant?: number })?.tenant } : {}),
    handle: (input) => ({ ranHere: input ?? null }),
  });
  addRoute(server, new ApiDocs(), adapter, {
    method: 'GET',
    url: '/t/:id',
    def: undefined,
    bodyRequired: false,
    handle: () => ({ ranHere: 'get' }),
  });
  await server.ready();
  // Not the instance itself: it is thenable, so awaiting it would hand back the bare instance.
  return { inject: server.inject.bind(server), routes };
}

describe('placement: step 0 of the route core', () => {
  it('a request of a tenant this node is taking over runs once the takeover is done, forwarded or not', async () => {
    let done!: () => void;
    const takeover = new Promise<void>((r) => (done = r));
    let taking = true;
    const { placement } = fakePlacement(
      (t) => t === 1 || t === 3,
      true,
      (t) => (t === 1 && taking ? takeover : undefined),
    );
    const server = await app(placement);
    const answered: string[] = [];
    const direct = server.inject({ method: 'POST', url: '/t/1', payload: { a: 1 } }).then((r) => {
      answered.push('direct');
      return r;
    });
    const forwarded = server
      .inject({ method: 'GET', url: '/t/1', headers: { 'x-test-forwarded': 'yes' } })
      .then((r) => {
        answered.push('forwarded');
        return r;
      });
    const other = await server.inject({ method: 'GET', url: '/t/3', headers: { 'x-test-forwarded': 'yes' } });
    assert.deepEqual(other.json(), { ranHere: 'get' }, 'another tenant does not wait');
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(answered, [], 'both wait for the takeover');
    taking = false;
    done();
    assert.deepEqual((await direct).json(), { ranHere: { a: 1 } });
    assert.deepEqual((await forwarded).json(), { ranHere: 'get' });
  });

  it('a request for a target elsewhere leaves with its exact bytes, after its body parsed here', async () => {
    const { placement, sent } = fakePlacement((t) => t === 1);
    const server = await app(placement);
    const raw = '{ "a" : 1.0,\n "b": [ ] }';
    const r = await server.inject({
      method: 'POST',
      url: '/t/2',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    assert.equal(r.statusCode, 299);
    assert.equal(r.headers['x-from'], 'owner');
    assert.deepEqual(sent, [{ target: 2, body: raw, parsed: { a: 1, b: [] } }]);
  });

  it('a body the parser refuses is refused here, as the owner would, and does not leave', async () => {
    const { placement, sent } = fakePlacement(() => false);
    const server = await app(placement);
    const r = await server.inject({
      method: 'POST',
      url: '/t/2',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    assert.equal(r.statusCode, 400);
    assert.deepEqual(sent, []);
  });

  it('a body over the route’s limit stays and is refused here with 413', async () => {
    const { placement, sent } = fakePlacement(() => false);
    const server = await app(placement, { bodyLimit: 10 });
    const r = await server.inject({
      method: 'POST',
      url: '/t/2',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: JSON.stringify({ long: 'x'.repeat(100) }),
    });
    assert.equal(r.statusCode, 413);
    assert.deepEqual(sent, []);
  });

  it('runs here: its own target, no target, and a request another node forwarded', async () => {
    const { placement, sent } = fakePlacement((t) => t === 1);
    const server = await app(placement);
    for (const [url, headers] of [
      ['/t/1', {}],
      ['/t/none', {}],
      ['/t/1', { 'x-test-forwarded': 'yes' }],
    ] as const) {
      const r = await server.inject({ method: 'POST', url, headers, payload: { x: 1 } });
      assert.equal(r.statusCode, 200, url);
      assert.deepEqual(r.json(), { ranHere: { x: 1 } }, url);
    }
    assert.deepEqual(sent, []);
  });

  it('a request whose tenant moved away once placed here does not run: 503, to retry', async () => {
    let owned = true;
    const { placement, sent, movedAway } = fakePlacement((t) => t === 1 && owned);
    const server = await app(placement);
    // The handover comes while the body is read, after step 0 placed the request here.
    const body = new Readable({
      read() {
        owned = false;
        this.push('{"x":1}');
        this.push(null);
      },
    });
    const r = await server.inject({
      method: 'POST',
      url: '/t/1',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(r.statusCode, 503);
    assert.equal(r.json().code, 'OWNER_UNAVAILABLE');
    // Forwarded here by a node that took this one for the owner: the same.
    const forwarded = await server.inject({
      method: 'POST',
      url: '/t/2',
      headers: { 'x-test-forwarded': 'yes' },
      payload: { x: 1 },
    });
    assert.equal(forwarded.statusCode, 503);
    assert.deepEqual(sent, []);
    // Both are reported as not run (a forwarded one's sender then asks the new owner).
    assert.deepEqual(movedAway, ['/t/1', '/t/2']);
  });

  it('a request whose takeover gave up once the tenant had left is reported as not run', async () => {
    let owned = true;
    const { placement, movedAway } = fakePlacement(
      (t) => (t === 1 && owned) || t === 2,
      true,
      (t) =>
        t === 1 || t === 2
          ? Promise.reject(new DomainError('unavailable', 'OWNER_UNAVAILABLE', 'taken too long'))
          : undefined,
    );
    const server = await app(placement);
    const still = await server.inject({ method: 'GET', url: '/t/2', headers: { 'x-test-forwarded': 'yes' } });
    assert.equal(still.statusCode, 503);
    assert.deepEqual(movedAway, [], 'still here: the takeover is only slow, a retry would come back');
    owned = false;
    const left = await server.inject({ method: 'GET', url: '/t/1', headers: { 'x-test-forwarded': 'yes' } });
    assert.equal(left.statusCode, 503);
    assert.deepEqual(movedAway, ['/t/1']);
  });

  it('a forwarded request whose sender has given up on it does not run: 503 OWNER_TIMEOUT', async () => {
    const { placement } = fakePlacement((t) => t === 1);
    const server = await app(placement);
    const late = await server.inject({
      method: 'POST',
      url: '/t/1',
      headers: { 'x-test-forwarded': 'yes', 'x-test-late': 'yes' },
      payload: { x: 1 },
    });
    assert.equal(late.statusCode, 503);
    assert.deepEqual(late.json(), { code: 'OWNER_TIMEOUT' });
    const inTime = await server.inject({
      method: 'POST',
      url: '/t/1',
      headers: { 'x-test-forwarded': 'yes' },
      payload: { x: 1 },
    });
    assert.deepEqual(inTime.json(), { ranHere: { x: 1 } });
  });

  it('a request without a body, and a socket target', async () => {
    const { placement, sent } = fakePlacement(() => false);
    const server = await app(placement);
    assert.equal((await server.inject({ method: 'GET', url: '/t/3' })).statusCode, 299);
    assert.equal((await server.inject({ method: 'GET', url: '/t/sock' })).statusCode, 299);
    assert.deepEqual(sent, [
      { target: 3, body: undefined, parsed: undefined },
      { target: { socket: 's1' }, body: undefined, parsed: undefined },
    ]);
  });

  it('the tenant a body names, once parsed', async () => {
    const { placement, sent } = fakePlacement((t) => t === 1);
    const server = await app(placement, { byBody: true });
    const mine = await server.inject({ method: 'POST', url: '/t/x', payload: { tenant: 1 } });
    assert.deepEqual(mine.json(), { ranHere: { tenant: 1 } });
    const theirs = await server.inject({ method: 'POST', url: '/t/x', payload: { tenant: 2 } });
    assert.equal(theirs.statusCode, 299);
    assert.deepEqual(
      sent.map((s) => s.target),
      [2],
    );
  });

  it('a target that comes here meanwhile runs here', async () => {
    // The owner is this node once the forward finds it so (it answers false then).
    const { placement, sent } = fakePlacement((t) => t === 2 && sent.length > 0, false);
    const server = await app(placement);
    const r = await server.inject({ method: 'POST', url: '/t/2', payload: { x: 2 } });
    assert.deepEqual(r.json(), { ranHere: { x: 2 } });
    assert.equal(sent.length, 1);
  });

  it('without a placement (standalone) a route has no hook of its own', async () => {
    const server = await app(undefined);
    const r = await server.inject({ method: 'POST', url: '/t/2', payload: { x: 3 } });
    assert.deepEqual(r.json(), { ranHere: { x: 3 } });
    assert.ok(server.routes.length >= 2);
    for (const route of server.routes) assert.equal(route.preParsing, undefined);
    const clustered = await app(fakePlacement(() => true).placement);
    assert.ok(clustered.routes.every((route) => route.preParsing !== undefined));
  });
});
