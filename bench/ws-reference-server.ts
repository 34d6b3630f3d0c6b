// Plain `ws` references (docs/decisions.md §1.12), in their own process:
//   POST /op?to=<i>&seq=<n> sends one small JSON frame carrying n to socket i
//   POST /broadcast?n=<k> sends k frames of ~300 bytes to every socket
import { createServer } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

const sockets: WebSocket[] = [];
const wss = new WebSocketServer({ noServer: true });
const frame = JSON.stringify({
  event: 'agent_state_changed',
  category: 'agent',
  tenant_id: '5b0a0001-0000-4000-8000-000000001001',
  timestamp: '2026-01-05 09:00:00 AM',
  data: { extension: '101', agent_state: { state: { type: 'away', name: 'Break' }, duration: '00:00:00' } },
});
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  req.resume();
  req.on('end', () => {
    if (url.pathname === '/op') {
      sockets[Number(url.searchParams.get('to') ?? 0)]?.send(
        JSON.stringify({ event: 'hold', callId: Number(url.searchParams.get('seq') ?? 0), at: Date.now() }),
      );
    } else if (url.pathname === '/broadcast') {
      const n = Number(url.searchParams.get('n') ?? 1);
      for (let i = 0; i < n; i++) for (const s of sockets) s.send(frame);
    }
    res.end('{}');
  });
});
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => sockets.push(ws)));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
// A signal ends the process normally, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
