import { Type } from '@sinclair/typebox';
import { type ApiDocumentInfo, basicSecurity } from '../schema/openapi.js';
import examples from './openapi-examples.json' with { type: 'json' };
import { SimErrorSchema } from './sim-schemas.js';

/** The simulator control API's OpenAPI document (/openapi/simulator.json). */
export const SIM_OPENAPI: ApiDocumentInfo = {
  name: 'simulator',
  title: 'Switchboard simulator control API',
  version: '1.0.0',
  description:
    'Phones, outside callers and time, under /sim/v1: what tests and the live console ' +
    'drive. On by default, off with `--no-sim`. Every failure is `{"error": {"code", "message"}}`.',
  defaultContentType: 'application/json',
  examples,
  ...basicSecurity(
    'Basic authentication of an unscoped telco administrator (SystemManagement or ' +
      'TenantBasicOrAdvanceManagement), e.g. the demo `admin:admin`.',
  ),
  tags: [
    { name: 'control', description: 'Reset, the state snapshot, the clock and text-message counting.' },
    { name: 'devices', description: 'What a phone does: answer, hang up, dial, send DTMF, log in and out.' },
    { name: 'pstn', description: 'The public network: outside callers and outside numbers.' },
  ],
  notFound: {
    description: 'The answer to a request under /sim/v1 that matches no path and method of this document.',
    schema: Type.Intersect([
      SimErrorSchema,
      Type.Object({ error: Type.Object({ code: Type.Literal('NOT_FOUND') }) }),
    ]),
  },
};
