import { SwitchboardError } from '../errors.js';

/** The server answered the upgrade with an HTTP status instead of 101 (seen in Node only). */
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
