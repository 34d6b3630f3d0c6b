import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { DEMO_CREDENTIALS } from '../directory/demo-world.js';
import { type Config, ConfigError } from './config.js';

/**
 * The demo world's telco passwords are public (README, banner). A telco user the operator gave no
 * password has its demo password (again after every simulator reset), and the telco admin
 * reaches every tenant and the simulator. So `--demo-passwords` decides where that may be:
 * on a loopback address only (the default: `npm start` on a laptop; anywhere else the server
 * refuses to start), anywhere (one warning at start), or never. The banner never prints a
 * password the operator set.
 */

const OPERATOR_SET: Record<string, { key: keyof Config; env: string }> = {
  admin: { key: 'adminPassword', env: 'SWITCHBOARD_ADMIN_PASSWORD' },
  operator: { key: 'operatorPassword', env: 'SWITCHBOARD_OPERATOR_PASSWORD' },
};

/** The telco users still on their demo password because the operator set none. */
export function demoTelcoUsers(config: Config): string[] {
  return Object.entries(OPERATOR_SET)
    .filter(([, { key }]) => !config[key])
    .map(([user]) => user);
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  const v4 = host.toLowerCase().replace(/^::ffff:/, '');
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Throws the one-line ConfigError when `--demo-passwords` does not allow them on this address. */
export function checkDemoPasswords(config: Config): void {
  const users = demoTelcoUsers(config);
  const mode = config.demoPasswords;
  if (users.length === 0 || mode === 'anywhere' || (mode === 'loopback' && isLoopback(config.host))) return;
  const refusing = `refusing to serve the public demo passwords of ${users.join(' and ')}`;
  throw new ConfigError(
    mode === 'never'
      ? `${refusing} (--demo-passwords never): ${howToSet(users)}`
      : `${refusing} on ${config.host}, not a loopback address: ${howToSet(users)}, or accept them ` +
          'with --demo-passwords anywhere',
  );
}

/** One warning when a non-loopback address serves the demo telco passwords (`anywhere`). */
export function warnAboutDemoCredentials(config: Config, log: Logger): void {
  const users = demoTelcoUsers(config);
  if (users.length === 0 || isLoopback(config.host)) return;
  log.warn(
    { host: config.host, users },
    `listening on ${config.host} with the demo credentials of ${users.join(' and ')}: anyone who ` +
      `reaches this address can log in; ${howToSet(users)}`,
  );
}

function howToSet(users: string[]): string {
  return `set ${users.map((u) => OPERATOR_SET[u].env).join(' and ')}`;
}

/** The banner's credential lines: the demo ones, and no password the operator set. */
export function credentialLines(config: Config): string[] {
  return DEMO_CREDENTIALS.map((d) => {
    const key = OPERATOR_SET[d.username]?.key;
    const password = key && config[key] ? '(set by the operator)' : d.password;
    return `  ${d.username.padEnd(10)} / ${password.padEnd(9)} ${d.who}`;
  });
}
