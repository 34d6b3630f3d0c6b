/** One substitutable value of a voice problem (`type` is a value of the parameterType enum). */
export interface ProblemParameter {
  type: string;
  value: string;
}

/** Every error the client raises on purpose. */
export class SwitchboardError extends Error {
  override name = 'SwitchboardError';
}

/** The voice API answered with an RFC 9457 problem document (`application/problem+json`). */
export class VoiceApiError extends SwitchboardError {
  override name = 'VoiceApiError';
  readonly status: number;
  readonly errorCode: string;
  readonly parameters: ProblemParameter[];
  readonly detail: string;
  readonly type: string;
  readonly title: string;

  constructor(
    readonly method: string,
    readonly url: string,
    problem: {
      status: number;
      errorCode: string;
      parameters: ProblemParameter[];
      detail: string;
      type: string;
      title: string;
    },
    /** The `Retry-After` header in seconds, when the server sent one (LOCKED_OUT, BUSY). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${method} ${url}: ${problem.status} ${problem.errorCode}: ${problem.detail}`);
    this.status = problem.status;
    this.errorCode = problem.errorCode;
    this.parameters = problem.parameters;
    this.detail = problem.detail;
    this.type = problem.type;
    this.title = problem.title;
  }

  /** The value of the first parameter of `type` (e.g. `field` of MISSING_FIELD). */
  parameter(type: string): string | undefined {
    return this.parameters.find((p) => p.type === type)?.value;
  }
}

/**
 * The contact-center API answered with a status other than 2xx. Its bodies vary by status:
 * `{success: false, reason}`, `{status: 401, reason}`, and, on some endpoints, a 400 or 500 with
 * `success: true`. The HTTP status decides; `success` is kept only to show what the server said.
 */
export class CcApiError extends SwitchboardError {
  override name = 'CcApiError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly reason: string,
    /** `success` as the body stated it (true in the 400 quirk and the 500 body), if present. */
    readonly success: boolean | undefined,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${method} ${url}: ${status} ${reason}`);
  }
}

/** An answer in no shape the API documents (e.g. a proxy's HTML page). */
export class UnexpectedResponseError extends SwitchboardError {
  override name = 'UnexpectedResponseError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${url}: unexpected ${status} answer: ${body.slice(0, 200)}`);
  }
}

/** A link the client needs is not offered to this user (the API decides per authority). */
export class LinkNotOfferedError extends SwitchboardError {
  override name = 'LinkNotOfferedError';
  constructor(
    readonly rel: string,
    readonly where: string,
  ) {
    super(`${where} offers no link '${rel}' to this user`);
  }
}

/** The event socket cannot (re)connect and will not try again (bad credentials, lock-out, closed). */
export class SocketClosedError extends SwitchboardError {
  override name = 'SocketClosedError';
}

/** The server refused a socket's opening message (e.g. the contact-center `connect`). */
export class ConnectRefusedError extends SwitchboardError {
  override name = 'ConnectRefusedError';
  constructor(
    readonly reason: string,
    /** Whether trying again later can succeed (a busy slot), or not (credentials). */
    readonly retryable: boolean,
  ) {
    super(`connect refused: ${reason}`);
  }
}
