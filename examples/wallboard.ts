// Wallboard: prints the queues and agents of a contact-center tenant, and every change, live.
//
//   npx tsx examples/wallboard.ts --url http://localhost:8080 [--user 100@1001] [--password 1234]
//                                 [--tenant <tenant uuid>]
//
// A tenant admin sees their own tenant; a telco user (--user admin --password admin) names one
// with --tenant.
import { parseArgs } from 'node:util';
import {
  type AgentView,
  CcClient,
  type CcState,
  type QueueStatisticsData,
  type QueueView,
} from '@switchboard/client';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    user: { type: 'string', default: '100@1001' },
    password: { type: 'string', default: '1234' },
    help: { type: 'boolean', short: 'h' },
    tenant: { type: 'string' },
  },
});

function agentLine(a: Pick<AgentView, 'extension' | 'name' | 'agent_state' | 'phone_state' | 'queue_state'>) {
  const queue = a.queue_state.queue ? ` (${a.queue_state.queue})` : '';
  return (
    `agent ${a.extension} ${a.name}: ${a.agent_state.state.name}, ` +
    `phone ${a.phone_state.state}, queue ${a.queue_state.state}${queue}`
  );
}

function queueLine(q: QueueView): string {
  return `queue ${q.name} (${q.extension}): waiting ${q.waiting ?? '?'}`;
}

function queueStatsLine(s: QueueStatisticsData): string {
  return (
    `queue ${s.queue_name} (${s.extension}): waiting ${s.waiting}, longest ${s.longest_wait}, ` +
    `signed in ${s.agents_signed_in}, ready ${s.agents_ready}, busy ${s.agents_busy}`
  );
}

function printState(state: CcState): void {
  console.log(`wallboard: ${state.tenant.name}`);
  for (const q of state.queues) console.log(queueLine(q));
  for (const a of state.agents) console.log(agentLine(a));
}

async function main(): Promise<void> {
  if (args.help)
    return void console.log(
      'usage: npx tsx examples/wallboard.ts [--url http://127.0.0.1:8080] [--user 100@1001] [--password 1234] [--tenant <uuid>]',
    );
  const cc = new CcClient({
    url: args.url,
    username: args.user,
    password: args.password,
    application: 'wallboard/1.0',
  });
  // Only what a wallboard shows: agent and queue events (call events stay on the server).
  const stream = await cc.events(['agent', 'inbound_queue']);
  stream.on('reconnecting', ({ attempt, delayMs }) =>
    console.error(`wallboard: connection lost, reconnecting (attempt ${attempt}, in ${delayMs} ms)`),
  );
  const watch = await cc.watch({ tenantUuid: args.tenant });
  printState(watch.initial);

  const stop = async () => {
    watch.close();
    await cc.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  for await (const update of watch) {
    if (update.type === 'resync') {
      console.log('wallboard: reconnected, state read again');
      printState(update.state);
      continue;
    }
    const e = update.event;
    if (e.category === 'agent') console.log(agentLine(e.data));
    else if (e.category === 'inbound_queue') console.log(queueStatsLine(e.data));
  }
}

main().catch((e: unknown) => {
  console.error(`wallboard: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
