import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import type { Runtime } from '../../server/runtime.js';
import { boolField, intField, objectBody, oneOf, stringField } from './body.js';

type CallParams = { Params: { pstnCallId: string } };

/** The outside world: callers dialing in, outside parties answering, numbers' behaviour. */
export async function pstnRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const sw = runtime.switch;
  const find = (id: string) => {
    const call = sw.pstnCalls().find((c) => c.pstnCallId === id);
    if (!call) throw notFound('PSTN_CALL_NOT_FOUND', `No outside call ${id}`);
    return call;
  };

  app.post('/pstn/calls', async (req, reply) => {
    const b = objectBody(req.body, true);
    const from = stringField(b, 'from', { required: true })!;
    const to = stringField(b, 'to', { required: true })!;
    const callerName = stringField(b, 'callerName');
    const { pstnCallId } = sw.pstnCall({ from, to, callerName });
    return reply
      .code(201)
      .header('location', `${req.url.split('?')[0]}/${pstnCallId}`)
      .send({ pstnCallId });
  });

  app.get('/pstn/calls', async () => ({ calls: sw.pstnCalls() }));

  app.get<CallParams>('/pstn/calls/:pstnCallId', async (req) => find(req.params.pstnCallId));

  app.post<CallParams>('/pstn/calls/:pstnCallId/answer', async (req, reply) => {
    sw.pstnAnswer(req.params.pstnCallId);
    return reply.code(204).send();
  });

  app.post<CallParams>('/pstn/calls/:pstnCallId/hangup', async (req, reply) => {
    sw.pstnHangup(req.params.pstnCallId);
    return reply.code(204).send();
  });

  app.post<CallParams>('/pstn/calls/:pstnCallId/digits', async (req, reply) => {
    const b = objectBody(req.body, true);
    sw.pstnDigits(req.params.pstnCallId, stringField(b, 'digits', { required: true })!);
    return reply.code(204).send();
  });

  app.get('/pstn/numbers', async () => ({ numbers: sw.snapshot().pstnNumbers }));

  app.put<{ Params: { number: string } }>('/pstn/numbers/:number', async (req) => {
    const b = objectBody(req.body, true);
    const answer = oneOf(b, 'answer', ['manual', 'auto'] as const)!;
    const answerAfterMs = intField(b, 'answerAfterMs', 0, 86_400_000, false);
    const busy = boolField(b, 'busy');
    return sw.setPstnNumber(req.params.number, { answer, answerAfterMs, busy });
  });
}
