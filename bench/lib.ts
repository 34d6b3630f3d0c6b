import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = resolve(import.meta.dirname, '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

// ---- cores ------------------------------------------------------------------------------
// Servers run on core 0, the load generator (the benchmark process) on core 1, so neither
// steals the other's CPU. Without two cores or `taskset` (util-linux) nothing is pinned.

export const SERVER_CORE = 0;
export const CLIENT_CORE = 1;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const PINNING = cpus().length >= 2 && hasTaskset();

/** Pins this process (the load generator) to its own core. */
export function pinSelf(core = CLIENT_CORE): void {
  if (PINNING) execFileSync('taskset', ['-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

/**
 * `node <args>`, on `core` when pinning is possible. `BENCH_NODE_ARGS` adds node flags to every
 * server a benchmark starts (`--cpu-prof --cpu-prof-dir=…` profiles them all).
 */
function spawnNode(nodeArgs: string[], core: number | undefined, env?: Record<string, string>): ChildProcess {
  const args = [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...nodeArgs];
  const opts = {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  };
  return PINNING && core !== undefined
    ? spawn('taskset', ['-c', String(core), process.execPath, ...args], opts)
    : spawn(process.execPath, args, opts);
}

export interface Child {
  child: ChildProcess;
  port: number;
  /** CPU time (user + system) the child has used so far, in microseconds. */
  cpuMicros(): number;
  rssKiB(): number;
  /** Stops the process where it stands (SIGSTOP) until `resume`: it takes no CPU, no timer fires. */
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  stop(): Promise<void>;
}

/** Starts a child process that prints `listening <port>` and answers its port. */
export function startChild(
  args: string[],
  opts: { core?: number; match?: RegExp; env?: Record<string, string> } = {},
): Promise<Child> {
  const match = opts.match ?? /listening (?:on http:\/\/127\.0\.0\.1:)?(\d+)/;
  return new Promise((done, fail) => {
    const child = spawnNode(args, opts.core, opts.env);
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = match.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        done(handle(child, Number(m[1])));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => fail(new Error(`child exited (${code}): ${out}`)));
  });
}

/** Servers still running when the benchmark exits (a failed step included) are stopped with it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

function handle(child: ChildProcess, port: number): Child {
  running.add(child);
  child.once('exit', () => running.delete(child));
  // `taskset -c` execs node, so the child's pid is node's.
  const pid = child.pid!;
  const tick = 1e6 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);
  let paused = false;
  return {
    child,
    port,
    get paused() {
      return paused;
    },
    pause() {
      if (!paused && child.exitCode === null) child.kill('SIGSTOP');
      paused = true;
    },
    resume() {
      if (paused && child.exitCode === null) child.kill('SIGCONT');
      paused = false;
    },
    cpuMicros() {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * tick;
    },
    rssKiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Number(m?.[1] ?? 0);
    },
    stop() {
      if (child.exitCode !== null) return Promise.resolve();
      this.resume();
      child.removeAllListeners('exit');
      return new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * Runs `measure` with every server of `among` but `active` stopped. Servers pinned to one core
 * share it, so an idle one's timers and garbage collector would pause the one being measured. A
 * server just resumed first gets `settleMs` to run the timers that fell due while it was stopped.
 */
export async function alone<T>(
  active: Child,
  among: Child[],
  measure: () => Promise<T>,
  settleMs = 250,
): Promise<T> {
  for (const c of among) if (c !== active) c.pause();
  if (active.paused) {
    active.resume();
    await sleep(settleMs);
  }
  return measure();
}

/** A fresh temporary SQLite file for one benchmark run. */
export const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), `sb-bench-${name}-`)), 'bench.db');

/** Starts the built server (`dist/`) on a free port with warn-level logs and the given flags. */
export function startSwitchboard(db: string, flags: string[] = [], core: number | undefined = SERVER_CORE) {
  return startChild(
    ['dist/cli/main.js', 'serve', '--port', '0', '--db', db, '--log-level', 'warn', ...flags],
    { core },
  );
}

// ---- HTTP load --------------------------------------------------------------------------

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  /** Server CPU microseconds per request, when the server was given. */
  cpuPerRequest?: number;
  /** Share of the run's wall time the server spent on CPU (1 = its core was saturated). */
  serverBusy?: number;
}

export async function load(opts: {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
  rate?: number;
  server?: Child;
}): Promise<LoadResult> {
  const cpu0 = opts.server?.cpuMicros();
  const t0 = performance.now();
  const r = await autocannon({
    url: opts.url,
    headers: opts.headers,
    connections: opts.connections,
    duration: opts.durationS,
    overallRate: opts.rate,
  });
  const total = r.requests.total;
  const cpu = opts.server ? opts.server.cpuMicros() - cpu0! : 0;
  const wallMicros = (performance.now() - t0) * 1000;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    ...(opts.server && total > 0 ? { cpuPerRequest: cpu / total, serverBusy: cpu / wallMicros } : {}),
  };
}

