import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * The spec's endpoint and event names, copied from the two spec documents (and, where the spec
 * names none, from docs/decisions.md §1.5 and docs/contact-center.md), checked against the
 * served documents: a dropped operation or message fails here even when its route or frame builder still exists.
 * Path parameters are written `{}`: only their position matters. HEAD is GET without a body
 * (Fastify answers it for every GET) and is no operation of its own.
 */
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface EndpointRow {
  row: string;
  method: Method;
  paths: string[];
  /** The `request` value that selects this row's behaviour of a shared POST/PUT. */
  request?: string;
}

const CC = '/6/v2/api/';

/** contact-center-api.md, Endpoints: rows 1–28, paths relative to the REST base. */
const CC_ENDPOINTS: EndpointRow[] = [
  { row: '1', method: 'GET', paths: ['products/'] },
  { row: '2', method: 'GET', paths: ['roles/'] },
  { row: '3', method: 'GET', paths: ['tenants'] },
  { row: '4', method: 'GET', paths: ['tenants/{}'] },
  { row: '5', method: 'GET', paths: ['tenants/{}/roles'] },
  { row: '6', method: 'GET', paths: ['acds', 'tenants/{}/acds'] },
  { row: '7', method: 'GET', paths: ['tenants/{}/presence_options'] },
  { row: '8', method: 'GET', paths: ['tenants/{}/extensions', 'extensions'] },
  { row: '9', method: 'GET', paths: ['tenants/{}/text_count'] },
  { row: '10', method: 'POST', paths: ['tenants/{}/text_count'], request: 'reset_counter' },
  { row: '11', method: 'POST', paths: ['tenants/{}'], request: 'add_product' },
  { row: '12', method: 'POST', paths: ['tenants/{}'], request: 'delete_product' },
  { row: '13', method: 'PUT', paths: ['tenants/{}'] },
  { row: '14', method: 'PUT', paths: ['tenants/{}/extensions/{}'] },
  { row: '15', method: 'GET', paths: ['tenants/{}/extensions/{}/agent_state'] },
  { row: '16', method: 'POST', paths: ['tenants/{}/extensions/{}'], request: 'updateAgentState' },
  { row: '17', method: 'POST', paths: ['agent_state'], request: 'updateAgentState' },
  { row: '18', method: 'POST', paths: ['extensions/{}'], request: 'updateAgentState' },
  { row: '19', method: 'GET', paths: ['calls'] },
  { row: '20', method: 'GET', paths: ['calls/{}'] },
  { row: '21', method: 'GET', paths: ['calls/filter'] },
  { row: '22', method: 'POST', paths: ['calls/{}'], request: 'startSuppression' },
  { row: '23', method: 'POST', paths: ['calls/{}'], request: 'stopSuppression' },
  { row: '24', method: 'POST', paths: ['calls/{}'], request: 'kill' },
  { row: '25', method: 'POST', paths: ['calls/{}'], request: 'wait_transfer' },
  { row: '26', method: 'POST', paths: ['calls/{}'], request: 'wait_redirect' },
  { row: '27', method: 'POST', paths: ['calls/{}'], request: 'wait_kill' },
  { row: '28', method: 'POST', paths: ['tenants/{}/extensions/{}'], request: 'dial' },
];

const SETS = '/api/v1/subscriptions/ws/{}/subscriptionsets';
const SET = `${SETS}/{}`;

