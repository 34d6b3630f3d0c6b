import { SwitchboardError } from '../errors.js';
import { openBrowserSocket } from './browser-socket.js';
import { openNodeSocket } from './node-socket.js';
import { type CloseInfo, inBrowser, type RawSocket } from './raw-socket.js';

export type { CloseInfo } from './raw-socket.js';
export { UpgradeRefusedError } from './upgrade-refused.js';

/** No frame the handshake waits for arrived in time, or the socket closed first. */
export class HandshakeError extends SwitchboardError {
  override name = 'HandshakeError';
}

/**
 * One WebSocket connection as text frames. Frames that arrive before anyone listens are kept, so
 * a protocol can run its handshake with `next()` and then hand the rest to `listen()`.
 */
export class FrameChannel {
  readonly closed: Promise<CloseInfo>;
  private buffer: string[] = [];
  private waiter: ((text: string | null) => void) | undefined;
  private listener: ((text: string) => void) | undefined;
  private isClosed = false;

  private ws: RawSocket | undefined;
  private resolveClosed!: (info: CloseInfo) => void;

  private constructor() {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /**
   * Opens `url` (ws: or wss:) with the given upgrade headers; rejects on any refusal. In a browser
   * page through its WebSocket (credentials as a subprotocol), elsewhere through `ws`.
   */
  static async open(url: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<FrameChannel> {
    const channel = new FrameChannel();
    const open = inBrowser() ? openBrowserSocket : openNodeSocket;
    channel.ws = await open(url, headers, timeoutMs, {
      message: (text) => channel.deliver(text),
      close: (info) => {
        channel.isClosed = true;
        channel.waiter?.(null);
        channel.resolveClosed(info);
      },
    });
    return channel;
  }

  get open(): boolean {
    return !this.isClosed && this.ws!.isOpen;
  }

  send(text: string): void {
    if (this.open) this.ws!.send(text);
  }

  /** The next frame not yet taken (handshakes); rejects after `timeoutMs` or on close. */
  next(timeoutMs: number, what: string): Promise<string> {
    const queued = this.buffer.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.isClosed) return Promise.reject(new HandshakeError(`socket closed before ${what}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new HandshakeError(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
      this.waiter = (text) => {
        clearTimeout(timer);
        this.waiter = undefined;
        if (text === null) reject(new HandshakeError(`socket closed before ${what}`));
        else resolve(text);
      };
    });
  }

  /** From now on every frame goes to `listener`, starting with any still buffered. */
  listen(listener: (text: string) => void): void {
    this.listener = listener;
    for (const text of this.buffer.splice(0)) listener(text);
  }

  close(code = 1000, reason = ''): void {
    if (this.ws!.isConnecting) this.ws!.terminate();
    else if (this.ws!.isOpen) this.ws!.close(code, reason);
  }

  /**
   * Closes with a closing handshake, so the server frees the connection (and the client's
   * connection slot) at once, and drops it when the handshake is not over within `timeoutMs`: a
   * dead peer never answers. Resolves once the connection is closed either way.
   */
  async shutdown(code: number, reason: string, timeoutMs: number): Promise<CloseInfo> {
    this.close(code, reason);
    const timer = setTimeout(() => this.ws!.terminate(), timeoutMs);
    timer.unref?.();
    try {
      return await this.closed;
    } finally {
      clearTimeout(timer);
    }
  }

  private deliver(text: string): void {
    if (this.waiter) this.waiter(text);
    else if (this.listener) this.listener(text);
    else this.buffer.push(text);
  }
}
