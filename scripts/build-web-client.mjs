#!/usr/bin/env node
// The typed client's main entry as ES modules a browser page imports as served: the console
// opens its event sockets through it (docs/events.md). Each file of packages/client/src is
// transpiled alone (the type check is `npm run typecheck`'s), so the output holds only the
// client's own files, not the server files its types come from. `--if-stale`: only when a
// source is newer than the output (npm start, npm run dev, the browser tests).
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'packages/client/src');
/** Served under /client/ (src/server/static-pages.ts); packed with dist. */
export const WEB_CLIENT_DIR = join(ROOT, 'dist/web-client');
/** Node-only: it starts a server process, which a page cannot. */
const NOT_FOR_PAGES = new Set(['testing.ts']);

function sources(dir = SOURCE) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && !NOT_FOR_PAGES.has(relative(SOURCE, p))
      ? [p]
      : [];
  });
}

/** True when the output is missing or older than a source (or there is no source: a packed install). */
export function webClientStale() {
  if (!existsSync(SOURCE)) return false;
  const entry = join(WEB_CLIENT_DIR, 'index.js');
  if (!existsSync(entry)) return true;
  const built = statSync(entry).mtimeMs;
  return sources().some((f) => statSync(f).mtimeMs > built);
}

export async function buildWebClient() {
  const { default: ts } = await import('typescript');
  // Written beside and swapped in, so a server serving the old files never reads half a file.
  const work = `${WEB_CLIENT_DIR}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  const files = sources();
  // index.js last: its time is the build's, which the staleness check compares with.
  files.sort(
    (a, b) =>
      (a.endsWith('/index.ts') && dirname(a) === SOURCE) - (b.endsWith('/index.ts') && dirname(b) === SOURCE),
  );
  for (const file of files) {
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        verbatimModuleSyntax: false,
        sourceMap: false,
      },
    });
    if (diagnostics?.length) {
      throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
    }
    const out = join(work, relative(SOURCE, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  rmSync(WEB_CLIENT_DIR, { recursive: true, force: true });
  mkdirSync(dirname(WEB_CLIENT_DIR), { recursive: true });
  renameSync(work, WEB_CLIENT_DIR);
  return files.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!process.argv.includes('--if-stale') || webClientStale()) {
    const n = await buildWebClient();
    if (!process.argv.includes('--quiet'))
      console.error(`web client: ${n} modules in ${relative(ROOT, WEB_CLIENT_DIR)}/`);
  }
}
