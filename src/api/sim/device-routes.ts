import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import type { Runtime } from '../../server/runtime.js';
import { objectBody, stringField } from './body.js';

type DeviceParams = { Params: { deviceId: string } };
const CALL_ID = /^[0-9]{1,20}$/;

/** What a phone does: answer, hang up, dial, send DTMF, log in and out. */
export async function deviceRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const sw = runtime.switch;

  app.get<DeviceParams>('/devices/:deviceId', async (req) => {
    const d = sw.snapshot().devices.find((x) => x.deviceId === req.params.deviceId);
    if (!d) throw notFound('DEVICE_NOT_FOUND', `No device ${req.params.deviceId}`);
    return d;
  });

  app.post<DeviceParams>('/devices/:deviceId/answer', async (req) => {
    const b = objectBody(req.body, false);
    const callObserverId = stringField(b, 'callObserverId', { pattern: CALL_ID });
    return { call: sw.deviceAnswer(req.params.deviceId, callObserverId) };
  });

  app.post<DeviceParams>('/devices/:deviceId/hangup', async (req, reply) => {
    const b = objectBody(req.body, false);
    const callObserverId = stringField(b, 'callObserverId', { pattern: CALL_ID });
    sw.deviceHangup(req.params.deviceId, callObserverId);
    return reply.code(204).send();
  });

  app.post<DeviceParams>('/devices/:deviceId/dial', async (req, reply) => {
    const b = objectBody(req.body, true);
    const to = stringField(b, 'to', { required: true })!;
    return reply.code(201).send({ call: sw.deviceDial(req.params.deviceId, to) });
  });

  app.post<DeviceParams>('/devices/:deviceId/digits', async (req, reply) => {
    const b = objectBody(req.body, true);
    sw.deviceDigits(req.params.deviceId, stringField(b, 'digits', { required: true })!);
    return reply.code(204).send();
  });

  app.post<DeviceParams>('/devices/:deviceId/register', async (req) => {
    sw.registerDevice(req.params.deviceId);
    return { deviceId: req.params.deviceId, registered: true };
  });

  app.post<DeviceParams>('/devices/:deviceId/unregister', async (req) => {
    sw.unregisterDevice(req.params.deviceId);
    return { deviceId: req.params.deviceId, registered: false };
  });
}
