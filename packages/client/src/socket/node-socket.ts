import { UpgradeRefusedError } from './upgrade-refused.js';
import { type RawSocket, type RawSocketHandlers, rawSocket } from './raw-socket.js';

/**
 * A connection through the `ws` package: headers on the upgrade (Basic credentials, User-Agent)
 * and a refused upgrade's status, Retry-After and body, which the reconnect judge reads. Loaded
 * on first use, so a browser page never asks for it.
 */
export async function openNodeSocket(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  handlers: RawSocketHandlers,
): Promise<RawSocket> {
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs });
    ws.on('message', (data, isBinary) => handlers.message(isBinary ? data.toString() : String(data)));
    ws.once('close', (code, reason) => handlers.close({ code, reason: reason.toString() }));
    // After the open, errors are followed by 'close', which is what the owner watches.
    ws.on('error', () => {});
    ws.once('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const after = res.headers['retry-after'];
        const seconds = typeof after === 'string' && /^\d+$/.test(after) ? Number(after) : undefined;
        reject(new UpgradeRefusedError(url, res.statusCode ?? 0, Buffer.concat(chunks).toString(), seconds));
        req.destroy();
      });
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.off('error', reject);
      resolve(
        rawSocket(
          ws,
          (code, reason) => ws.close(code, reason),
          () => ws.terminate(),
        ),
      );
    });
  });
}
