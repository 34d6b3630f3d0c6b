/**
 * One WebSocket connection, whatever runs it: the `ws` package in Node (upgrade headers, the
 * refused upgrade's status and body) or the browser's own WebSocket (the console). FrameChannel
 * speaks only this, so the client's protocols run the same in both.
 */
export interface CloseInfo {
  code: number;
  reason: string;
}

export interface RawSocket {
  readonly isOpen: boolean;
  readonly isConnecting: boolean;
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Drops the connection without a closing handshake (where the runtime can). */
  terminate(): void;
}

/** What the socket reports, from its creation on (frames may follow the open at once). */
export interface RawSocketHandlers {
  message(text: string): void;
  close(info: CloseInfo): void;
}

/** Opens `url` with upgrade headers; resolves once open, rejects on any refusal. */
export type RawSocketOpener = (
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  handlers: RawSocketHandlers,
) => Promise<RawSocket>;

/** A browser page: its WebSocket, not `ws` (Node 22 has a global WebSocket too, but no window). */
export function inBrowser(): boolean {
  return (
    typeof (globalThis as { window?: unknown }).window !== 'undefined' && typeof WebSocket === 'function'
  );
}

/** WebSocket's readyState numbers, the same in `ws` and in a browser. */
const CONNECTING = 0;
const OPEN = 1;

/** A RawSocket over either runtime's socket; only closing differs between them. */
export function rawSocket(
  ws: { readonly readyState: number; send(text: string): void },
  close: (code: number, reason: string) => void,
  terminate: () => void,
): RawSocket {
  return {
    get isOpen() {
      return ws.readyState === OPEN;
    },
    get isConnecting() {
      return ws.readyState === CONNECTING;
    },
    send: (text) => ws.send(text),
    close,
    terminate,
  };
}
