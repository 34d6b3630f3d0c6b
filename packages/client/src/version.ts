/** The client's version; kept equal to packages/client/package.json (a test checks it). */
export const CLIENT_VERSION = '0.1.0';

/**
 * The User-Agent the client sends on every HTTP request and socket upgrade, as both specs ask
 * ("a client-identifying string"): `switchboard-client/<version> node/<version>` (`browser` in a
 * page), optionally
 * preceded by the application's own product token (`wallboard/1.2 switchboard-client/...`).
 */
export function userAgent(application?: string): string {
  // In a browser page (the console) there is no Node; the browser sends its own User-Agent.
  const runtime =
    typeof process !== 'undefined' && process.versions?.node ? `node/${process.versions.node}` : 'browser';
  const own = `switchboard-client/${CLIENT_VERSION} ${runtime}`;
  return application ? `${application} ${own}` : own;
}
