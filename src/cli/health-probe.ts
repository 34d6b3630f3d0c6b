import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Config } from '../server/config.js';

/**
 * `switchboard health`: asks the server this configuration describes for /healthz, on loopback
 * when it listens on every address. The container's HEALTHCHECK runs it, so the image needs no
 * curl. Its own certificate is not checked: the name in it is not 127.0.0.1.
 */
export function probeHealth(config: Config, timeoutMs = 3000): Promise<boolean> {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  const request = config.tls ? httpsRequest : httpRequest;
  return new Promise((done) => {
    const req = request(
      {
        host,
        port: config.port,
        path: '/healthz',
        method: 'GET',
        timeout: timeoutMs,
        rejectUnauthorized: false,
      },
      (res) => {
        res.resume();
        done(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(false));
    req.end();
  });
}
