import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { DEMO_CREDENTIALS } from '../directory/demo-world.js';
import type { Config } from './config.js';

/**
 * The demo world's credentials are public (README, banner). They are fine on a loopback address;
 * anywhere else the operator is told once, at start, and the banner never prints a password the
 * operator set.
 */

const OPERATOR_SET: Record<string, keyof Config> = {
  admin: 'adminPassword',
  operator: 'operatorPassword',
};

/** The telco users still on their demo password because the operator set none. */
export function demoTelcoUsers(config: Config): string[] {
  return Object.entries(OPERATOR_SET)
    .filter(([, key]) => !config[key])
    .map(([user]) => user);
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** One warning when a non-loopback address serves the demo telco passwords. */
export function warnAboutDemoCredentials(config: Config, log: Logger): void {
  const users = demoTelcoUsers(config);
  if (users.length === 0 || isLoopback(config.host)) return;
  log.warn(
    { host: config.host, users },
    `listening on ${config.host} with the demo credentials of ${users.join(' and ')}: anyone who ` +
      'reaches this address can log in; set SWITCHBOARD_ADMIN_PASSWORD and SWITCHBOARD_OPERATOR_PASSWORD',
  );
}

/** The banner's credential lines: the demo ones, and no password the operator set. */
export function credentialLines(config: Config): string[] {
  return DEMO_CREDENTIALS.map((d) => {
    const key = OPERATOR_SET[d.username];
    const password = key && config[key] ? '(set by the operator)' : d.password;
    return `  ${d.username.padEnd(10)} / ${password.padEnd(9)} ${d.who}`;
  });
}
