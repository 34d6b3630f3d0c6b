import { RequestLimiter } from './request-limiter.js';

/** No node:timers here: the client also runs in a browser page. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface TransportOptions {
  /** The server's base address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The User-Agent header sent with every request. */
  userAgent: string;
  /** Requests in flight at once (the server's per-client REST limit is 3). */
  maxInFlight?: number;
  /** Give up on one request after this long. */
  timeoutMs?: number;
  /** Retries of an idempotent request answered 503 (busy), honouring Retry-After up to 5 s. */
  busyRetries?: number;
  fetch?: typeof fetch;
}

export interface HttpRequest {
  method: string;
  /** An absolute address, or a path resolved against the base address. */
  url: string;
  headers?: Record<string, string>;
  /** A JSON body (sent with `Content-Type: application/json`). */
  json?: unknown;
}

export interface HttpAnswer {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  /** The parsed body when it is JSON (any `+json` type), else undefined. */
  body: unknown;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\b/i;

/** Seconds of a `Retry-After` header given in seconds; undefined otherwise. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get('retry-after');
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v);
}

/** HTTP for both APIs: base address, User-Agent, a local in-flight limit, time-outs, JSON. */
export class HttpTransport {
  readonly baseUrl: string;
  private readonly limiter: RequestLimiter;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.limiter = new RequestLimiter(options.maxInFlight ?? 3);
    // Called through a function of its own: a browser's fetch must be called on the window.
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  get userAgent(): string {
    return this.options.userAgent;
  }

  /** An address the server gave (absolute or a path) made absolute. */
  resolve(url: string): string {
    return new URL(url, this.baseUrl + '/').toString();
  }

  async request(req: HttpRequest): Promise<HttpAnswer> {
    const retries = IDEMPOTENT.has(req.method) ? (this.options.busyRetries ?? 2) : 0;
    for (let attempt = 0; ; attempt++) {
      const answer = await this.limiter.run(() => this.once(req));
      if (answer.status !== 503 || attempt >= retries) return answer;
      const after = retryAfterSeconds(answer.headers);
      await sleep(Math.min(after !== undefined ? after * 1000 : 250 * 2 ** attempt, 5000));
    }
  }

  private async once(req: HttpRequest): Promise<HttpAnswer> {
    const url = this.resolve(req.url);
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/hal+json, application/json, application/problem+json',
      ...req.headers,
    };
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const res = await this.fetchImpl(url, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let parsed: unknown;
    if (text && JSON_TYPE.test(contentType)) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return {
      method: req.method,
      url,
      status: res.status,
      headers: res.headers,
      contentType,
      text,
      body: parsed,
    };
  }
}
