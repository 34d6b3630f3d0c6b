import type { ApiDocumentInfo } from '../schema/openapi.js';
import { NotFoundBodySchema } from './error-schemas.js';

const TOKEN_URL = '/6/v2/api/oauth/token';

/** The contact-center REST API's OpenAPI document (/openapi/contact-center.json). */
export const CC_OPENAPI: ApiDocumentInfo = {
  name: 'contact-center',
  title: 'Switchboard contact-center API',
  version: '6.2.0',
  description:
    'The contact-center REST API under /6/v2/api: tenant administration, agent state, call listing, ' +
    'search and control, click to call. Get a token at `POST /6/v2/api/oauth/token` and send it as ' +
    '`Authorization: Bearer <token>`. Each endpoint requires the permission `API` plus the permissions ' +
    'its description names. Telco users address a tenant by its uuid in the path; tenant-level users ' +
    'use the short paths. Errors: 400 `{success: false, reason}` (the call listing, single-call and ' +
    'call-search endpoints and startSuppression answer `success: true`), 401 `{status: 401, reason: ' +
    '"Unauthorized"}`, 403 and 404 `{success: false, reason}`, 500 `{success: true, reason: "Internal ' +
    'Server Error"}`. Events arrive on the WebSocket /6/v2/sock, described by the AsyncAPI document ' +
    '/openapi/contact-center-events.json.',
  defaultContentType: 'application/json',
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: `An opaque access token from \`POST ${TOKEN_URL}\` (valid one hour).`,
    },
    oauth: {
      type: 'oauth2',
      description: 'The same token, obtained through the OAuth 2.0 password grant.',
      flows: { password: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: {} } },
    },
  },
  security: [{ bearer: [] }, { oauth: [] }],
  tags: [
    { name: 'authentication', description: 'Access tokens.' },
    {
      name: 'tenants',
      description: 'Products, roles, tenants, queues, presence options, extensions, counters.',
    },
    { name: 'agents', description: 'Agent state and click to call.' },
    { name: 'calls', description: 'Call listing, search and control.' },
    { name: 'events', description: 'The event WebSocket.' },
  ],
  // Shaped like the voice and simulator documents' info (ApiDocumentInfo); the values are this API's.
  notFound: {
    description: 'The answer to a request under /6/v2 that matches no path and method of this document.',
    schema: NotFoundBodySchema,
  },
};
