#!/usr/bin/env node
// First, before anything calls process.nextTick often (see the module).
import '../server/tick-object-map.js';
import { ConfigError, parseConfig, usage } from '../server/config.js';
import { banner, createLogger, startServer } from '../server/serve.js';
import { PACKAGE } from '../core/version.js';
import { probeHealth } from './health-probe.js';
import { seed } from './seed-command.js';
import { DatabaseError } from '../store/database.js';

/** `switchboard serve | seed [--reset] [--scale N ...] | health | --version`. Operator errors end in one line and a non-zero exit. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage());
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(PACKAGE.version);
    return 0;
  }
  if (command === 'serve') return serve(rest);
  if (command === 'seed') return seed(rest);
  if (command === 'health') return (await probeHealth(parseConfig(rest))) ? 0 : 1;
  throw new ConfigError(`unknown command "${command}" (try: serve, seed, health, --version)`);
}

async function serve(args: string[]): Promise<number> {
  const config = parseConfig(args);
  const log = createLogger(config);
  const server = await startServer(config, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The banner last: whoever waits for it to stop the server finds the signals handled.
  process.stdout.write(`${banner(server)}\n`);
  return new Promise<number>(() => {});
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (e: unknown) => {
    if (e instanceof ConfigError || e instanceof DatabaseError) {
      process.stderr.write(`switchboard: ${e.message}\n`);
      process.exit(2);
    }
    const err = e as NodeJS.ErrnoException;
    if (err?.code === 'EADDRINUSE' || err?.code === 'EACCES' || err?.code === 'EADDRNOTAVAIL') {
      process.stderr.write(`switchboard: cannot listen: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`switchboard: ${err?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
