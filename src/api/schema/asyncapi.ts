import type { TSchema } from '@sinclair/typebox';
import { hoist } from './openapi.js';

export interface MessageDoc {
  /** The component name (`callEvent`). */
  name: string;
  title: string;
  summary: string;
  payload: TSchema;
  /** `send`: Switchboard sends it to the client. `receive`: the client sends it. */
  action: 'send' | 'receive';
  examples?: { name: string; payload: unknown }[];
}

export interface AsyncApiInfo {
  /** The file name under /openapi/ (`voice-events` → /openapi/voice-events.json). */
  name: string;
  title: string;
  version: string;
  description: string;
  /** The socket's path (`/api/ws`). */
  address: string;
  channelDescription: string;
  securitySchemes: Record<string, unknown>;
}

/**
 * An AsyncAPI 3.0 document for one event socket, from Switchboard's point of view: `send`
 * operations are frames the server sends, `receive` operations are frames it accepts.
 */
export function renderAsyncApi(info: AsyncApiInfo, messages: readonly MessageDoc[]): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const componentsMessages: Record<string, unknown> = {};
  for (const m of messages) {
    componentsMessages[m.name] = {
      name: m.name,
      title: m.title,
      summary: m.summary,
      contentType: 'application/json',
      payload: hoist(m.payload, schemas),
      ...(m.examples ? { examples: m.examples } : {}),
    };
  }
  const channel = 'socket';
  const operations: Record<string, unknown> = {};
  for (const action of ['send', 'receive'] as const) {
    const own = messages.filter((m) => m.action === action);
    if (!own.length) continue;
    operations[action === 'send' ? 'serverSends' : 'serverReceives'] = {
      action,
      title: action === 'send' ? 'Frames Switchboard sends' : 'Frames a client sends',
      channel: { $ref: `#/channels/${channel}` },
      messages: own.map((m) => ({ $ref: `#/channels/${channel}/messages/${m.name}` })),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: { title: info.title, version: info.version, description: info.description },
    defaultContentType: 'application/json',
    servers: {
      switchboard: {
        host: 'localhost:8080',
        protocol: 'ws',
        description: 'A local Switchboard (`wss` when it serves TLS).',
        security: Object.keys(info.securitySchemes).map((k) => ({
          $ref: `#/components/securitySchemes/${k}`,
        })),
      },
    },
    channels: {
      [channel]: {
        address: info.address,
        description: info.channelDescription,
        messages: Object.fromEntries(
          messages.map((m) => [m.name, { $ref: `#/components/messages/${m.name}` }]),
        ),
      },
    },
    operations,
    components: {
      securitySchemes: info.securitySchemes,
      messages: componentsMessages,
      schemas,
    },
  };
}
