import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from './runtime.js';

/**
 * `src/web` ships as-is (package.json "files"); this resolves from src/server (tsx) and from
 * dist/server (built) alike. Its pages are served as written, without templates, so their heads,
 * top bars and sign-in rows repeat from page to page.
 */
export const WEB_ROOT = fileURLToPath(new URL('../../src/web/', import.meta.url));

/** Swagger UI's prebuilt files, served as they ship, under /docs/swagger-ui/. */
const SWAGGER_UI_ROOT = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The typed client's main entry as browser modules (`npm run build`, scripts/build-web-client.mjs):
 * the console opens its event sockets through it. From src/server and dist/server alike.
 */
export const WEB_CLIENT_ROOT = fileURLToPath(new URL('../../dist/web-client/', import.meta.url));

/** Public URL prefix → folder of src/web (or an absolute folder). The pages authenticate only when they call the APIs. */
export const WEB_MOUNTS: readonly { prefix: string; folder: string }[] = [
  { prefix: '/docs/swagger-ui/', folder: SWAGGER_UI_ROOT },
  { prefix: '/docs/', folder: 'docs' },
  { prefix: '/6/restapi/', folder: 'restapi' },
  { prefix: '/api/browser/', folder: 'browser' },
  { prefix: '/api/wstool/', folder: 'wstool' },
  { prefix: '/console/', folder: 'console' },
  { prefix: '/client/', folder: WEB_CLIENT_ROOT },
  { prefix: '/assets/', folder: 'assets' },
];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Only what Switchboard serves itself: no CDN, no inline script or style. Requests may go to
 * another server because the contact-center test page has a Domain field.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self' http: https: ws: wss:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** Serves the browser tools from src/web (issue 7), with ETags and path-traversal protection. */
export async function webPages(app: FastifyInstance, _opts: { runtime: Runtime }) {
  for (const { prefix, folder } of WEB_MOUNTS) {
    const root = resolve(WEB_ROOT, folder);
    // ignoreTrailingSlash turns `/console/` into `/console`, which `/console/*` does not match.
    // Pages, not API operations: the documents do not describe them.
    app.get(prefix.slice(0, -1), { config: { undocumented: true } }, (req, reply) =>
      serveFile(req, reply, root, ''),
    );
    app.get(`${prefix}*`, (req, reply) => serveFile(req, reply, root, (req.params as { '*': string })['*']));
  }
  app.get('/', (_req, reply) => reply.redirect('/console/'));
}

async function serveFile(req: FastifyRequest, reply: FastifyReply, root: string, rest: string) {
  const file = safeResolve(root, rest === '' || rest.endsWith('/') ? `${rest}index.html` : rest);
  const type = file && CONTENT_TYPES[extname(file).toLowerCase()];
  if (!file || !type) return notFound(reply);
  let body: Buffer;
  try {
    const info = await stat(file);
    if (!info.isFile()) return notFound(reply);
    body = await readFile(file);
  } catch {
    return notFound(reply);
  }
  const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
  reply
    .header('content-type', type)
    .header('cache-control', 'no-cache')
    .header('etag', etag)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
  if (type.startsWith('text/html')) reply.header('content-security-policy', CSP);
  if (req.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.send(body);
}

/** The file a URL rest names inside root, or null for anything that escapes it or is hidden. */
export function safeResolve(root: string, rest: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const parts = decoded.split('/');
  if (parts.some((p) => p === '..' || p.startsWith('.'))) return null;
  const full = resolve(root, ...parts.filter((p) => p !== ''));
  return full.startsWith(root + sep) ? full : null;
}

function notFound(reply: FastifyReply) {
  return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
}
