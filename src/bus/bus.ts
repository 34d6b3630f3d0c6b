/**
 * Carries domain events from the switch (and the contact center) to subscribers: the WebSocket
 * gateways, the call-record writer, the console. In-process and synchronous by default; a
 * clustered bus implements the same interface (src/cluster/jetstream-bus.ts) and hands each
 * handler the event's stream sequence too, which the in-process bus has none of.
 */
export type Handler<E> = (event: E, seq?: number) => void;

export interface Bus<E> {
  publish(event: E): void;
  subscribe(handler: Handler<E>): () => void;
}

export class InProcessBus<E> implements Bus<E> {
  private handlers: Handler<E>[] = [];
  /** Errors thrown by a subscriber are reported here, never to the publisher. */
  constructor(private readonly onError: (e: unknown) => void = () => {}) {}

  publish(event: E): void {
    for (const h of this.handlers) {
      try {
        h(event);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  subscribe(handler: Handler<E>): () => void {
    this.handlers = [...this.handlers, handler];
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    };
  }
}
