import { Type } from '@sinclair/typebox';
import examples from './openapi-examples.json' with { type: 'json' };
import { type ApiDocumentInfo, basicSecurity } from '../schema/openapi.js';
import { PROBLEM_JSON } from './hal/problem.js';
import { ProblemSchema } from './hal/problem-schema.js';

/** The voice platform REST API's OpenAPI document (/openapi/voice.json). */
export const VOICE_OPENAPI: ApiDocumentInfo = {
  name: 'voice',
  title: 'Switchboard voice platform API',
  version: '1.0.0',
  description:
    "The hosted telephony platform's HAL REST API under /api: navigation, calls, subscription sets, " +
    'status resources and the provisioning resources behind every v1 link. Events arrive on the ' +
    'WebSocket /api/ws, described by the AsyncAPI document /openapi/voice-events.json.',
  defaultContentType: 'application/hal+json',
  examples,
  ...basicSecurity(
    'Basic authentication with a username (telco user, `<ext>@<tenantId>`, or a tenant user) and password or PIN.',
  ),
  tags: [
    { name: 'navigation', description: 'The API root, the v1 root and relation documents.' },
    { name: 'calls', description: 'Live calls and call control.' },
    { name: 'events', description: 'Subscription sets that select events for a WebSocket.' },
    {
      name: 'webhooks',
      description:
        'URLs the selected events are POSTed to, signed, with a delivery log (beyond the spec; the ' +
        'deliveries are described by /openapi/voice-webhooks.json).',
    },
    { name: 'status', description: 'The current state behind the events.' },
    { name: 'directory', description: 'Tenants, extensions, users and locations.' },
    { name: 'enums', description: 'The enumerations of the API.' },
    { name: 'messages', description: 'Messages to phones.' },
    { name: 'provisioning', description: 'The provisioned world behind the v1 links.' },
  ],
  notFound: {
    description: 'The answer to a request under /api that matches no path of this document (`NOT_FOUND`).',
    contentType: PROBLEM_JSON,
    schema: Type.Intersect([
      ProblemSchema,
      Type.Object({ status: Type.Literal(404), errorCode: Type.Literal('NOT_FOUND') }),
    ]),
  },
};
