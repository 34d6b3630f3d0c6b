import { UnexpectedResponseError, VoiceApiError } from '../errors.js';
import type { Hal } from '../hal/hal.js';
import { type HttpAnswer, type HttpTransport, retryAfterSeconds } from '../http/transport.js';
import type { Problem } from './voice-types.js';

export interface VoiceCredentials {
  username: string;
  password: string;
}

export function basicAuthorization({ username, password }: VoiceCredentials): string {
  return `Basic ${base64Utf8(`${username}:${password}`)}`;
}

/** Base64 of the UTF-8 bytes (btoa, not Buffer: the client also runs in a browser page). */
export function base64Utf8(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function isProblem(body: unknown): body is Problem {
  const p = body as Partial<Problem> | undefined;
  return typeof p?.status === 'number' && typeof p.errorCode === 'string';
}

/**
 * Voice REST: Basic credentials on every request (the API has no sessions), HAL bodies in,
 * problem+json out as a typed VoiceApiError.
 */
export class VoiceHttp {
  private readonly authorization: string;

  constructor(
    readonly transport: HttpTransport,
    credentials: VoiceCredentials,
  ) {
    this.authorization = basicAuthorization(credentials);
  }

  get headers(): Record<string, string> {
    return { authorization: this.authorization, 'user-agent': this.transport.userAgent };
  }

  /** Sends the request; any status from 400 up raises. */
  async send(method: string, url: string, json?: unknown): Promise<HttpAnswer> {
    const answer = await this.transport.request({
      method,
      url,
      headers: { authorization: this.authorization },
      json,
    });
    if (answer.status < 400) return answer;
    if (isProblem(answer.body)) {
      throw new VoiceApiError(method, answer.url, answer.body, retryAfterSeconds(answer.headers));
    }
    throw new UnexpectedResponseError(method, answer.url, answer.status, answer.text);
  }

  async get<T>(url: string): Promise<Hal<T>> {
    return (await this.send('GET', url)).body as Hal<T>;
  }
}