/** voice-platform-api.md, Endpoints: Navigation and enums, Event management, Status, Calls. */
const VOICE_ENDPOINTS: EndpointRow[] = [
  { row: 'navigation: API root', method: 'GET', paths: ['/api'] },
  { row: 'navigation: v1 root', method: 'GET', paths: ['/api/v1'] },
  { row: 'navigation: URI templates', method: 'GET', paths: ['/api/v1/uridictionary'] },
  { row: 'navigation: enum list', method: 'GET', paths: ['/api/v1/enums'] },
  { row: 'navigation: one enum', method: 'GET', paths: ['/api/v1/enums/{}'] },
  { row: 'navigation: WebSocket upgrade', method: 'GET', paths: ['/api/ws'] },
  { row: 'events: list sets', method: 'GET', paths: [SETS] },
  { row: 'events: create a set', method: 'POST', paths: [SETS] },
  { row: 'events: one set', method: 'GET', paths: [SET] },
  { row: 'events: call event accounts', method: 'GET', paths: [`${SET}/calleventaccounts`] },
  { row: 'events: replace call event accounts', method: 'PUT', paths: [`${SET}/calleventaccounts`] },
  { row: 'events: add a call event account', method: 'PUT', paths: [`${SET}/calleventaccounts/{}`] },
  { row: 'events: remove a call event account', method: 'DELETE', paths: [`${SET}/calleventaccounts/{}`] },
  { row: 'events: emergency alert', method: 'GET', paths: [`${SET}/alertevent/emergencycall`] },
  { row: 'events: set emergency alert', method: 'PUT', paths: [`${SET}/alertevent/emergencycall`] },
  { row: 'events: presence accounts', method: 'GET', paths: [`${SET}/presenceeventaccounts`] },
  { row: 'events: replace presence accounts', method: 'PUT', paths: [`${SET}/presenceeventaccounts`] },
  { row: 'events: add a presence account', method: 'PUT', paths: [`${SET}/presenceeventaccounts/{}`] },
  { row: 'events: remove a presence account', method: 'DELETE', paths: [`${SET}/presenceeventaccounts/{}`] },
  { row: 'events: park accounts', method: 'GET', paths: [`${SET}/parklocationeventaccounts`] },
  { row: 'events: replace park accounts', method: 'PUT', paths: [`${SET}/parklocationeventaccounts`] },
  { row: 'events: add a park account', method: 'PUT', paths: [`${SET}/parklocationeventaccounts/{}`] },
  { row: 'events: remove a park account', method: 'DELETE', paths: [`${SET}/parklocationeventaccounts/{}`] },
  {
    row: 'status: presence by extension',
    method: 'GET',
    paths: ['/api/v1/presencestatus/tenants/{}/extensions/{}'],
  },
  {
    row: 'status: all tenant accounts',
    method: 'GET',
    paths: ['/api/v1/presencestatus/tenants/{}/extensions'],
  },
  {
    row: 'status: tenant park locations',
    method: 'GET',
    paths: ['/api/v1/presencestatus/tenants/{}/parklocations'],
  },
  { row: 'status: park location', method: 'GET', paths: ['/api/v1/presencestatus/parklocationstatus/{}'] },
  {
    row: 'status: by subscription set',
    method: 'GET',
    paths: ['/api/v1/presencestatus/{}/subscriptionsets/{}'],
  },
  {
    row: 'status: park locations by subscription set',
    method: 'GET',
    paths: ['/api/v1/presencestatus/parklocationstatus/ws/{}/subscriptionsets/{}'],
  },
  { row: 'calls: list active calls', method: 'GET', paths: ['/api/v1/calls'] },
  { row: 'calls: make or retrieve a call', method: 'POST', paths: ['/api/v1/calls'] },
  { row: 'calls: call details', method: 'GET', paths: ['/api/v1/calls/{}'] },
  { row: 'calls: change call state', method: 'POST', paths: ['/api/v1/calls/{}'] },
];

type VoiceCategory = 'call' | 'presence' | 'park' | 'emergency';
interface VoiceEventRow {
  category: VoiceCategory;
  event: string;
  /** The spec's extra fields besides the common ones. */
  fields: string[];
}

const COMMON = ['subscriptionSetId', 'event', 'observedParty', 'timestamp', 'version'];

