// A Switchboard server whose tenant admin 100 watches agent 101 on many contact-center sockets,
// and a trigger that flips 101's state: the load of the contact-center fan-out benchmarks
// (cc-fanout: against plain ws; continuity: resume on against resume off).
import { sleep, startSwitchboard, tempDb } from './lib.js';
import { fanout, http, openSockets } from './ws-lib.js';

const EXT_101 = '5b0a0002-0000-4000-8000-000010010101';

export async function ccSupervisors(
  name: string,
  supervisors: number,
  connect: Record<string, unknown> = {},
) {
  const sb = await startSwitchboard(tempDb(name), [
    '--ws-max',
    String(supervisors + 100),
    '--ws-per-client',
    String(supervisors + 100),
    // Every socket is opened before it connects: all of them wait in the pending pool at once.
    '--ws-pending-per-ip',
    String(supervisors + 100),
    '--ws-pending-max',
    String(supervisors + 100),
    '--limit-per-client',
    '1000',
    '--limit-inflight',
    '1000',
  ]);
  const base = `127.0.0.1:${sb.port}`;
  const tok = await http(
    'POST',
    `http://${base}/6/v2/api/oauth/token`,
    {},
    { grant_type: 'password', username: '100@1001', password: '1234' },
  );
  const token = tok.json.access_token as string;
  const sockets = await openSockets(`ws://${base}/6/v2/sock`, supervisors);
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((r) => {
          s.once('message', () => r());
          s.send(JSON.stringify({ request: 'connect', token, ...connect }));
        }),
    ),
  );
  for (const s of sockets) s.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
  await sleep(500);
  for (const s of sockets) s.removeAllListeners('message');
  let away = false;
  /** One agent-state change of 101: one event frame to every supervisor socket. */
  const changeState = async () => {
    away = !away;
    const r = await http(
      'POST',
      `http://${base}/6/v2/api/extensions/${EXT_101}`,
      { authorization: `Bearer ${token}` },
      { request: 'updateAgentState', name: away ? 'Break' : 'Ready' },
    );
    if (r.status !== 200) throw new Error(`agent state answered ${r.status} ${JSON.stringify(r.json)}`);
  };
  await fanout(sockets, changeState, 20);
  return { sb, sockets, changeState };
}

/** One round: `events` triggers fanned out to `sockets`, with the server's CPU time it took. */
export type FanRound = Awaited<ReturnType<typeof fanout>> & { serverCpuMicros: number };

export async function fanRound(
  server: { cpuMicros(): number },
  sockets: Parameters<typeof fanout>[0],
  trigger: () => Promise<void>,
  events: number,
): Promise<FanRound> {
  const cpu0 = server.cpuMicros();
  const fan = await fanout(sockets, trigger, events);
  return { ...fan, serverCpuMicros: server.cpuMicros() - cpu0 };
}

/**
 * A side's best round by wall clock and its best frames per server CPU-second: noise only ever
 * lowers a round, so each side is judged by its best (the receiving process can bound both
 * sides' wall-clock rates alike, hence the server's own cost as well).
 */
export function bestOf(rounds: FanRound[]): { best: FanRound; perCpu: number } {
  const perCpuSecond = (f: FanRound) => f.received / (f.serverCpuMicros / 1e6);
  const bestBy = (score: (f: FanRound) => number) => rounds.reduce((a, b) => (score(b) > score(a) ? b : a));
  return { best: bestBy((f) => f.framesPerSec), perCpu: perCpuSecond(bestBy(perCpuSecond)) };
}
