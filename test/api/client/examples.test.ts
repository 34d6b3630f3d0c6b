// Runs each example as a user would (`tsx examples/<name>.ts --url ...`) against a test server,
// drives calls through the simulator and checks the lines the example prints.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { sim } from '../ccs/cc-client.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Running {
  child: ChildProcess;
  lines: string[];
  /** Waits until a printed line matches (bounded by a real-time limit). */
  line(match: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<number | null>;
}

function run(example: string, args: string[]): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${example}.ts`, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters) w();
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    lines,
    line(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((l) => match.test(l));
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${example} printed no line matching ${match}:\n${lines.join('\n')}\n${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

describe('the examples', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  test('screen-pop prints the caller of each offered call', async () => {
    const app = run('screen-pop', ['--url', s.httpUrl]);
    try {
      await app.line(/^screen-pop: watching ALL_USERS@1001 as 100@1001$/);
      // An outside caller reaches the Sales queue; the longest-idle agent (101) is offered the call.
      await sim(s, 'pstn/calls', { from: '+15551230001', to: '+15555550150', callerName: 'Pat Caller' });
      const line = await app.line(/^offer to /);
      assert.match(
        line,
        /^offer to 101@1001: Pat Caller <\+15551230001> \(dialed \+15555550150, call \d+\)$/,
      );
      // An internal call: Erin's phone dials Carol.
      await sim(s, 'devices/ph1001-104/dial', { to: '102' });
      assert.match(
        await app.line(/^offer to 102@1001/),
        /^offer to 102@1001: Erin Evans <104> \(dialed 102, call \d+\)$/,
      );
    } finally {
      assert.equal(await app.stop(), 0);
    }
  });

  test('wallboard prints the queues and agents, then every change', async () => {
    await sim(s, 'reset');
    const app = run('wallboard', ['--url', s.httpUrl]);
    try {
      await app.line(/^wallboard: Acme Corp$/);
      await app.line(/^queue Sales \(500\): waiting 0$/);
      await app.line(/^queue Support \(501\): waiting 0$/);
      for (const a of ['101 Bob Brown', '102 Carol Chen', '103 Dan Diaz', '104 Erin Evans']) {
        await app.line(new RegExp(`^agent ${a}: Ready, phone Idle, queue None$`));
      }
      await sim(s, 'pstn/calls', { from: '+15551230002', to: '+15555550150' });
      await app.line(/^queue Sales \(500\): waiting 1, longest 00:00:00, signed in 3, ready 3, busy 0$/);
      await app.line(/^agent 101 Bob Brown: Ready, phone Ringing, queue Offered \(Sales\)$/);
      await sim(s, 'devices/ph1001-101/answer');
      await app.line(/^agent 101 Bob Brown: Ready, phone Talking, queue Connected \(Sales\)$/);
      await app.line(/^queue Sales \(500\): waiting 0, /);
    } finally {
      assert.equal(await app.stop(), 0);
    }
  });
});
