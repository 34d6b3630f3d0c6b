import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AnswerHead,
  decodeFrame,
  encodeFrame,
  endToEnd,
  type RequestHead,
} from '../../../src/cluster/forward-wire.js';

describe('the forwarded frame', () => {
  it('carries the head and the body’s bytes unchanged', () => {
    const head: RequestHead = {
      method: 'POST',
      url: '/api/v1/calls?x=1',
      headers: { 'content-type': 'application/json', 'x-many': ['a', 'b'] },
      ip: '203.0.113.7',
      target: { socket: 'abc' },
      from: 'node-a',
    };
    const body = Buffer.from([0, 1, 2, 0xff, 0x7b, 0x0a]);
    const decoded = decodeFrame<RequestHead>(encodeFrame(head, body));
    assert.deepEqual(decoded.head, head);
    assert.deepEqual([...decoded.body], [...body]);
  });

  it('an answer without a body, and a refusal', () => {
    const ok: AnswerHead = { status: 204, headers: { 'x-request-id': 'r' } };
    assert.equal(decodeFrame<AnswerHead>(encodeFrame(ok)).body.length, 0);
    assert.deepEqual(decodeFrame<AnswerHead>(encodeFrame({ refused: 'moved' })).head, { refused: 'moved' });
  });

  it('a frame read from a slice of a larger buffer', () => {
    const frame = encodeFrame({ refused: 'failed' }, Buffer.from('tail'));
    const big = new Uint8Array(frame.length + 10);
    big.set(frame, 5);
    const decoded = decodeFrame<AnswerHead>(big.subarray(5, 5 + frame.length));
    assert.deepEqual(decoded.head, { refused: 'failed' });
    assert.equal(decoded.body.toString(), 'tail');
  });

  it('refuses a truncated frame', () => {
    assert.throws(() => decodeFrame(new Uint8Array([0, 0])));
    assert.throws(() => decodeFrame(new Uint8Array([0, 0, 0, 9, 0x7b])));
  });
});

describe('end-to-end headers', () => {
  const raw = {
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
    'content-length': 12,
    date: 'Mon',
    'content-type': 'application/json',
    'set-cookie': ['a=1', 'b=2'],
    absent: undefined,
  };
  it('a request keeps its length, loses the connection’s headers', () => {
    assert.deepEqual(endToEnd(raw, 'request'), {
      'content-length': '12',
      date: 'Mon',
      'content-type': 'application/json',
      'set-cookie': ['a=1', 'b=2'],
    });
  });
  it('an answer loses its length and date too: the node that writes it sets its own', () => {
    assert.deepEqual(endToEnd(raw, 'answer'), {
      'content-type': 'application/json',
      'set-cookie': ['a=1', 'b=2'],
    });
  });
});
