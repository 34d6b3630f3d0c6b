import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real local HTTP receiver; `answer` decides each request's fate (the nth, from 0). */
export async function startReceiver(answer: (n: number, res: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(received.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The receiver's side of docs/events.md: verify the Standard Webhooks signature. */
export function verify(secret: string, r: Received): boolean {
  const id = r.headers['webhook-id'] as string;
  const ts = r.headers['webhook-timestamp'] as string;
  const expected = createHmac('sha256', secret).update(`${id}.${ts}.${r.body}`).digest('base64');
  const given = String(r.headers['webhook-signature'] ?? '').split(' ');
  return given.some((s) => s === `v1,${expected}`);
}

/** Polls until `cond` holds (real time, bounded); fails with `what` otherwise. */
export async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
