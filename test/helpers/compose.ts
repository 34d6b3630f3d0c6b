// A compose file as `docker compose` reads it, for tests that run its services without Docker: the
// YAML (with `<<` merges of anchors, as compose allows), then the `${VAR}` interpolation from the
// variables an operator's .env would give. Only what Switchboard's compose files use is read; a
// variable form this file does not know fails, so it cannot be passed over silently.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** A healthcheck as compose writes it: `test: ['CMD', prog, ...args]`. */
export interface ComposeHealthcheck {
  test: string[];
}

export interface ComposeService {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: ComposeHealthcheck;
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** `${VAR}`, `${VAR:-default}`, `${VAR:?message}` and `$$`, as compose interpolates them. */
export function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([^}]*)\}|\$(\w+)/g, (whole, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const expr = braced ?? bare!;
    const m = /^(\w+)(?:(:?[-?])(.*))?$/.exec(expr);
    if (!m) throw new Error(`compose: cannot interpolate "${whole}"`);
    const [, name, op, arg] = m;
    const value = vars[name];
    const unset = op?.startsWith(':') ? !value : value === undefined;
    if (!unset) return value!;
    if (op?.endsWith('-')) return arg ?? '';
    if (op?.endsWith('?')) throw new Error(`compose: ${name}: ${arg}`);
    throw new Error(`compose: ${name} is not set`);
  });
}

/** Reads a compose file with the given variables; environment values become strings. */
export function readCompose(file: string, vars: Record<string, string>): ComposeFile {
  const doc = parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return interpolate(v, vars);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const compose = walk(doc) as ComposeFile;
  for (const s of Object.values(compose.services)) {
    if (s.environment) {
      s.environment = Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, String(v)]));
    }
  }
  return compose;
}

/** `'8081:8080'` → host 8081, container 8080. */
export function publishedPort(spec: string): { host: number; container: number } {
  const m = /^(?:[\d.]+:)?(\d+):(\d+)$/.exec(spec);
  if (!m) throw new Error(`compose: cannot read the port "${spec}"`);
  return { host: Number(m[1]), container: Number(m[2]) };
}

/** Services in an order that starts each after what it depends on. */
export function startOrder(compose: ComposeFile): string[][] {
  const done = new Set<string>();
  const waves: string[][] = [];
  const names = Object.keys(compose.services);
  while (done.size < names.length) {
    const wave = names.filter(
      (n) => !done.has(n) && Object.keys(compose.services[n].depends_on ?? {}).every((d) => done.has(d)),
    );
    if (!wave.length) throw new Error('compose: depends_on has a cycle or names no service');
    wave.forEach((n) => done.add(n));
    waves.push(wave);
  }
  return waves;
}
