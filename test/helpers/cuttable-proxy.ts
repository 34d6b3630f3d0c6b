import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** A TCP proxy to NATS that can be cut (every connection dropped, new ones refused) and mended. */
export class CuttableProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  port = 0;

  constructor(upstream: URL) {
    this.server = createServer((client) => {
      if (this.isCut) return client.destroy();
      const up = tcpConnect(Number(upstream.port || 4222), upstream.hostname);
      client.pipe(up);
      up.pipe(client);
      for (const s of [client, up]) {
        this.sockets.add(s);
        s.on('error', () => {}).on('close', () => {
          this.sockets.delete(s);
          [client, up].forEach((x) => x.destroy());
        });
      }
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return `nats://127.0.0.1:${this.port}`;
  }

  cut(): void {
    this.isCut = true;
    for (const s of this.sockets) s.destroy();
  }

  mend(): void {
    this.isCut = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}
