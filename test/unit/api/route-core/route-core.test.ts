import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import type { Principal } from '../../../../src/core/permissions.js';
import { addRoute, type CoreRoute, type RouteAdapter } from '../../../../src/api/route-core/route-core.js';
import { ApiDocs } from '../../../../src/api/schema/registry.js';
import { firstIssue } from '../../../../src/api/schema/validate.js';

/** A fake API whose adapter records each step and refuses with `{refused: <step>}`. */
class Refusal extends Error {
  constructor(readonly step: string) {
    super(step);
  }
}

interface Def {
  /** The step that refuses, if any. */
  refuseAt?: string;
}

function fakeApi(
  steps: string[],
  render: boolean,
): RouteAdapter<Def, { body: unknown; query: unknown }, unknown, string> {
  const principal = { username: 'u' } as Principal;
  return {
    document: 'fake',
    admit: (_req, def) => {
      steps.push('admit');
      if (def.refuseAt === 'admit') throw new Refusal('admit');
      return principal;
    },
    check: (schema, value, part) => {
      steps.push(part);
      if (firstIssue(schema, value)) throw new Refusal(part);
    },
    scope: (p, params) => {
      steps.push('scope');
      assert.equal(p, principal);
      if (params.id === 'elsewhere') throw new Refusal('scope');
      return `scope of ${params.id}`;
    },
    queryOf: (req) => {
      const q = (req.query ?? {}) as Record<string, unknown>;
      return Object.keys(q).length ? q : undefined;
    },
    input: (_req, _p, _params, scope, body, query) => {
      steps.push(`input ${scope}`);
      return { body, query };
    },
    ...(render
      ? {
          render: (reply, outcome) => {
            steps.push('render');
            void reply.code(201).send({ rendered: outcome });
          },
        }
      : {}),
  };
}

async function appWith(
  adapter: RouteAdapter<Def, { body: unknown; query: unknown }, unknown, string>,
  route: Partial<CoreRoute<Def, { body: unknown; query: unknown }, unknown>>,
): Promise<{ app: FastifyInstance; docs: ApiDocs }> {
  const app = Fastify();
  app.setErrorHandler((err, _req, reply) =>
    reply.code(400).send({ refused: err instanceof Refusal ? err.step : String(err) }),
  );
  const docs = new ApiDocs();
  docs.defineOpenApi({
    name: 'fake',
    title: 'fake',
    version: '1',
    description: '',
    defaultContentType: 'application/json',
    securitySchemes: {},
    security: [],
    tags: [],
    notFound: { description: 'none' },
  });
  addRoute(app, docs, adapter, {
    method: 'POST',
    url: '/things/:id',
    def: {},
    params: Type.Object({ id: Type.String({ pattern: '^[a-z]+$' }) }),
    body: Type.Object({ n: Type.Integer() }),
    bodyRequired: false,
    query: Type.Object({ q: Type.Optional(Type.String({ pattern: '^[0-9]+$' })) }),
    doc: {
      operationId: 'postThing',
      summary: 'A thing',
      tags: [],
      responses: { '200': { description: 'ok' } },
    },
    handle: (input) => ({ got: input }),
    ...route,
  });
  await app.ready();
  return { app, docs };
}

describe('the route core', () => {
  it('runs admit, params, scope, body, query, handler and render in that order', async () => {
    const steps: string[] = [];
    const { app } = await appWith(fakeApi(steps, true), {});
    const res = await app.inject({ method: 'POST', url: '/things/abc?q=1', payload: { n: 1 } });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { rendered: { got: { body: { n: 1 }, query: { q: '1' } } } });
    assert.deepEqual(steps, ['admit', 'params', 'scope', 'body', 'query', 'input scope of abc', 'render']);
  });

  it('stops at the first step that refuses', async () => {
    const cases: [string, InjectOptions, Def, string[]][] = [
      [
        'admit',
        { method: 'POST', url: '/things/1?q=x', payload: { n: 'x' } },
        { refuseAt: 'admit' },
        ['admit'],
      ],
      ['params', { method: 'POST', url: '/things/1?q=x', payload: { n: 'x' } }, {}, ['admit', 'params']],
      [
        'scope',
        { method: 'POST', url: '/things/elsewhere?q=x', payload: { n: 'x' } },
        {},
        ['admit', 'params', 'scope'],
      ],
      [
        'body',
        { method: 'POST', url: '/things/abc?q=x', payload: { n: 'x' } },
        {},
        ['admit', 'params', 'scope', 'body'],
      ],
      [
        'query',
        { method: 'POST', url: '/things/abc?q=x', payload: { n: 1 } },
        {},
        ['admit', 'params', 'scope', 'body', 'query'],
      ],
    ];
    for (const [step, request, def, expected] of cases) {
      const steps: string[] = [];
      const { app } = await appWith(fakeApi(steps, true), { def });
      const res = await app.inject(request);
      assert.deepEqual(res.json(), { refused: step }, step);
      assert.deepEqual(steps, expected, step);
    }
  });

  it('checks an absent body only when one is required', async () => {
    const steps: string[] = [];
    const { app } = await appWith(fakeApi(steps, true), {});
    const res = await app.inject({ method: 'POST', url: '/things/abc' });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(steps, ['admit', 'params', 'scope', 'input scope of abc', 'render']);

    const required: string[] = [];
    const strict = await appWith(fakeApi(required, true), { bodyRequired: true });
    const refused = await strict.app.inject({ method: 'POST', url: '/things/abc' });
    assert.deepEqual(refused.json(), { refused: 'body' });
  });

  it('renders an outcome that comes later the same way', async () => {
    const steps: string[] = [];
    const { app } = await appWith(fakeApi(steps, true), {
      handle: async (input) => {
        await new Promise((r) => setImmediate(r));
        return { later: input.body };
      },
    });
    const res = await app.inject({ method: 'POST', url: '/things/abc', payload: { n: 2 } });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), { rendered: { later: { n: 2 } } });
  });

  it('lets Fastify send what the handler returns when the API has no renderer', async () => {
    const steps: string[] = [];
    const { app } = await appWith(fakeApi(steps, false), {
      handle: async (input) => ({ plain: input.body }),
    });
    const res = await app.inject({ method: 'POST', url: '/things/abc', payload: { n: 3 } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { plain: { n: 3 } });
    assert.equal(steps.includes('render'), false);
  });

  it('documents the route with the schemas it validates', async () => {
    const { docs } = await appWith(fakeApi([], true), {});
    const doc = docs.document('fake') as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const op = doc.paths['/things/{id}']!.post!;
    assert.equal(op.operationId, 'postThing');
    assert.deepEqual(
      (op.parameters as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`),
      ['path:id', 'query:q'],
    );
    assert.equal((op.requestBody as { required: boolean }).required, false);
  });
});
