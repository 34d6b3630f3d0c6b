/**
 * The bytes of a forwarded request and of its answer on the NATS subject
 * `<prefix>.node.<nodeId>.http` (docs/cluster.md § Forwarding). A frame is a 4-byte big-endian
 * length, that many bytes of JSON (the head), then the body exactly as it came or goes: the body
 * is never parsed, re-encoded or base64'd, so the owner sees the client's bytes and the client
 * the owner's.
 */

import type { Target } from '../api/route-core/placement.js';

export type HeaderValues = Record<string, string | string[]>;

/** What the owner needs to run the request as the client sent it. */
export interface RequestHead {
  method: string;
  /** Path and query, as the client sent them. */
  url: string;
  headers: HeaderValues;
  /** The client's address: limits and lock-outs count the client, not the forwarding node. */
  ip: string;
  /** What the forwarding node found the request concerns: a node refuses it when that is not here. */
  target: Target;
  /** The node that sent it (a request for every node reaches its sender too). */
  from: string;
  /**
   * How long after it arrives the request may still start running: the sender gives up on it a
   * little after (its time-out), so a request that waited longer (for a slot, a takeover) must
   * not run once the client was told it timed out and may have retried.
   */
  runWithinMs?: number;
  /**
   * The sender joins an answer sent in parts (reply-mux.ts). A node of the previous release does
   * not say so, and would take the first part for the whole answer: it is never sent parts.
   */
  parts?: true;
}

/** The owner's answer, or why it did not run the request. */
export type AnswerHead =
  | { status: number; headers: HeaderValues }
  /** `moved`: the tenant (socket) is not here (any more); `failed`: the node could not run it. */
  | { refused: 'moved' | 'failed' };

export function encodeFrame(head: RequestHead | AnswerHead, body?: Uint8Array): Uint8Array {
  const json = Buffer.from(JSON.stringify(head));
  const frame = Buffer.allocUnsafe(4 + json.length + (body?.length ?? 0));
  frame.writeUInt32BE(json.length, 0);
  json.copy(frame, 4);
  if (body) frame.set(body, 4 + json.length);
  return frame;
}

export function decodeFrame<H extends RequestHead | AnswerHead>(data: Uint8Array): { head: H; body: Buffer } {
  const frame = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (frame.length < 4) throw new Error('forwarded frame too short');
  const length = frame.readUInt32BE(0);
  if (4 + length > frame.length) throw new Error('forwarded frame truncated');
  const head = JSON.parse(frame.toString('utf8', 4, 4 + length)) as H;
  return { head, body: frame.subarray(4 + length) };
}

/** Headers that describe one connection, not the message: never carried across. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
]);

/**
 * The headers of a message without the hop-by-hop ones. A request keeps its `content-length`
 * (the owner reads the body as the client framed it); an answer's is recomputed from its body,
 * and its `date` is the sending server's own.
 */
export function endToEnd(
  raw: Record<string, string | string[] | number | undefined>,
  kind: 'request' | 'answer',
): HeaderValues {
  const out: HeaderValues = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    if (kind === 'answer' && (k === 'content-length' || k === 'date')) continue;
    out[k] = typeof v === 'number' ? String(v) : v;
  }
  return out;
}
