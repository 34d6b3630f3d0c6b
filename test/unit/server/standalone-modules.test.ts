/**
 * A standalone server never loads what only a cluster node needs (the NATS clients and
 * src/cluster): every module costs a cold start its read and compile (docs/benchmarks.md,
 * "Cold start"). The CLI starts a real standalone server in a child process whose module hook
 * writes every URL it resolves; the server is stopped once it listens.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Registers a resolve hook that writes each resolved URL to stderr, one per line, marked. */
const HOOKS = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  writeSync(2, 'resolved ' + r.url + '\\n');
  return r;
}`;
const REGISTER = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

function startAndStop(
  args: string[],
): Promise<{ resolved: string[]; listened: boolean; code: number | null }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(REGISTER)}`,
        '--import',
        'tsx',
        'src/cli/main.ts',
        ...args,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const resolved: string[] = [];
    let listened = false;
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const lines = err.split('\n');
      err = lines.pop()!;
      for (const l of lines) if (l.startsWith('resolved ')) resolved.push(l.slice('resolved '.length));
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (!listened && d.includes('listening on')) {
        listened = true;
        child.kill('SIGINT');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ resolved, listened, code });
    });
  });
}

describe('a standalone server loads no cluster module', () => {
  it('starts, listens and stops without resolving @nats-io or src/cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-standalone-modules-'));
    try {
      const run = await startAndStop([
        'serve',
        '--port',
        '0',
        '--db',
        join(dir, 'sb.db'),
        '--log-level',
        'silent',
      ]);
      assert.ok(run.listened, 'the server listened');
      assert.equal(run.code, 0);
      // The hook saw the server's own modules: the check below is not vacuous.
      assert.ok(run.resolved.some((u) => u.endsWith('/src/server/runtime.ts')));
      assert.ok(run.resolved.some((u) => u.includes('/node_modules/fastify/')));
      const cluster = run.resolved.filter((u) => u.includes('/@nats-io/') || u.includes('/src/cluster/'));
      assert.deepEqual(cluster, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
