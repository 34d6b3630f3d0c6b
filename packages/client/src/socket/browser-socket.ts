import { SwitchboardError } from '../errors.js';
import { type RawSocket, type RawSocketHandlers, rawSocket } from './raw-socket.js';

/**
 * A connection through the browser's WebSocket. A page cannot set headers on the upgrade, so Basic
 * credentials travel as the subprotocol `basic.<base64url>` next to `switchboard`, which the
 * server takes instead (docs/browser-tools.md); the User-Agent is the browser's. A refused upgrade
 * shows no status in a page: it fails as a network error would, and is retried like one.
 */
export function openBrowserSocket(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  handlers: RawSocketHandlers,
): Promise<RawSocket> {
  const basic = /^Basic (\S+)$/i.exec(headers.authorization ?? '')?.[1];
  const protocols = basic
    ? ['switchboard', `basic.${basic.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`]
    : [];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    let opened = false;
    const timer = setTimeout(() => {
      ws.close();
      reject(new SwitchboardError(`WebSocket to ${url} did not open within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.onmessage = (m) => handlers.message(String(m.data));
    ws.onclose = (ev) => {
      clearTimeout(timer);
      if (!opened) reject(new SwitchboardError(`WebSocket to ${url} closed before opening (${ev.code})`));
      handlers.close({ code: ev.code, reason: ev.reason });
    };
    ws.onopen = () => {
      opened = true;
      clearTimeout(timer);
      resolve(
        rawSocket(
          ws,
          // A page may only send 1000 or 3000-4999.
          (code, reason) => ws.close(code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000, reason),
          // A page cannot drop a connection: it closes, and the browser ends it if the peer is gone.
          () => ws.close(),
        ),
      );
    };
  });
}
