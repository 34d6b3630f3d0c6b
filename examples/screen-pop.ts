// Screen pop: prints the caller of every call offered to the watched extensions, live.
//
//   npx tsx examples/screen-pop.ts --url http://localhost:8080 [--user 100@1001] [--password 1234]
//                                  [--watch 101@1001,102@1001]
//
// By default a tenant admin watches every user and location of their tenant (ALL_USERS@<tenant>).
// A user without admin rights may watch only their own extension: --user 101@1001 --watch 101@1001.
import { parseArgs } from 'node:util';
import { VoiceClient, type VoiceEvent } from '@switchboard/client';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    user: { type: 'string', default: '100@1001' },
    password: { type: 'string', default: '1234' },
    help: { type: 'boolean', short: 'h' },
    watch: { type: 'string' },
  },
});

type Offer = Extract<VoiceEvent, { event: 'offer' }>;

/** One line per offered call: who is ringing, and who is calling. */
function screenPopLine(offer: Offer): string {
  const caller = offer.callingName ? `${offer.callingName} <${offer.from}>` : offer.from;
  return `offer to ${offer.observedParty}: ${caller} (dialed ${offer.dialedDigits}, call ${offer.smdrCallId})`;
}

async function main(): Promise<void> {
  if (args.help)
    return void console.log(
      'usage: npx tsx examples/screen-pop.ts [--url http://127.0.0.1:8080] [--user 100@1001] [--password 1234] [--watch 101@1001,...]',
    );
  const voice = new VoiceClient({
    url: args.url,
    username: args.user,
    password: args.password,
    application: 'screen-pop/1.0',
  });
  const root = await voice.root();
  const accounts = args.watch ? args.watch.split(',') : [`ALL_USERS@${root.tenantId}`];
  const watch = await voice.watch({ calls: accounts });
  const stream = await voice.events();
  stream.on('reconnecting', ({ attempt, delayMs }) =>
    console.error(`screen-pop: connection lost, reconnecting (attempt ${attempt}, in ${delayMs} ms)`),
  );
  stream.on('connected', ({ reconnect }) => reconnect && console.error('screen-pop: reconnected'));
  const { activeCalls, callActivity } = watch.initial;
  for (const call of activeCalls) console.log(`active call of ${call.accountId}: ${call.from} -> ${call.to}`);
  // A tenant admin's call list holds only their own calls: of the others, only "busy" is known.
  const listed = new Set(activeCalls.map((c) => c.accountId));
  for (const { accountId } of callActivity.filter((a) => a.callActivity === 'busy')) {
    if (!listed.has(accountId)) console.log(`${accountId} is in a call that started before the watch`);
  }
  console.log(`screen-pop: watching ${accounts.join(', ')} as ${args.user}`);

  const stop = async () => {
    await watch.close().catch(() => {});
    await voice.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  for await (const update of watch) {
    if (update.type === 'event' && update.event.event === 'offer') console.log(screenPopLine(update.event));
  }
}

main().catch((e: unknown) => {
  console.error(`screen-pop: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
