import { readFileSync } from 'node:fs';
import { checkCluster, CLUSTER_OPTIONS, parseNatsUrls } from './cluster-config.js';
import { ConfigError } from './config-error.js';

/** Everything the server can be told, from flags and SWITCHBOARD_* variables (flags win). */
export interface Config {
  port: number;
  host: string;
  db: string;
  databaseUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** Loaded PEM contents, when TLS is configured. */
  tls?: { cert: Buffer; key: Buffer };
  clock: 'real' | 'virtual';
  sim: boolean;
  logLevel: string;
  limitInflight: number;
  limitPerClient: number;
  busyDelayMs: number;
  wsMax: number;
  wsPerClient: number;
  wsIdleMs: number;
  wsConnectTimeoutMs: number;
  /** Sockets that have not sent `connect` yet, in all and per client IP. */
  wsPendingMax: number;
  wsPendingPerIp: number;
  /** Unauthenticated REST work (the token grant) in flight per client IP. */
  limitAnonymousPerIp: number;
  /** Time for a request's headers, and for the whole request (headers and body), to arrive. */
  headerTimeoutMs: number;
  bodyTimeoutMs: number;
  lockoutFailures: number;
  lockoutWindowMs: number;
  lockoutPeriodMs: number;
  bodyLimitBytes: number;
  /** Event continuity (docs/events.md): how long a resumable session outlives its socket. */
  resumeGraceMs: number;
  /** Events retained per tenant for resume, in count and in bytes. */
  eventRetention: number;
  eventRetentionBytes: number;
  /** Webhooks (docs/events.md): http: URLs allowed; private, loopback and link-local targets allowed. */
  webhooksAllowHttp: boolean;
  webhooksAllowPrivate: boolean;
  /** One delivery attempt's time-out; how long a delivery is retried. */
  webhookTimeoutMs: number;
  webhookRetryMs: number;
  /** Browser origins allowed to call both APIs and open their sockets (CORS); empty: none. */
  corsOrigins: string[];
  /** `GET /metrics` needs HTTP Basic of a telco administrator. */
  metricsAuth: boolean;
  /** Provisioned records per collection and tenant (voice POST answers 409 LIMIT_REACHED above). */
  maxRecords: number;
  /** The telco users' passwords; unset, they are the demo world's public ones. */
  adminPassword?: string;
  operatorPassword?: string;
  /**
   * Where a telco user may keep the demo world's public password: on a loopback address only
   * (elsewhere the server refuses to start), anywhere (with one warning), or never.
   */
  demoPasswords: 'loopback' | 'anywhere' | 'never';
  /** Seed the demo world into an empty database (always on for `serve`). */
  seed: boolean;
  /** Cluster mode (docs/cluster.md): NATS servers; empty: a standalone server. */
  nats: string[];
  /** This node's id in the cluster (letters, digits, `_`, `-`); unset: host-pid-random. */
  nodeId?: string;
  leaseTtlMs: number;
  /** On a graceful stop, how long a cluster node hands its tenants over as their calls end. */
  drainMs: number;
  /** Names the NATS subjects (`sb.<clusterName>`) and the JetStream stream of one cluster. */
  clusterName: string;
  /** The URL clients reach this node at, shown in `GET /cluster`. */
  advertiseUrl?: string;
}

export { ConfigError };

export interface Option {
  key: keyof Config;
  flag: string;
  env: string;
  type: 'int' | 'string' | 'bool' | 'enum' | 'list' | 'urls';
  values?: string[];
  min?: number;
  max?: number;
  help: string;
}

