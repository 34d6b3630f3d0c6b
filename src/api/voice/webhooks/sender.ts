import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RefusedAddress, resolveTarget } from './address-guard.js';

export interface SendOptions {
  /** The whole attempt (resolve, connect, answer) must finish within this. */
  timeoutMs: number;
  allowPrivate: boolean;
}

/** How one POST went: a status code, or the reason there was none. */
export interface SendResult {
  statusCode?: number;
  error?: string;
}

/** Answers are read and discarded up to this many bytes; a longer one is cut off. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * One delivery attempt: a POST of `body` with `headers` to `url`, to the address the guard
 * checked. Redirects are not followed (a 3xx is a failed attempt), so no redirect can lead the
 * request past the guard.
 */
export async function postOnce(
  url: URL,
  headers: Record<string, string>,
  body: string,
  opts: SendOptions,
): Promise<SendResult> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  let target: { address: string; family: number };
  try {
    target = await Promise.race([
      resolveTarget(url.hostname, opts.allowPrivate),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error('timeout')), { once: true }),
      ),
    ]);
  } catch (err) {
    if (err instanceof RefusedAddress) return { error: `refused: ${err.message}` };
    return { error: (err as Error).message === 'timeout' ? 'timeout' : 'unresolved' };
  }
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) cb(null, [target] as never, 0);
    else cb(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: pinned,
        signal: deadline,
        agent: false,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const answer = () => {
          const code = res.statusCode ?? 0;
          done(
            code >= 200 && code < 300 ? { statusCode: code } : { statusCode: code, error: `status ${code}` },
          );
        };
        res.on('end', answer);
        res.on('close', answer);
        res.on('error', answer);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (deadline.aborted) done({ error: 'timeout' });
      else if (err.code === 'ECONNREFUSED') done({ error: 'connection refused' });
      else done({ error: err.code ?? err.message });
    });
    req.end(body);
  });
}
