import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../server/runtime.js';

/** PLACEHOLDER: routes arrive with their issue. */
export async function ccsApi(_app: FastifyInstance, _opts: { runtime: Runtime }) {}
