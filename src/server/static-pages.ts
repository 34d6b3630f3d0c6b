import type { FastifyInstance } from 'fastify';
import type { Runtime } from './runtime.js';

/** PLACEHOLDER: serves the browser tools from src/web (issue 7). */
export async function webPages(_app: FastifyInstance, _opts: { runtime: Runtime }) {}