/** voice-platform-api.md, Events: the 14 call events, presence, park-location and emergency. */
const VOICE_EVENTS: VoiceEventRow[] = [
  { category: 'call', event: 'dial', fields: ['from', 'to', 'sipCallId', 'dialingDeviceId'] },
  { category: 'call', event: 'ringback', fields: [] },
  {
    category: 'call',
    event: 'offer',
    fields: ['from', 'to', 'via', 'sipCallId', 'dialedDigits', 'callingName'],
  },
  { category: 'call', event: 'ringing', fields: ['ringingDeviceId'] },
  { category: 'call', event: 'answer', fields: ['answeringParty', 'answeringDeviceId'] },
  { category: 'call', event: 'forward', fields: ['forwardingParty', 'forwardTarget'] },
  { category: 'call', event: 'hold', fields: ['holdingParty', 'heldParty'] },
  { category: 'call', event: 'resume', fields: ['resumingParty', 'heldParty'] },
  { category: 'call', event: 'transfer', fields: ['transferringParty', 'transferee', 'transferTarget'] },
  { category: 'call', event: 'callError', fields: ['error'] },
  { category: 'call', event: 'end', fields: ['from', 'to', 'endingParty', 'endReason', 'callDuration'] },
  {
    category: 'call',
    event: 'park',
    fields: [
      'callId',
      'parkingPartyNumber',
      'parkingPartyName',
      'parkLocationId',
      'observedParty',
      'parkedPartyNumber',
      'parkedPartyName',
    ],
  },
  ...['retrieve', 'retrieved'].map((event) => ({
    category: 'call' as const,
    event,
    fields: [
      'callId',
      'retrievingPartyName',
      'retrievingPartyID',
      'parkLocationID',
      'observedPartyID',
      'parkedPartyNumber',
      'parkedPartyName',
    ],
  })),
  ...['idle', 'busy', 'available', 'unavailable', 'signedInAcd', 'signedOutAcd', 'dndOn', 'dndOff'].map(
    (event) => ({ category: 'presence' as const, event, fields: [] }),
  ),
  { category: 'presence', event: 'joinedGroup', fields: ['groupJoined'] },
  { category: 'presence', event: 'leftGroup', fields: ['groupLeft'] },
  { category: 'park', event: 'idle', fields: [] },
  { category: 'park', event: 'busy', fields: ['parkedParty', 'parkedPartyName'] },
  // The spec names the emergency call alert but shows no payload: the event name is Switchboard's.
  { category: 'emergency', event: 'emergencyCallAlert', fields: [] },
];

/**
 * The contact-center socket. The spec names the `connect` frame and the three categories
 * (call, agent presence, inbound queue) but no event names: those come from docs/decisions.md §1.5
 * ("name the events in the project's docs") and docs/contact-center.md, as does `subscribe`.
 */
const CC_CLIENT_FRAMES = [
  { request: 'connect', fields: ['request', 'token'] },
  { request: 'subscribe', fields: ['request', 'events'] },
];
// Written out again on purpose, not imported from src/api/ccs/event-frames.ts: the test's own table is the oracle.
const CC_EVENTS: Record<'agent' | 'call' | 'inbound_queue', string[]> = {
  agent: ['agent_state_changed', 'phone_state_changed', 'queue_state_changed'],
  call: [
    'call_queued',
    'call_offered',
    'call_not_answered',
    'call_answered',
    'call_redirected',
    'call_transferred',
    'call_dialed',
    'recording_started',
    'recording_stopped',
    'suppression_started',
    'suppression_stopped',
    'call_ended',
  ],
  inbound_queue: ['queue_statistics'],
};

type Doc = Record<string, any>;

/** `/6/v2/api/tenants/{tenant}/` → `/6/v2/api/tenants/{}`. */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '');

/** The schema with every local `$ref` replaced by its target (documents hold no cycles here). */
function deref(doc: Doc, schema: unknown, depth = 0): unknown {
  assert.ok(depth < 40, 'schema nesting too deep');
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Doc;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce((o: Doc | undefined, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    assert.ok(target, `unresolved ${s.$ref}`);
    return deref(doc, target, depth + 1);
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, deref(doc, v, depth + 1)]));
}

/** Every value a schema allows for a property, through const, enum and anyOf/oneOf/allOf. */
function constants(schema: Doc | undefined): unknown[] {
  if (!schema) return [];
  return [
    ...('const' in schema ? [schema.const] : []),
    ...(Array.isArray(schema.enum) ? schema.enum : []),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap(constants),
  ];
}

/** The object branches of a payload (a union of request shapes is several). */
function objects(schema: Doc): Doc[] {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Doc[];
  if (branches.length) return branches.flatMap(objects);
  if (Array.isArray(schema.allOf)) {
    const merged = (schema.allOf as Doc[]).flatMap(objects);
    return [{ properties: Object.assign({}, ...merged.map((m) => m.properties ?? {})) }];
  }
  return [schema];
}

