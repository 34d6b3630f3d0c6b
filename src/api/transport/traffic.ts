import type { WebSocket } from 'ws';

/** One HTTP answer as it leaves the server. */
export interface ObservedResponse {
  method: string;
  /** The matched route in Fastify syntax (`/api/v1/calls/:callObserverId`); undefined when none matched. */
  route: string | undefined;
  url: string;
  status: number;
  contentType: string | undefined;
  /** The response headers, names in lower case. */
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** The event channels whose messages can be observed: the two sockets and the webhook POSTs. */
export type SocketChannel = 'voice-events' | 'contact-center-events' | 'voice-webhooks';

/**
 * Sees every JSON response, every frame a socket sends and every webhook delivery (body and
 * headers). The contract tests install one to check all traffic against the published OpenAPI
 * and AsyncAPI documents; production has none.
 */
export interface TrafficObserver {
  response(r: ObservedResponse): void;
  frame(channel: SocketChannel, text: string, headers?: Record<string, string>): void;
}

/**
 * Routes a socket's frames past the observer. Returns the socket's own `send`, for frames that
 * only mirror the client (the voice echo), which no document describes.
 */
export function observeFrames(
  ws: WebSocket,
  observer: TrafficObserver | undefined,
  channel: SocketChannel,
): WebSocket['send'] {
  const send = ws.send.bind(ws) as WebSocket['send'];
  if (!observer) return send;
  ws.send = ((data: unknown, ...rest: unknown[]) => {
    if (typeof data === 'string') observer.frame(channel, data);
    else if (Buffer.isBuffer(data)) observer.frame(channel, data.toString('utf8'));
    return (send as (...a: unknown[]) => void)(data, ...rest);
  }) as WebSocket['send'];
  return send;
}