const intOpt = (
  key: keyof Config,
  flag: string,
  help: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): Option => ({
  key,
  flag,
  env: envName(flag),
  type: 'int',
  min,
  max,
  help,
});
function envName(flag: string): string {
  return `SWITCHBOARD_${flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;
}

export const OPTIONS: Option[] = [
  intOpt('port', '--port', 'TCP port (0 picks a free one)', 0, 65535),
  { key: 'host', flag: '--host', env: 'SWITCHBOARD_HOST', type: 'string', help: 'address to listen on' },
  { key: 'db', flag: '--db', env: 'SWITCHBOARD_DB', type: 'string', help: 'SQLite file' },
  {
    key: 'databaseUrl',
    flag: '--database-url',
    env: 'SWITCHBOARD_DATABASE_URL',
    type: 'string',
    help: 'postgres://... (instead of SQLite)',
  },
  {
    key: 'tlsCert',
    flag: '--tls-cert',
    env: 'SWITCHBOARD_TLS_CERT',
    type: 'string',
    help: 'PEM certificate file',
  },
  {
    key: 'tlsKey',
    flag: '--tls-key',
    env: 'SWITCHBOARD_TLS_KEY',
    type: 'string',
    help: 'PEM private key file',
  },
  {
    key: 'clock',
    flag: '--clock',
    env: 'SWITCHBOARD_CLOCK',
    type: 'enum',
    values: ['real', 'virtual'],
    help: 'real | virtual',
  },
  {
    key: 'sim',
    flag: '--sim',
    env: 'SWITCHBOARD_SIM',
    type: 'bool',
    help: 'simulator API (--no-sim turns it off)',
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'SWITCHBOARD_LOG_LEVEL',
    type: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    help: 'pino log level',
  },
  intOpt('limitInflight', '--limit-inflight', 'REST requests in flight, all clients', 1),
  intOpt('limitPerClient', '--limit-per-client', 'REST requests in flight per client (principal + IP)', 1),
  intOpt('busyDelayMs', '--busy-delay-ms', 'wait for a slot before answering 503', 0),
  intOpt('wsMax', '--ws-max', 'WebSocket connections in all', 1),
  intOpt('wsPerClient', '--ws-per-client', 'WebSocket connections per client', 1),
  intOpt('wsIdleMs', '--ws-idle-ms', 'close a socket after this long without traffic', 1),
  intOpt('wsConnectTimeoutMs', '--ws-connect-timeout-ms', 'contact-center socket: time to send connect', 1),
  intOpt('wsPendingMax', '--ws-pending-max', 'contact-center sockets not yet connected, in all', 1),
  intOpt('wsPendingPerIp', '--ws-pending-per-ip', 'contact-center sockets not yet connected, per IP', 1),
  intOpt('limitAnonymousPerIp', '--limit-anonymous-per-ip', 'token grants in flight per IP', 1),
  intOpt('headerTimeoutMs', '--header-timeout-ms', 'time for request headers to arrive (408)', 1),
  intOpt('bodyTimeoutMs', '--body-timeout-ms', 'time for a whole request, body included (408)', 1),
  intOpt('lockoutFailures', '--lockout-failures', 'failed logins that lock (principal, IP) out', 1),
  intOpt('lockoutWindowMs', '--lockout-window-ms', 'window in which failures count', 1),
  intOpt('lockoutPeriodMs', '--lockout-period-ms', 'how long a lock-out lasts', 1),
  intOpt('bodyLimitBytes', '--body-limit-bytes', 'largest request body (413 above)', 1),
  intOpt(
    'resumeGraceMs',
    '--resume-grace-ms',
    'a resumable event socket can resume this long after it closed',
    1,
  ),
  intOpt('eventRetention', '--event-retention', 'events kept per tenant for resume', 1, 10_000_000),
  intOpt(
    'eventRetentionBytes',
    '--event-retention-bytes',
    'bytes of events kept per tenant for resume',
    1024,
  ),
  {
    key: 'webhooksAllowHttp',
    flag: '--webhooks-allow-http',
    env: 'SWITCHBOARD_WEBHOOKS_ALLOW_HTTP',
    type: 'bool',
    help: 'webhooks may be http: URLs (default: https: only)',
  },
  {
    key: 'webhooksAllowPrivate',
    flag: '--webhooks-allow-private',
    env: 'SWITCHBOARD_WEBHOOKS_ALLOW_PRIVATE',
    type: 'bool',
    help: 'webhooks may reach private, loopback and link-local addresses (development, tests)',
  },
  intOpt(
    'webhookTimeoutMs',
    '--webhook-timeout-ms',
    'one webhook delivery attempt times out after this',
    100,
    600_000,
  ),
  intOpt('webhookRetryMs', '--webhook-retry-ms', 'a failed webhook delivery is retried this long', 0),
  {
    key: 'corsOrigins',
    flag: '--cors-origins',
    env: 'SWITCHBOARD_CORS_ORIGINS',
    type: 'list',
    help: 'browser origins allowed (comma-separated, e.g. https://app.example.com)',
  },
  {
    key: 'metricsAuth',
    flag: '--metrics-auth',
    env: 'SWITCHBOARD_METRICS_AUTH',
    type: 'bool',
    help: 'GET /metrics needs Basic credentials of a telco administrator',
  },
  intOpt('maxRecords', '--max-records', 'provisioned records per collection and tenant (409 above)', 1),
  {
    key: 'adminPassword',
    flag: '--admin-password',
    env: 'SWITCHBOARD_ADMIN_PASSWORD',
    type: 'string',
    help: "password of the telco user admin (default: the demo world's)",
  },
  {
    key: 'operatorPassword',
    flag: '--operator-password',
    env: 'SWITCHBOARD_OPERATOR_PASSWORD',
    type: 'string',
    help: "password of the telco user operator (default: the demo world's)",
  },
  ...CLUSTER_OPTIONS,
  {
    key: 'demoPasswords',
    flag: '--demo-passwords',
    env: 'SWITCHBOARD_DEMO_PASSWORDS',
    type: 'enum',
    values: ['loopback', 'anywhere', 'never'],
    help: 'where admin and operator may keep their public demo passwords: loopback (default; elsewhere the server does not start) | anywhere (one warning) | never',
  },
];

export const DEFAULTS: Config = {
  port: 8080,
  host: '127.0.0.1',
  db: './data/switchboard.db',
  clock: 'real',
  sim: true,
  logLevel: 'info',
  limitInflight: 100,
  limitPerClient: 3,
  busyDelayMs: 3000,
  wsMax: 4000,
  wsPerClient: 1,
  wsIdleMs: 3_600_000,
  wsConnectTimeoutMs: 10_000,
  wsPendingMax: 1000,
  wsPendingPerIp: 10,
  limitAnonymousPerIp: 3,
  headerTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  lockoutFailures: 3,
  lockoutWindowMs: 1_800_000,
  lockoutPeriodMs: 3_600_000,
  bodyLimitBytes: 1_048_576,
  resumeGraceMs: 120_000,
  eventRetention: 10_000,
  eventRetentionBytes: 8_388_608,
  webhooksAllowHttp: false,
  webhooksAllowPrivate: false,
  webhookTimeoutMs: 10_000,
  webhookRetryMs: 86_400_000,
  corsOrigins: [],
  metricsAuth: false,
  maxRecords: 2000,
  demoPasswords: 'loopback',
  seed: true,
  nats: [],
  leaseTtlMs: 5000,
  drainMs: 20_000,
  clusterName: 'switchboard',
};

function convert(o: Option, raw: string, source: string): unknown {
  switch (o.type) {
    case 'int': {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${source}: expected a whole number, got "${raw}"`);
      const n = Number(raw);
      if (n < (o.min ?? 0) || n > (o.max ?? Number.MAX_SAFE_INTEGER)) {
        throw new ConfigError(`${source}: ${n} is out of range ${o.min}..${o.max}`);
      }
      return n;
    }
    case 'bool':
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw new ConfigError(`${source}: expected true or false, got "${raw}"`);
    case 'list':
      return parseOrigins(raw, source);
    case 'urls':
      return parseNatsUrls(raw, source);
    case 'enum':
      if (!o.values!.includes(raw))
        throw new ConfigError(`${source}: expected one of ${o.values!.join(', ')}, got "${raw}"`);
      return raw;
    default:
      if (raw === '') throw new ConfigError(`${source}: must not be empty`);
      return raw;
  }
}

