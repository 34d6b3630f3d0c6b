import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { ApiDocs } from '../../../../../src/api/schema/registry.js';
import { registerVoiceEventsDocument } from '../../../../../src/api/voice/events/voice-events-document.js';
import { sign } from '../../../../../src/api/voice/webhooks/signing.js';
import {
  registerWebhooksDocument,
  WEBHOOKS_DOCUMENT,
} from '../../../../../src/api/voice/webhooks/webhook-document.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function documents(): { hooks: Doc; events: Doc } {
  const docs = new ApiDocs();
  registerVoiceEventsDocument(docs);
  registerWebhooksDocument(docs);
  return { hooks: docs.document(WEBHOOKS_DOCUMENT)!, events: docs.document('voice-events')! };
}

describe('the webhook deliveries document', () => {
  test('one delivery message per call, presence and park-location frame of the socket, none for emergency alerts', () => {
    const { hooks, events } = documents();
    const frames = Object.keys(events.components.messages).filter(
      (m) => !['webSocketId', 'clientMessage', 'emergencyCallAlert'].includes(m),
    );
    assert.deepEqual(
      Object.keys(hooks.components.messages),
      frames.map((m) => `${m}Delivery`),
    );
    assert.deepEqual(hooks.operations.serverSends.bindings, {
      http: { method: 'POST', bindingVersion: '0.3.0' },
    });
    for (const m of Object.values(hooks.components.messages as Record<string, Doc>)) {
      assert.deepEqual(m.headers, { $ref: '#/components/schemas/WebhookDeliveryHeaders' });
    }
  });

  test('a delivery body is the socket frame with webhookId, deliveryId and a required sequence for the set id', () => {
    const { hooks, events } = documents();
    const frame = events.components.schemas.DialEvent;
    const body = hooks.components.schemas.DialEventDelivery;
    assert.deepEqual(Object.keys(body.properties), [
      'webhookId',
      'deliveryId',
      'sequence',
      ...Object.keys(frame.properties).filter((k) => k !== 'subscriptionSetId' && k !== 'sequence'),
    ]);
    assert.ok(body.required.includes('sequence'));
    assert.equal(body.additionalProperties, false);
  });

  test('the example is signed as the server signs, and the receiver’s check of docs/events.md verifies it', () => {
    const { hooks } = documents();
    const [example] = hooks.components.messages.presenceDelivery.examples;
    const secret = 'whsec_example-secret-do-not-use-0123';
    const body = JSON.stringify(example.payload);
    const { 'webhook-id': id, 'webhook-timestamp': ts } = example.headers;
    assert.equal(id, example.payload.deliveryId);
    assert.equal(example.headers['webhook-signature'], sign(secret, id, Number(ts), body));
    const mac = createHmac('sha256', secret).update(`${id}.${ts}.${body}`).digest('base64');
    assert.equal(example.headers['webhook-signature'], `v1,${mac}`);
    assert.notEqual(sign('whsec_another-secret-000000000', id, Number(ts), body), `v1,${mac}`);
  });
});
