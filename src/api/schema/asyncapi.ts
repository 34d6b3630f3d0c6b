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
  /** The message's headers (a webhook delivery's HTTP headers); socket frames have none. */
  headers?: TSchema;
  examples?: { name: string; payload: unknown; headers?: Record<string, string> }[];
}

export interface AsyncApiInfo {
  /** The file name under /openapi/ (`voice-events` → /openapi/voice-events.json). */
  name: string;
  title: string;
  version: string;
  description: string;
  /** The socket's path (`/api/ws`); null where the client chooses it (a webhook's URL). */
  address: string | null;
  channelDescription: string;
  /** Protocol details of the channel, such as the `ws` upgrade's query parameters. */
  channelBindings?: Record<string, unknown>;
  /** Protocol details of the operation Switchboard sends with (`http`: the method). */
  sendBindings?: Record<string, unknown>;
  /**
   * Where the messages travel. By default this Switchboard's socket (`ws`), named by the address
   * it listens on when served; a webhook document names the receiver instead.
   */
  servers?: Record<string, Record<string, unknown>>;
  securitySchemes: Record<string, unknown>;
}

/**
 * An AsyncAPI 3.0 document for one event channel (a socket, or the webhook deliveries), from
 * Switchboard's point of view: `send` operations are what the server sends, `receive` operations
 * are frames it accepts.
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
      ...(m.headers ? { headers: hoist(m.headers, schemas) } : {}),
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
      ...(action === 'send' && info.sendBindings ? { bindings: info.sendBindings } : {}),
    };
  }
  const security = Object.keys(info.securitySchemes).map((k) => ({
    $ref: `#/components/securitySchemes/${k}`,
  }));
  return {
    asyncapi: '3.0.0',
    info: { title: info.title, version: info.version, description: info.description },
    defaultContentType: 'application/json',
    servers: info.servers ?? {
      switchboard: {
        host: 'localhost:8080',
        protocol: 'ws',
        description: 'A local Switchboard (`wss` when it serves TLS).',
        security,
      },
    },
    channels: {
      [channel]: {
        address: info.address,
        description: info.channelDescription,
        ...(info.channelBindings ? { bindings: hoist(info.channelBindings, schemas) } : {}),
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
