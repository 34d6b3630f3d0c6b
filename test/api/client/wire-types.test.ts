// The client's voice resource types are the Static types of the server's schemas, but those types
// come from the type-level mirror in halObject()/halList() (summary props optional, `_links`,
// `_embedded`), not from the JSON Schema the server publishes. This pins the two together: each
// table below must match the type (tsc, through `satisfies Shape<…>`) and the published schema
// (at runtime), so a schema whose type and JSON Schema disagree on a property fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type {
  ActiveCall,
  ApiRoot,
  Call,
  CreatedCall,
  EventAccount,
  ExtensionSummary,
  Hal,
  ParkLocationStatus,
  PresenceStatus,
  SubscriptionSetInfo,
} from '../../../packages/client/src/index.js';
import {
  ActiveCallListSchema,
  ActiveCallSchema,
  CallCreatedSchema,
  CallSchema,
} from '../../../src/api/voice/calls/call-schemas.js';
import {
  DeviceStateSchema,
  ExtensionListItemSchema,
  ExtensionListSchema,
  ExtensionSchema,
  UserPhoneSchema,
} from '../../../src/api/voice/directory/directory-schemas.js';
import {
  CallEventAccounts,
  SubscriptionSetSchema,
} from '../../../src/api/voice/events/subscription-schemas.js';
import { ApiRootSchema } from '../../../src/api/voice/navigation/navigation-schemas.js';
import {
  ParkLocationStatusBySubscriptionSetSchema,
  ParkLocationStatusSchema,
  PresenceStatusSchema,
} from '../../../src/api/voice/status/status-schemas.js';

/** Each own property of T, marked as the type declares it: tsc rejects a wrong, missing or extra mark. */
type Shape<T> = {
  [K in keyof T as Exclude<K, '_links' | '_embedded'>]-?: object extends Pick<T, K> ? 'optional' : 'required';
};

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `A` and `B` are the same type. */
const sameType = <A, B>(..._proof: Equal<A, B> extends true ? [] : [never]): void => {};

const requiredOf = (schema: TObject): string[] => schema.required ?? [];

function schemaShape(schema: TObject): Record<string, string> {
  const required = new Set(requiredOf(schema));
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
      // Issue 14: an expanded element is the whole Call (expand rule 1).
      callState: 'optional',
      startTime: 'optional',
      answerTime: 'optional',
      talkDuration: 'optional',
      digitsDialed: 'optional',
      redirected: 'optional',
      transferred: 'optional',
      callParties: 'optional',
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
  ['CallEventAccount', CallEventAccounts.item, { accountId: 'required' } satisfies Shape<EventAccount>],
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
  [
    // A summary: only extension, name and extensionType are required, the rest comes with expand.
    'ExtensionListItem',
    ExtensionListItemSchema,
    {
      extension: 'required',
      name: 'required',
      extensionType: 'required',
      accountId: 'optional',
      firstName: 'optional',
      lastName: 'optional',
      agent: 'optional',
      enabled: 'optional',
      siteId: 'optional',
    } satisfies Shape<ExtensionSummary>,
  ],
  [
    'Extension',
    ExtensionSchema,
    {
      extension: 'required',
      accountId: 'required',
      name: 'required',
      firstName: 'required',
      lastName: 'required',
      extensionType: 'required',
      agent: 'required',
      enabled: 'required',
      siteId: 'optional',
    } satisfies Shape<Static<typeof ExtensionSchema>>,
  ],
  [
    'UserPhone',
    UserPhoneSchema,
    // Issue 14: a phone shows the phone resource's attributes wherever it is embedded or listed.
    {
      phoneId: 'required',
      tenantId: 'optional',
      ownerExtension: 'required',
      model: 'required',
      macAddress: 'optional',
      registered: 'required',
      lineCount: 'optional',
      acceptsReinvite: 'optional',
      sendsReinvite: 'optional',
      siteAssignment: 'optional',
    } satisfies Shape<Static<typeof UserPhoneSchema>>,
  ],
  [
    'ParkLocationStatusBySubscriptionSet',
    ParkLocationStatusBySubscriptionSetSchema,
    { subscriptionSetId: 'required', scope: 'required' } satisfies Shape<
      Static<typeof ParkLocationStatusBySubscriptionSetSchema>
    >,
  ],
];

test('the Static types of the voice resource schemas have the properties the published schemas have', () => {
  for (const [name, schema, typed] of cases) {
    assert.deepEqual(sorted(typed), sorted(schemaShape(schema)), name);
  }
});

test('_links and _embedded: typed as the schemas build them', () => {
  // A list embeds its items under its name, required; the type says the same.
  sameType<Static<typeof ActiveCallListSchema>['_embedded'], { calls: Static<typeof ActiveCallSchema>[] }>();
  sameType<
    Static<typeof ExtensionListSchema>['_embedded'],
    { extensions: Static<typeof ExtensionListItemSchema>[] }
  >();
  const listEmbedded = (schema: TObject) => schema.properties._embedded as TObject;
  assert.deepEqual(listEmbedded(ActiveCallListSchema).required, ['calls']);
  assert.deepEqual(listEmbedded(ExtensionListSchema).required, ['extensions']);
  assert.ok(requiredOf(ActiveCallListSchema).includes('_embedded'));

  // Declared embeds are each optional; without a declaration, any HAL objects.
  sameType<
    Static<typeof ExtensionSchema>['_embedded'],
    { phones?: Static<typeof UserPhoneSchema>[] } | undefined
  >();
  const embedded = (schema: TObject) => schema.properties._embedded as TSchema;
  assert.ok(!requiredOf(CallSchema).includes('_embedded'));
  assert.deepEqual((embedded(ExtensionSchema) as TObject).required, undefined);
  assert.equal(embedded(DeviceStateSchema).type, 'object');
  const tenantEmbedded = embedded(DeviceStateSchema) as TObject;
  assert.deepEqual(tenantEmbedded.properties, {}, 'a resource that declares no embeds has none');
  assert.equal(tenantEmbedded.additionalProperties, false);

  assert.ok(requiredOf(CallSchema).includes('_links'));
});

// What the server renders is what the client reads (tsc checks these; they never run).
const _callIsHal = (rendered: Static<typeof CallSchema>): Hal<Call> => rendered;
const _extensionIsHal = (rendered: Static<typeof ExtensionListItemSchema>): Hal<ExtensionSummary> => rendered;
