import WebSocket from 'ws';
import { SwitchboardError } from '../errors.js';

export interface CloseInfo {
  code: number;
  reason: string;
}

/** The server answered the upgrade with an HTTP status instead of 101. */
export class UpgradeRefusedError extends SwitchboardError {
  override name = 'UpgradeRefusedError';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly text: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`WebSocket upgrade to ${url} refused: ${status} ${text.slice(0, 200)}`);
  }

  /** The answer body as JSON, when it is. */
  json(): unknown {
    try {
      return JSON.parse(this.text);
    } catch {
      return undefined;
    }
  }
}

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

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => this.deliver(isBinary ? data.toString() : String(data)));
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        this.isClosed = true;
        this.waiter?.(null);
        resolve({ code, reason: reason.toString() });
      });
    });
    // After the open, errors are followed by 'close', which is what the owner watches.
    ws.on('error', () => {});
  }

  /** Opens `url` (ws: or wss:) with the given upgrade headers; rejects on any refusal. */
  static open(url: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<FrameChannel> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs });
      const channel = new FrameChannel(ws);
      ws.once('unexpected-response', (req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const after = res.headers['retry-after'];
          const seconds = typeof after === 'string' && /^\d+$/.test(after) ? Number(after) : undefined;
          reject(
            new UpgradeRefusedError(url, res.statusCode ?? 0, Buffer.concat(chunks).toString(), seconds),
          );
          req.destroy();
        });
      });
      ws.once('error', reject);
      ws.once('open', () => {
        ws.off('error', reject);
        resolve(channel);
      });
    });
  }

  get open(): boolean {
    return !this.isClosed && this.ws.readyState === WebSocket.OPEN;
  }

  send(text: string): void {
    if (this.open) this.ws.send(text);
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
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    else if (this.ws.readyState === WebSocket.OPEN) this.ws.close(code, reason);
  }

  /**
   * Closes with a closing handshake, so the server frees the connection (and the client's
   * connection slot) at once, and drops it when the handshake is not over within `timeoutMs`: a
   * dead peer never answers. Resolves once the connection is closed either way.
   */
  async shutdown(code: number, reason: string, timeoutMs: number): Promise<CloseInfo> {
    this.close(code, reason);
    const timer = setTimeout(() => this.ws.terminate(), timeoutMs);
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
