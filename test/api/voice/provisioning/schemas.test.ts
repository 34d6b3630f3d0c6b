import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openApiPath } from '../../../../src/api/schema/openapi.js';
import { provisioningResources } from '../../../../src/api/voice/provisioning/index.js';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, BOB, call } from './provisioning-helpers.js';

/**
 * The provisioning schemas generated from the field tables: published in the `voice` document,
 * checked against every response here (the test server's contract checker), and the ones that
 * refuse bodies.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read loosely
type Doc = Record<string, any>;

const EXAMPLE: Record<string, string> = { tenantId: '1001', langCode: 'en' };
const QUERY: Record<string, string> = { '/api/v1/macaddresses': 'macAddress=02:5b:0a:0f:46:8d&' };

describe('provisioning schemas', () => {
  let s: TestServer;
  let doc: Doc;
  before(async () => {
    s = await startTestServer();
    doc = (await (await s.fetch('/openapi/voice.json')).json()) as Doc;
  });
  after(async () => s.stop());

  test('every provisioning route is an operation of the voice document, every write with its body', () => {
    let verbs = 0;
    for (const def of provisioningResources) {
      for (const [verb, vd] of Object.entries(def.verbs)) {
        if (!vd) continue;
        verbs++;
        const op = doc.paths[openApiPath(`/api${def.path}`)]?.[verb.toLowerCase()];
        assert.ok(op, `${verb} /api${def.path} is documented`);
        assert.ok(op.responses['200'] ?? op.responses['201'], `${verb} /api${def.path} answers`);
        if (verb === 'POST' || verb === 'PUT') {
          const ref = op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
          assert.match(ref ?? '', /^#\/components\/schemas\/Prov\w+(Create|Update)$/, `${verb} ${def.path}`);
        }
      }
    }
    assert.ok(verbs > 150, `${verbs} verbs`);
    const create = doc.components.schemas.ProvDialPlanCreate;
    assert.deepEqual(create.required, ['name']);
    assert.deepEqual(create.properties.rules.items.required, ['pattern', 'destinationType', 'routeId']);
    assert.equal(doc.components.schemas.ProvUserCreate.properties.pin.writeOnly, true);
    assert.equal(doc.components.schemas.ProvUser.properties.pin, undefined, 'a PIN is never rendered');
  });

  test('every list, expanded whole, and every record with its references expanded match the schemas', async () => {
    const lists = Object.entries(doc.paths as Doc)
      .filter(([, item]) => item.get?.tags.includes('provisioning') && /List$/.test(listRef(item)))
      .map(([path]) => path.replace(/\{(\w+)\}/g, (_, name: string) => EXAMPLE[name]!));
    assert.ok(lists.length >= 40, `${lists.length} lists`);
    let records = 0;
    for (const list of lists) {
      const href = `${list}?${QUERY[list] ?? ''}expand=item`;
      let who = ADMIN;
      let r = await call(s, 'GET', href, who);
      if (r.status === 403) r = await call(s, 'GET', href, (who = ALICE));
      assert.equal(r.status, 200, `${list}: ${r.text.slice(0, 200)}`);
      const [elements] = Object.values(r.body._embedded) as Doc[][];
      for (const e of elements!.slice(0, 3)) {
        const self = e._links.self.href as string;
        // The directory module serves GET of tenants, users and locations (documented there).
        if (/\/tenants\/\d+$|\/(users|locations)\/\w+$/.test(self)) continue;
        const embeds = Object.keys(e._embedded ?? {});
        const read = await call(s, 'GET', embeds.length ? `${self}?expand=${embeds.join(',')}` : self, who);
        assert.equal(read.status, 200, `${self}: ${read.text.slice(0, 200)}`);
        records++;
      }
    }
    assert.ok(records >= 40, `${records} records read`);
    for (const setting of ['defaultsystemannouncement', 'defaultcodecset', 'licensing'])
      assert.equal(
        (await call(s, 'GET', `/api/v1/${setting}?expand=codecSet,announcement`, ADMIN)).status,
        200,
      );
  });

  test('a body that does not match is refused with INVALID_FIELD naming the field as provisioning does', async () => {
    const refused = async (method: string, path: string, body: unknown, who = ADMIN) => {
      const r = await call(s, method, path, who, body);
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
      return { code: r.body.errorCode, field: r.body.parameters[0].value, detail: r.body.detail };
    };
    assert.deepEqual(await refused('POST', '/api/v1/zones', {}), {
      code: 'INVALID_FIELD',
      field: 'name',
      detail: 'Field "name": is required.',
    });
    assert.deepEqual(await refused('POST', '/api/v1/zones', ['name']), {
      code: 'INVALID_BODY',
      field: '',
      detail: 'The body must be a JSON object.',
    });
    assert.equal((await refused('POST', '/api/v1/zones', { name: '  ' })).field, 'name', 'blank');
    assert.deepEqual(
      await refused('PUT', '/api/v1/tenants/1001/users/101', { ringTimeoutSeconds: 500 }, ALICE),
      {
        code: 'INVALID_FIELD',
        field: 'ringTimeoutSeconds',
        detail: 'Field "ringTimeoutSeconds": must be an integer from 5 to 120.',
      },
    );
    assert.equal(
      (await refused('POST', '/api/v1/dialplans', { name: 'x', rules: [{ destinationType: 'local' }] }))
        .field,
      'rules[0].pattern',
    );
    assert.equal(
      (await refused('PUT', '/api/v1/tenants/1001/phones/ph1001-101', { model: 'rotary' }, ALICE)).detail,
      'Field "model": must be one of phoneModelA, phoneModelB, bst.',
    );
    assert.equal(
      (await refused('PUT', '/api/v1/zones/1', { name: null })).field,
      'name',
      'a required field is never cleared',
    );
    assert.equal(
      (await refused('PUT', '/api/v1/tenants/1001/phones/ph1001-101', { siteAssignment: null }, ALICE)).field,
      'siteAssignment',
      'a defaulted field keeps a value',
    );
    assert.equal(
      (await refused('GET', '/api/v1/macaddresses?macAddress=nope', undefined)).code,
      'INVALID_QUERY',
    );
  });

  test('null clears an optional field; unknown and read-only properties are ignored', async () => {
    const set = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', BOB, {
      twinningNumber: '+15555550999',
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.twinningNumber, '+15555550999');
    const cleared = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', BOB, {
      twinningNumber: null,
      accountId: 7,
      extensionType: 'nonsense',
      whatever: [1],
    });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.twinningNumber, undefined);
    assert.equal(cleared.body.accountId, '101@1001');
    assert.equal(cleared.body.extensionType, 'userExt');
  });
});

const listRef = (item: Doc): string =>
  item.get.responses['200']?.content?.['application/hal+json']?.schema?.$ref ?? '';