/** Parses flags and environment; throws ConfigError with one clear line. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const cfg: Record<string, unknown> = { ...DEFAULTS };
  for (const o of OPTIONS) {
    const raw = env[o.env];
    if (raw !== undefined) cfg[o.key] = convert(o, raw, o.env);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`);
    const [name, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    if (name.startsWith('--no-')) {
      const o = OPTIONS.find((x) => x.flag === `--${name.slice(5)}` && x.type === 'bool');
      if (!o) throw new ConfigError(`unknown option ${name}`);
      cfg[o.key] = false;
      continue;
    }
    const o = OPTIONS.find((x) => x.flag === name);
    if (!o) throw new ConfigError(`unknown option ${name} (see switchboard --help)`);
    if (o.type === 'bool' && inline === undefined) {
      cfg[o.key] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${name} needs a value`);
    cfg[o.key] = convert(o, value, name);
  }
  const config = cfg as unknown as Config;
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new ConfigError('--tls-cert and --tls-key must be given together');
  }
  if (config.tlsCert && config.tlsKey) {
    config.tls = { cert: readPem(config.tlsCert, '--tls-cert'), key: readPem(config.tlsKey, '--tls-key') };
  }
  if (config.headerTimeoutMs > config.bodyTimeoutMs) {
    throw new ConfigError('--header-timeout-ms must not exceed --body-timeout-ms (the whole request)');
  }
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    throw new ConfigError(`--database-url must start with postgres:// (got "${config.databaseUrl}")`);
  }
  checkCluster(config);
  return config;
}

/** `https://a.example, http://localhost:3000`: each an origin as a browser sends it. */
function parseOrigins(raw: string, source: string): string[] {
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const o of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(o);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== o) {
      throw new ConfigError(
        `${source}: "${o}" is not an origin like https://app.example.com (no path, no slash)`,
      );
    }
  }
  return origins;
}

function readPem(file: string, flag: string): Buffer {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw new ConfigError(
      `${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (!buf.toString('utf8').includes('-----BEGIN'))
    throw new ConfigError(`${flag}: ${file} is not a PEM file`);
  return buf;
}

export function usage(): string {
  const lines = OPTIONS.map(
    (o) => `  ${`${o.flag}${o.type === 'bool' ? '' : ' <value>'}`.padEnd(30)} ${o.help} [${o.env}]`,
  );
  return [
    'usage: switchboard <command> [options]',
    '',
    'commands:',
    '  serve            start the server (seeds the demo world into an empty database)',
    '  seed [--reset]   seed the demo world; --reset replaces everything with it',
    '  seed --scale N   the scale world instead: the demo world N times (1..1000; tenants 1001..), with',
    '                   a generated call history (an empty database, or --reset to replace it):',
    '    --history-days D      days of calls (default 365, ending at --history-end)',
    '    --history-records R   calls in all (default 62,500 a year per N: about 1,000,000 at N = 16)',
    '    --history-end DATE    YYYY-MM-DD, the day after the last call (default 2026-01-01)',
    '    --seed-value S        the same value gives the same world and history (default switchboard)',
    '  health           exit 0 when the server these options describe answers /healthz',
    '  --version        print the version',
    '',
    'options:',
    ...lines,
  ].join('\n');
}
