import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a client's own request id may be: up to 128 of the characters ids are usually made of. */
const CLIENT_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Fastify's `genReqId`: the client's `X-Request-Id` when it is a plausible id, else a new id.
 * A longer or stranger value is not echoed or logged (it could forge log lines or headers).
 */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : ids.next();
}

const HEX = '0123456789abcdef';
const COUNTER_DIGITS = 12;

/**
 * Request ids made by the server: UUIDs of version 8 (RFC 9562's layout for ids of one's own
 * making), a random prefix drawn at each start (74 random bits) followed by a counter in the
 * last 12 hex digits. They are unique per process start (and across starts but for the chance of
 * drawing the same prefix), not secret and not unguessable: they only name requests in logs.
 * `randomUUID()` per request was a visible share of a request's CPU: it draws and formats 122
 * bits, and its result is a string of many pieces that Node's header check has to flatten on its
 * slow path. The id here is written into one buffer and read out as one flat string.
 */
export class RequestIds {
  private readonly buf: Buffer;
  private n = 0;

  constructor(random: Buffer = randomBytes(16)) {
    const b = Buffer.from(random.subarray(0, 16));
    b[6] = (b[6] & 0x0f) | 0x80; // version 8
    b[8] = (b[8] & 0x3f) | 0x80; // the RFC 9562 variant
    const hex = b.toString('hex');
    this.buf = Buffer.from(
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${'0'.repeat(COUNTER_DIGITS)}`,
      'latin1',
    );
  }

  next(): string {
    const buf = this.buf;
    let v = ++this.n;
    for (let i = buf.length - 1; i >= buf.length - COUNTER_DIGITS; i--) {
      buf[i] = HEX.charCodeAt(v % 16);
      v = Math.floor(v / 16);
    }
    return buf.toString('latin1');
  }
}

const ids = new RequestIds();
