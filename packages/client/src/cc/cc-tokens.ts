import type { HttpTransport } from '../http/transport.js';
import { ccError, ccRequest } from './cc-http.js';
import type { TokenAnswer } from './cc-types.js';

export interface CcCredentials {
  username: string;
  password: string;
}

/**
 * The contact-center Bearer token: the password grant once, then the refresh grant before the
 * access token expires (or when the server says it did). A refresh token works once, so the
 * refreshes are serialized. A refused password grant is never repeated on its own: each failure
 * counts toward the lock-out.
 */
export class CcTokens {
  private token: TokenAnswer | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly transport: HttpTransport,
    private readonly credentials: CcCredentials,
    /** Refresh this long before expiry. */
    private readonly marginMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid access token, obtained or refreshed when needed. */
  accessToken(): Promise<string> {
    if (this.token && this.now() < this.expiresAt - this.marginMs)
      return Promise.resolve(this.token.access_token);
    return (this.pending ??= this.renew().finally(() => (this.pending = undefined)));
  }

  /** The server refused `token` (401): the next call renews it. */
  rejected(token: string): void {
    if (this.token?.access_token === token) this.expiresAt = 0;
  }

  /** The refresh token last received (for applications that persist it). */
  get refreshToken(): string | undefined {
    return this.token?.refresh_token;
  }

  private async renew(): Promise<string> {
    if (this.token) {
      const refreshed = await this.grant({
        grant_type: 'refresh_token',
        refresh_token: this.token.refresh_token,
      });
      if (refreshed) return refreshed;
    }
    const issued = await this.grant({ grant_type: 'password', ...this.credentials }, true);
    return issued!;
  }

  private async grant(body: Record<string, string>, mustSucceed = false): Promise<string | undefined> {
    const answer = await ccRequest(this.transport, 'POST', 'oauth/token', {}, body);
    if (answer.status === 200) {
      this.token = answer.body as TokenAnswer;
      this.expiresAt = this.now() + this.token.expires_in * 1000;
      return this.token.access_token;
    }
    this.token = undefined;
    // A used or expired refresh token: fall back to the password grant.
    if (!mustSucceed && (answer.status === 400 || answer.status === 401)) return undefined;
    throw ccError(answer);
  }
}
