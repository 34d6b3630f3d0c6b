import { readFileSync } from 'node:fs';

/**
 * The running package's name and version, read from its package.json: two folders up from
 * src/core (tsx) and from dist/core (built, and installed from the packed package) alike, so
 * `switchboard --version`, `GET /version` and `npm pack` can never disagree.
 */
export const PACKAGE: { name: string; version: string } = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: pkg.name, version: pkg.version };
})();
