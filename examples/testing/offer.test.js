// docs/testing-with-switchboard.md's node:test example, as a file: `node --test` in a project
// with switchboard and @switchboard/client installed. Plain JavaScript, no build step.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createClient } from '@switchboard/client';
import { startSwitchboard } from '@switchboard/client/testing';

let sb;
before(async () => {
  sb = await startSwitchboard(); // a free port, a fresh database, the virtual clock
});
beforeEach(() => sb.reset()); // back to the demo world
after(() => sb.stop());

test('an outside call to Sales is offered to agent 101', async () => {
  const client = createClient({ url: sb.url, voice: { username: '100@1001', password: '1234' } });
  const watch = await client.voice.watch({ calls: ['ALL_USERS@1001'] });
  await sb.sim('POST', '/pstn/calls', { from: '+15551230001', to: '+15555550150', callerName: 'Pat' });
  for await (const update of watch) {
    if (update.type === 'event' && update.event.event === 'offer') {
      assert.equal(update.event.observedParty, '101@1001');
      assert.equal(update.event.callingName, 'Pat');
      break;
    }
  }
  await watch.close();
  await client.close();
});
