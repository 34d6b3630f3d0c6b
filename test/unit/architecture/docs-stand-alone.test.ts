/**
 * The repository's documents stand alone: none cites the design notes kept outside it (their
 * decisions are docs/decisions.md §1), in Markdown or in a code comment, and every relative
 * Markdown link reaches a file, and a heading when it names one (GitHub's heading anchors).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'results']);

function files(dir: string, ends: readonly string[], out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, ends, out);
    else if (ends.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

const markdown = files(ROOT, ['.md']);
const code = ['src', 'bench', 'scripts', 'test', 'packages', 'examples'].flatMap((d) =>
  files(join(ROOT, d), ['.ts', '.js', '.mjs']),
);

test('no document or comment cites the design notes outside the repository', () => {
  const citation = /\bDESIGN(\.md)?\s*§|\bDESIGN\.md\b/;
  const citing = [...markdown, ...code, join(ROOT, 'Dockerfile'), join(ROOT, 'compose.yaml')]
    .filter((f) => citation.test(readFileSync(f, 'utf8')))
    .map((f) => relative(ROOT, f));
  assert.ok(markdown.length > 20 && code.length > 100);
  assert.deepEqual(citing, []);
});

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces to hyphens, -1 … for repeats. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug);
    seen.set(slug, (n ?? -1) + 1);
    out.add(n === undefined ? slug : `${slug}-${n + 1}`);
  }
  return out;
}

test('every relative Markdown link reaches its file and heading', () => {
  const broken: string[] = [];
  for (const f of markdown) {
    const text = readFileSync(f, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
      const [path, anchor] = href.split('#');
      const target = path ? resolve(dirname(f), decodeURIComponent(path)) : f;
      if (!existsSync(target)) broken.push(`${relative(ROOT, f)}: ${href} (no such file)`);
      else if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor))
        broken.push(`${relative(ROOT, f)}: ${href} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
