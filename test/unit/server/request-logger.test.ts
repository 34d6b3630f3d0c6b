import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { RequestLogController, requestLoggerFactory } from '../../../src/server/request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level }, stream) as unknown as FastifyBaseLogger, lines };
}

describe('request logger', () => {
  test('a line below the level is dropped; one at or above carries the request id', () => {
    const { log, lines } = capture('warn');
    const req = requestLoggerFactory(log, { reqId: 'r-1' }, {});
    req.info('incoming request');
    req.debug('detail');
    assert.equal(lines.length, 0);
    req.error({ err: new Error('boom') }, 'request failed');
    req.warn('slow');
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.level]),
      [
        ['r-1', 'request failed', 50],
        ['r-1', 'slow', 40],
      ],
    );
    assert.equal((lines[0].err as { message: string }).message, 'boom');
  });

  test('it reports and changes its level, and makes children with both bindings', () => {
    const { log, lines } = capture('warn');
    const req = requestLoggerFactory(log, { reqId: 'r-2' }, {});
    assert.equal(req.level, 'warn');
    req.level = 'info';
    req.info('now shown');
    req.child({ part: 'x' }).info('from a child');
    assert.equal(log.level, 'warn');
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.part, l.msg]),
      [
        ['r-2', undefined, 'now shown'],
        ['r-2', 'x', 'from a child'],
      ],
    );
  });

  test('route options (a level of its own) give a plain pino child', () => {
    const { log, lines } = capture('warn');
    const req = requestLoggerFactory(log, { reqId: 'r-3' }, { level: 'debug' });
    req.debug('shown at the route level');
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg]),
      [['r-3', 'shown at the route level']],
    );
  });

  test('per-request lines are skipped below info; an errored request is still logged', () => {
    const { log, lines } = capture('warn');
    const controller = new RequestLogController(log as never);
    const reqLog = requestLoggerFactory(log, { reqId: 'r-4' }, {});
    const request = { log: reqLog, raw: {} } as unknown as FastifyRequest;
    const reply = { log: reqLog, statusCode: 500, elapsedTime: 1 } as unknown as FastifyReply;
    controller.incomingRequest(request, reply);
    controller.requestCompleted(null, request, reply);
    assert.equal(lines.length, 0);
    controller.requestCompleted(new Error('boom'), request, reply);
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.level]),
      [['r-4', 'request errored', 50]],
    );
    const verbose = capture('info');
    const chatty = new RequestLogController(verbose.log as never);
    const infoLog = requestLoggerFactory(verbose.log, { reqId: 'r-5' }, {});
    chatty.incomingRequest({ log: infoLog, raw: {} } as unknown as FastifyRequest, reply);
    assert.deepEqual(
      verbose.lines.map((l) => [l.reqId, l.msg]),
      [['r-5', 'incoming request']],
    );
  });
});
