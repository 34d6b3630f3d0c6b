import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import { principalName, requestPrincipal } from '../api/auth/request-principal.js';
import type { RequestMeter } from './request-meter.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that makes its pino child (with the request id) only when a line is logged
 * at an enabled level. Fastify makes one child per request, and at the usual `warn` level nearly
 * none ever logs: the eager child was a visible share of a cached-auth GET in the CPU profile.
 */
class RequestLogger {
  private made?: FastifyBaseLogger;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings) as FastifyBaseLogger);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  private log(level: Level, args: unknown[]): void {
    if (!this.made && !this.parent.isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]) {
    this.log('fatal', args);
  }
  error(...args: unknown[]) {
    this.log('error', args);
  }
  warn(...args: unknown[]) {
    this.log('warn', args);
  }
  info(...args: unknown[]) {
    this.log('info', args);
  }
  debug(...args: unknown[]) {
    this.log('debug', args);
  }
  trace(...args: unknown[]) {
    this.log('trace', args);
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: lazy unless the route asks for its own level or serializers. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  const pino = logger as unknown as Logger;
  if (hasKeys(opts) || typeof pino.isLevelEnabled !== 'function') return logger.child(bindings, opts);
  return new RequestLogger(pino, bindings) as unknown as FastifyBaseLogger;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * Fastify's lines for every request ("incoming request", "request completed") are `info`. Below
 * that level they are skipped before their objects and the response-time clock read are built;
 * an errored request is still logged at `error`, and every other Fastify line is unchanged.
 * The completion line (the access log) names the principal the request was authenticated as.
 * Fastify calls `requestCompleted` for every finished request anyway, so the request meter
 * records there and adds no hook of its own.
 */
export class RequestLogController extends LogController {
  constructor(
    private readonly log: Pick<Logger, 'isLevelEnabled'>,
    private readonly meter?: RequestMeter,
  ) {
    super();
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.log.isLevelEnabled('info')) super.incomingRequest(request, reply);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    this.meter?.record(request, reply);
    if (!error && !this.log.isLevelEnabled('info')) return;
    const p = requestPrincipal(request);
    const principal = p ? principalName(p) : undefined;
    const responseTime = reply.elapsedTime;
    if (error) reply.log.error({ res: reply, err: error, responseTime, principal }, 'request errored');
    else reply.log.info({ res: reply, responseTime, principal }, 'request completed');
  }
}