describe('the served documents cover the spec', () => {
  let s: TestServer;
  const docs: Record<string, Doc> = {};
  before(async () => {
    s = await startTestServer();
    for (const name of ['voice', 'contact-center', 'voice-events', 'contact-center-events']) {
      const res = await s.fetch(`/openapi/${name}.json`);
      assert.equal(res.status, 200, name);
      docs[name] = (await res.json()) as Doc;
    }
  });
  after(async () => {
    await s.stop();
  });

  /** The operation at a spec path, matched by the position of its parameters. */
  const operation = (doc: Doc, method: Method, path: string): Doc | undefined => {
    const entry = Object.entries(doc.paths as Record<string, Doc>).find(([p]) => shape(p) === shape(path));
    return entry?.[1][method.toLowerCase()];
  };

  const checkEndpoints = (docName: string, rows: EndpointRow[], base: string) => {
    const missing: string[] = [];
    for (const row of rows) {
      for (const path of row.paths) {
        const op = operation(docs[docName]!, row.method, base + path);
        const where = `${row.row}: ${row.method} ${base}${path}`;
        if (!op) {
          missing.push(`${where}: no operation`);
          continue;
        }
        if (!row.request) continue;
        const body = deref(docs[docName]!, op.requestBody?.content?.['application/json']?.schema) as
          Doc | undefined;
        const requests = body ? objects(body).flatMap((o) => constants(o.properties?.request)) : [];
        if (!requests.includes(row.request)) missing.push(`${where}: body has no request ${row.request}`);
      }
    }
    assert.deepEqual(missing, []);
  };

  it('contact center: all 28 endpoint rows are operations (the request variants in the body)', () => {
    assert.equal(CC_ENDPOINTS.length, 28);
    checkEndpoints('contact-center', CC_ENDPOINTS, CC);
  });

  it('voice: every endpoint of the navigation, event-management, status and calls tables', () => {
    checkEndpoints('voice', VOICE_ENDPOINTS, '');
  });

  /** The `send` messages of an AsyncAPI document, payloads resolved. */
  const sent = (name: string) => {
    const doc = docs[name]!;
    const refs = doc.operations.serverSends.messages as { $ref: string }[];
    return refs.map((r) => {
      const message = deref(doc, r) as Doc;
      return { name: message.name as string, payload: deref(doc, message.payload) as Doc };
    });
  };

  it('voice events: the 14 call events, presence, park-location and emergency events with their fields', () => {
    assert.equal(VOICE_EVENTS.filter((e) => e.category === 'call').length, 14);
    const messages = sent('voice-events');
    const categoryOf = (p: Doc): VoiceCategory => {
      const props = p.properties ?? {};
      if (constants(props.event).includes('emergencyCallAlert')) return 'emergency';
      if (String(props.observedParty?.pattern ?? '').startsWith('^PL')) return 'park';
      return 'callId' in props ? 'call' : 'presence';
    };
    const missing = VOICE_EVENTS.filter(({ category, event, fields }) => {
      return !messages.some(({ payload }) =>
        objects(payload).some(
          (o) =>
            categoryOf(o) === category &&
            constants(o.properties?.event).includes(event) &&
            [...COMMON, ...fields].every((f) => f in (o.properties ?? {})),
        ),
      );
    }).map((e) => `${e.category} ${e.event}`);
    assert.deepEqual(missing, []);
  });

  it('contact-center events: connect and subscribe from the client, every event of each category', () => {
    const doc = docs['contact-center-events']!;
    const received = (doc.operations.serverReceives.messages as { $ref: string }[]).map(
      (r) => deref(doc, (deref(doc, r) as Doc).payload) as Doc,
    );
    for (const frame of CC_CLIENT_FRAMES) {
      const found = received.some((p) =>
        objects(p).some(
          (o) =>
            constants(o.properties?.request).includes(frame.request) &&
            frame.fields.every((f) => f in (o.properties ?? {})),
        ),
      );
      assert.ok(found, `client frame ${frame.request}`);
    }
    const messages = sent('contact-center-events');
    const missing = Object.entries(CC_EVENTS).flatMap(([category, names]) =>
      names
        .filter(
          (event) =>
            !messages.some(({ payload }) =>
              objects(payload).some(
                (o) =>
                  constants(o.properties?.event).includes(event) &&
                  constants(o.properties?.category).includes(category) &&
                  'data' in (o.properties ?? {}),
              ),
            ),
        )
        .map((event) => `${category} ${event}`),
    );
    assert.deepEqual(missing, []);
  });
});
