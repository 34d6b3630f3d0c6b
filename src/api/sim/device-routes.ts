import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import type { SimRuntime } from './sim-runtime.js';
import { noContent, refusal, simRoute } from './sim-route.js';
import {
  DeviceParamsSchema,
  SimCallChoiceSchema,
  SimDeviceSchema,
  SimDialSchema,
  SimDigitsSchema,
  type SimLegResult,
  SimLegResultSchema,
  type SimRegistration,
  SimRegistrationSchema,
} from './sim-schemas.js';

const NO_DEVICE = refusal('`DEVICE_NOT_FOUND`.');

/** What a phone does: answer, hang up, dial, send DTMF, log in and out. */
export async function deviceRoutes(app: FastifyInstance, { runtime }: { runtime: SimRuntime }) {
  const sw = runtime.switch;

  simRoute(app, runtime, {
    method: 'GET',
    url: '/devices/:deviceId',
    operationId: 'getDevice',
    summary: 'One phone',
    tag: 'devices',
    params: DeviceParamsSchema,
    responses: { '200': { description: 'The phone.', schema: SimDeviceSchema }, '404': NO_DEVICE },
    handler: async ({ params }) => {
      const d = sw.snapshot().devices.find((x) => x.deviceId === params.deviceId);
      if (!d) throw notFound('DEVICE_NOT_FOUND', `No device ${params.deviceId}`);
      return d;
    },
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/devices/:deviceId/answer',
    operationId: 'deviceAnswer',
    summary: 'The phone answers',
    description: 'Answers the ringing call, or the one named.',
    tag: 'devices',
    params: DeviceParamsSchema,
    body: SimCallChoiceSchema,
    bodyRequired: false,
    responses: {
      '200': { description: "The phone's leg, connected.", schema: SimLegResultSchema },
      '400': refusal('`INVALID_BODY`, `INVALID_CALL_OBSERVER_ID`.'),
      '404': refusal('`DEVICE_NOT_FOUND`, `CALL_NOT_FOUND`.'),
      '409': refusal('`CALL_NOT_RINGING`: nothing rings on the phone.'),
    },
    handler: async ({ params, body }) =>
      ({ call: sw.deviceAnswer(params.deviceId, body.callObserverId) }) satisfies SimLegResult,
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/devices/:deviceId/hangup',
    operationId: 'deviceHangup',
    summary: 'The phone hangs up',
    description: 'Hangs up the active call, or the one named.',
    tag: 'devices',
    params: DeviceParamsSchema,
    body: SimCallChoiceSchema,
    bodyRequired: false,
    responses: {
      '204': { description: 'Hung up.' },
      '400': refusal('`INVALID_BODY`, `INVALID_CALL_OBSERVER_ID`.'),
      '404': refusal('`DEVICE_NOT_FOUND`, `CALL_NOT_FOUND`.'),
      '409': refusal('`NO_ACTIVE_CALL`.'),
    },
    handler: noContent(({ params, body }) => sw.deviceHangup(params.deviceId, body.callObserverId)),
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/devices/:deviceId/dial',
    operationId: 'deviceDial',
    summary: 'The user dials from the phone',
    tag: 'devices',
    params: DeviceParamsSchema,
    body: SimDialSchema,
    responses: {
      '201': { description: "The caller's new leg.", schema: SimLegResultSchema },
      '400': refusal('`INVALID_BODY`, `MISSING_TO`, `INVALID_TO`, `INVALID_NUMBER`.'),
      '404': NO_DEVICE,
      '409': refusal('`DEVICE_NOT_REGISTERED`, `NO_FREE_LINE`.'),
    },
    handler: async ({ params, body }, _req, reply) =>
      reply.code(201).send({ call: sw.deviceDial(params.deviceId, body.to) } satisfies SimLegResult),
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/devices/:deviceId/digits',
    operationId: 'deviceDigits',
    summary: 'DTMF from the phone',
    description: 'To an auto attendant menu the phone is connected to.',
    tag: 'devices',
    params: DeviceParamsSchema,
    body: SimDigitsSchema,
    responses: {
      '204': { description: 'Sent.' },
      '400': refusal('`INVALID_BODY`, `MISSING_DIGITS`, `INVALID_DIGITS`.'),
      '404': NO_DEVICE,
      '409': refusal('`NO_ACTIVE_CALL`.'),
    },
    handler: noContent(({ params, body }) => sw.deviceDigits(params.deviceId, body.digits)),
  });

  for (const registered of [true, false]) {
    const verb = registered ? 'register' : 'unregister';
    simRoute(app, runtime, {
      method: 'POST',
      url: `/devices/:deviceId/${verb}`,
      operationId: registered ? 'deviceRegister' : 'deviceUnregister',
      summary: registered ? 'The phone logs in' : 'The phone logs out',
      tag: 'devices',
      params: DeviceParamsSchema,
      responses: {
        '200': { description: 'The registration now.', schema: SimRegistrationSchema },
        '404': NO_DEVICE,
      },
      handler: async ({ params }) => {
        if (registered) sw.registerDevice(params.deviceId);
        else sw.unregisterDevice(params.deviceId);
        // Other nodes list the phone from its event: stored before the answer, they show it then.
        await runtime.eventsStored?.();
        return { deviceId: params.deviceId, registered } satisfies SimRegistration;
      },
    });
  }
}
