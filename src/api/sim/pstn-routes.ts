import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import type { SimRuntime } from './sim-runtime.js';
import { noContent, refusal, simRoute } from './sim-route.js';
import type { PlaceOf } from '../route-core/placement.js';
import { acrossCluster, PSTN_CALLS } from './cluster-state.js';
import {
  PstnCallParamsSchema,
  PstnNumberParamsSchema,
  SimDigitsSchema,
  SimPstnCallCreatedSchema,
  SimPstnCallListSchema,
  SimPstnCallRequestSchema,
  SimPstnCallSchema,
  SimPstnBehaviourSchema,
  type SimPstnNumber,
  SimPstnNumberListSchema,
  SimPstnNumberSchema,
} from './sim-schemas.js';

const NO_CALL = refusal('`PSTN_CALL_NOT_FOUND`.');

/** The outside world: callers dialing in, outside parties answering, numbers' behaviour. */
export async function pstnRoutes(app: FastifyInstance, { runtime }: { runtime: SimRuntime }) {
  const sw = runtime.switch;
  // In a cluster, an outside call is on the node running its tenant, which the id does not name:
  // a request for one held elsewhere is asked of every node (route-core/placement.ts).
  const callHere: PlaceOf = (_req, params) =>
    sw.pstnCalls().some((c) => c.pstnCallId === params.pstnCallId) ? undefined : { anywhere: true };

  simRoute(app, runtime, {
    method: 'POST',
    url: '/pstn/calls',
    operationId: 'pstnCall',
    summary: 'An outside caller dials a DID',
    tag: 'pstn',
    body: SimPstnCallRequestSchema,
    responses: {
      '201': {
        description: 'The outside leg exists.',
        schema: SimPstnCallCreatedSchema,
        headers: {
          Location: { description: 'The new outside call.', schema: Type.String(), required: true },
        },
      },
      '400': refusal('`INVALID_BODY`, `MISSING_FROM`, `MISSING_TO`, `INVALID_<FIELD>`, `INVALID_NUMBER`.'),
      '404': refusal('`NUMBER_NOT_FOUND`: `to` is no DID of any tenant.'),
    },
    // The tenant whose DID is dialed runs the call.
    placeByBody: (body) => {
      const to = (body as { to?: unknown } | null)?.to;
      return typeof to === 'string' ? runtime.directory.didByNumber(to)?.tenantId : undefined;
    },
    handler: async ({ body }, req, reply) => {
      const { pstnCallId } = sw.pstnCall(body);
      return reply
        .code(201)
        .header('location', `${req.url.split('?')[0]}/${pstnCallId}`)
        .send({ pstnCallId });
    },
  });

  simRoute(app, runtime, {
    method: 'GET',
    url: '/pstn/calls',
    operationId: 'listPstnCalls',
    summary: 'The outside legs',
    tag: 'pstn',
    responses: { '200': { description: 'Every outside leg.', schema: SimPstnCallListSchema } },
    // In a cluster, every node's outside calls (each node asked answers its own).
    handler: (_input, req) => acrossCluster(runtime.placement, req, { calls: sw.pstnCalls() }, PSTN_CALLS),
  });

  simRoute(app, runtime, {
    method: 'GET',
    url: '/pstn/calls/:pstnCallId',
    operationId: 'getPstnCall',
    summary: 'One outside leg',
    tag: 'pstn',
    params: PstnCallParamsSchema,
    place: callHere,
    responses: { '200': { description: 'The outside leg.', schema: SimPstnCallSchema }, '404': NO_CALL },
    handler: async ({ params }) => {
      const call = sw.pstnCalls().find((c) => c.pstnCallId === params.pstnCallId);
      if (!call) throw notFound('PSTN_CALL_NOT_FOUND', `No outside call ${params.pstnCallId}`);
      return call;
    },
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/pstn/calls/:pstnCallId/answer',
    operationId: 'pstnAnswer',
    summary: 'The outside party answers',
    description: 'Answers a call placed to an outside number set to manual answer.',
    tag: 'pstn',
    params: PstnCallParamsSchema,
    place: callHere,
    responses: {
      '204': { description: 'Answered.' },
      '404': NO_CALL,
      '409': refusal('`CALL_NOT_RINGING`.'),
    },
    handler: noContent(({ params }) => sw.pstnAnswer(params.pstnCallId)),
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/pstn/calls/:pstnCallId/hangup',
    operationId: 'pstnHangup',
    summary: 'The outside party hangs up',
    tag: 'pstn',
    params: PstnCallParamsSchema,
    place: callHere,
    responses: { '204': { description: 'Hung up.' }, '404': NO_CALL },
    handler: noContent(({ params }) => sw.pstnHangup(params.pstnCallId)),
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/pstn/calls/:pstnCallId/digits',
    operationId: 'pstnDigits',
    summary: 'DTMF from the outside party',
    tag: 'pstn',
    params: PstnCallParamsSchema,
    place: callHere,
    body: SimDigitsSchema,
    responses: {
      '204': { description: 'Sent.' },
      '400': refusal('`INVALID_BODY`, `MISSING_DIGITS`, `INVALID_DIGITS`.'),
      '404': NO_CALL,
      '409': refusal('`CALL_NOT_CONNECTED`: the outside call is not answered.'),
    },
    handler: noContent(({ params, body }) => sw.pstnDigits(params.pstnCallId, body.digits)),
  });

  simRoute(app, runtime, {
    method: 'GET',
    url: '/pstn/numbers',
    operationId: 'listPstnNumbers',
    summary: 'Outside numbers with a behaviour set',
    tag: 'pstn',
    responses: { '200': { description: 'The numbers.', schema: SimPstnNumberListSchema } },
    handler: async () => ({ numbers: sw.snapshot().pstnNumbers satisfies SimPstnNumber[] }),
  });

  simRoute(app, runtime, {
    method: 'PUT',
    url: '/pstn/numbers/:number',
    operationId: 'setPstnNumber',
    summary: 'How an outside number behaves when called',
    description: 'By default an outside number answers automatically after 2000 ms.',
    tag: 'pstn',
    params: PstnNumberParamsSchema,
    // The outside world is every node's: each sets the number.
    place: () => ({ everywhere: true }),
    body: SimPstnBehaviourSchema,
    responses: {
      '200': { description: 'What was stored, under the canonical number.', schema: SimPstnNumberSchema },
      '400': refusal(
        '`INVALID_NUMBER`, `INVALID_BODY`, `MISSING_ANSWER`, `INVALID_ANSWER`, `INVALID_ANSWER_AFTER_MS`, ' +
          '`INVALID_BUSY`.',
      ),
    },
    handler: async ({ params, body }) => sw.setPstnNumber(params.number, body) satisfies SimPstnNumber,
  });
}
