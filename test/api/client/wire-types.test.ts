// The client writes the voice HAL resource types itself (the server's halObject() schemas have
// no useful Static type). This keeps them in step with the schemas the server publishes: same
// properties, same required ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TObject } from '@sinclair/typebox';
import type {
  ActiveCall,
  ApiRoot,
  Call,
  CreatedCall,
  ExtensionSummary,
  ParkLocationStatus,
  PresenceStatus,
  SubscriptionSetInfo,
} from '../../../packages/client/src/index.js';
import {
  ActiveCallSchema,
  CallCreatedSchema,
  CallSchema,
} from '../../../src/api/voice/calls/call-schemas.js';
import { ExtensionSchema } from '../../../src/api/voice/directory/directory-schemas.js';
import { SubscriptionSetSchema } from '../../../src/api/voice/events/subscription-schemas.js';
import { ApiRootSchema } from '../../../src/api/voice/navigation/navigation-schemas.js';
import {
  ParkLocationStatusSchema,
  PresenceStatusSchema,
} from '../../../src/api/voice/status/status-schemas.js';

/** Each property of T, marked as the type declares it: tsc rejects a wrong or missing mark. */
type Shape<T> = { [K in keyof T]-?: object extends Pick<T, K> ? 'optional' : 'required' };

function schemaShape(schema: TObject): Record<string, string> {
  const required = new Set(schema.required ?? []);
  const out: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    if (key === '_links' || key === '_embedded') continue;
    out[key] = required.has(key) ? 'required' : 'optional';
  }
  return out;
}

const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort());

const cases: [string, TObject, Record<string, string>][] = [
  [
    'Call',
    CallSchema,
    {
      callId: 'required',
      smdrCallId: 'required',
      from: 'required',
      to: 'required',
      callState: 'required',
      startTime: 'required',
      answerTime: 'required',
      talkDuration: 'required',
      digitsDialed: 'required',
      redirected: 'required',
      transferred: 'required',
      callParties: 'required',
    } satisfies Shape<Call>,
  ],
  [
    'ActiveCall',
    ActiveCallSchema,
    {
      callId: 'required',
      smdrCallId: 'required',
      from: 'required',
      to: 'required',
    } satisfies Shape<ActiveCall>,
  ],
  [
    'CallCreated',
    CallCreatedSchema,
    { callId: 'required', smdrCallId: 'required' } satisfies Shape<CreatedCall>,
  ],
  ['ApiRoot', ApiRootSchema, { tenantId: 'optional', tenantName: 'optional' } satisfies Shape<ApiRoot>],
  [
    'SubscriptionSet',
    SubscriptionSetSchema,
    { subscriptionSetId: 'required', tenantId: 'required' } satisfies Shape<SubscriptionSetInfo>,
  ],
  [
    'PresenceStatus',
    PresenceStatusSchema,
    {
      accountId: 'required',
      callActivity: 'required',
      reachability: 'required',
      acd: 'required',
      dnd: 'required',
      groups: 'required',
    } satisfies Shape<PresenceStatus>,
  ],
  [
    'ParkLocationStatus',
    ParkLocationStatusSchema,
    {
      accountId: 'required',
      state: 'required',
      parkedParty: 'optional',
      parkedPartyName: 'optional',
      callId: 'optional',
    } satisfies Shape<ParkLocationStatus>,
  ],
];

test('the client’s voice resource types have the properties of the published schemas', () => {
  for (const [name, schema, local] of cases) {
    assert.deepEqual(sorted(local), sorted(schemaShape(schema)), name);
  }
});

test('an extension list item: the summary is required, the rest comes with expand', () => {
  const local = {
    extension: 'required',
    name: 'required',
    extensionType: 'required',
    accountId: 'optional',
    firstName: 'optional',
    lastName: 'optional',
    agent: 'optional',
    enabled: 'optional',
    siteId: 'optional',
  } satisfies Shape<ExtensionSummary>;
  // The full extension has every property; the list item keeps only the summary required.
  assert.deepEqual(Object.keys(local).sort(), Object.keys(schemaShape(ExtensionSchema)).sort());
});