export interface LatencyResult {
  /** Milliseconds, measured to the microsecond. */
  p50: number;
  p99: number;
  max: number;
  requests: number;
  /** Failed or not 2xx. */
  errors: number;
  /** Every successful request's latency (ms), in the order sent: windows pool them. */
  samples: number[];
}

/**
 * Latency at a fixed load: `rate` requests a second for `durationS`, each sent when it is due
 * whether or not the ones before it have been answered (open loop: a slow answer cannot lower the
 * load), over up to `connections` keep-alive connections. Latency runs from when a request was due
 * to the end of its answer, in microseconds (autocannon's are whole milliseconds).
 */
export async function fixedRate(o: {
  url: string;
  headers?: Record<string, string>;
  rate: number;
  durationS: number;
  connections?: number;
  /** Requests sent one after another before the window, unmeasured (default 20: the connections). */
  warmup?: number;
}): Promise<LatencyResult> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: o.connections ?? 16 });
  const once = (due: number) =>
    new Promise<number>((resolve) => {
      // A timer fires on the loop's millisecond clock, up to a millisecond before `due`: a request
      // sent early is timed from when it was sent (a negative latency once counted as a failure).
      const from = Math.min(due, performance.now());
      const req = httpRequest(o.url, { agent, headers: o.headers }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve(res.statusCode! >= 200 && res.statusCode! < 300 ? performance.now() - from : -1),
        );
      });
      req.on('error', () => resolve(-1));
      req.end();
    });
  for (let i = 0; i < (o.warmup ?? 20); i++) await once(performance.now());
  const total = Math.max(1, Math.round(o.rate * o.durationS));
  const t0 = performance.now() + 5;
  const pending: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / o.rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(once(due));
  }
  const all = await Promise.all(pending);
  agent.destroy();
  const ok = all.filter((ms) => ms >= 0);
  return {
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    max: Math.max(...ok),
    requests: all.length,
    errors: all.length - ok.length,
    samples: ok,
  };
}

export const basicHeader = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

export const median = (xs: readonly number[]) => percentile(xs, 50);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- report -----------------------------------------------------------------------------

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
  pinned: boolean;
}

export function machine(): Machine {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pinned: PINNING,
  };
}

export interface Check {
  what: string;
  measured: string;
  budget: string;
  pass: boolean;
  /** The bare reference measured in the same run, where there is one. */
  reference?: string;
}

/**
 * One benchmark's results: checks against the budgets of docs/decisions.md §1.12, printed as
 * a table and written to bench/results/<name>.json. `finish()` exits non-zero when a budget is missed.
 */
export class Report {
  private readonly checks: Check[] = [];
  private readonly figures: Record<string, unknown> = {};
  private readonly started = new Date();
  private readonly loadBefore = loadavg();

  constructor(readonly name: string) {
    pinSelf();
    const [one] = this.loadBefore;
    console.log(
      `${name}: ${machine().cpu}, ${machine().cores} cores, node ${process.version}, ` +
        `load average ${one.toFixed(2)}${PINNING ? '' : ' (not pinned: needs 2 cores and taskset)'}`,
    );
  }

  /** A budget from docs/decisions.md §1.12. */
  check(c: Check): void {
    this.checks.push(c);
  }

  /** Raw figures for the JSON file. */
  figure(key: string, value: unknown): void {
    this.figures[key] = value;
  }

  /** Prints the table, writes the JSON file and exits: 1 when any budget was missed. */
  finish(): never {
    const rows = this.checks.map((c) => [
      c.what,
      c.measured,
      c.reference ?? '',
      c.budget,
      c.pass ? 'PASS' : 'FAIL',
    ]);
    printTable(['what', 'measured', 'reference (same run)', 'budget', 'verdict'], rows);
    const pass = this.checks.every((c) => c.pass);
    const result = {
      benchmark: this.name,
      date: this.started.toISOString(),
      durationS: Math.round((Date.now() - this.started.getTime()) / 1000),
      machine: machine(),
      loadAverage: { before: this.loadBefore, after: loadavg() },
      pass,
      checks: this.checks,
      figures: this.figures,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `${this.name}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      `load average before ${fmtLoad(this.loadBefore)}, after ${fmtLoad(loadavg())}; results in ${file}`,
    );
    console.log(pass ? 'all budgets met' : 'BUDGET MISSED');
    process.exit(pass ? 0 : 1);
  }
}

const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');

export function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
