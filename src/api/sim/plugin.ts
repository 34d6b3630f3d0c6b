import type { FastifyInstance } from 'fastify';
import type { SimRuntime } from './sim-runtime.js';
import { parseJsonOrEmpty, requireJsonWrites } from '../schema/json-only.js';
import { capBodies } from '../schema/bounds.js';
import { requireTelcoAdmin } from './auth.js';
import { controlRoutes } from './control-routes.js';
import { deviceRoutes } from './device-routes.js';
import { registerSimErrors } from './errors.js';
import { SIM_OPENAPI } from './openapi-info.js';
import { pstnRoutes } from './pstn-routes.js';

/**
 * The simulator control API (docs/decisions.md §1.9), mounted at /sim/v1: phones, outside
 * callers and time, for tests and the console. Telco-admin Basic auth; errors as `{error: {code, message}}`.
 * Every route is documented in /openapi/simulator.json (see sim-route.ts).
 */
export async function simApi(app: FastifyInstance, opts: { runtime: SimRuntime }) {
  opts.runtime.docs.defineOpenApi(SIM_OPENAPI);
  registerSimErrors(app);
  capBodies(app, opts.runtime.config.bodyLimitBytes);
  // Writes are JSON or bodiless without a type: a web page cannot reset the simulator with a form.
  requireJsonWrites(app);
  // Bodyless POSTs are common here (answer, hangup, reset): an empty JSON body is no body.
  parseJsonOrEmpty(app);
  requireTelcoAdmin(app, opts.runtime.auth);
  // Only the runtime: the options of this plugin also carry its prefix.
  const routes = { runtime: opts.runtime };
  await app.register(controlRoutes, routes);
  await app.register(deviceRoutes, routes);
  await app.register(pstnRoutes, routes);
}
