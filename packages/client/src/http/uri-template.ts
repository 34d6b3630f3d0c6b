export type TemplateValue = string | number | boolean | undefined | null;
export type TemplateVars = Record<string, TemplateValue>;

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** TextEncoder, not Buffer: the client also runs in a browser page. */
const UTF8 = new TextEncoder();

/** RFC 6570 simple-string encoding: every character but the unreserved ones is percent-encoded. */
function encode(value: string): string {
  let out = '';
  for (const ch of value) {
    if (UNRESERVED.test(ch)) out += ch;
    else for (const byte of UTF8.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Expands the RFC 6570 forms the voice API's links use: `{name}` (simple string expansion) and
 * `{?a,b}` / `{&a,b}` (form-style query). A variable without a value is left out, as the RFC says.
 */
export function expandTemplate(template: string, vars: TemplateVars = {}): string {
  return template.replace(/\{([?&]?)([^}]+)\}/g, (_m, op: string, names: string) => {
    const pairs = names
      .split(',')
      .map((n) => n.trim())
      .filter((n) => vars[n] !== undefined && vars[n] !== null)
      .map((n) => [n, String(vars[n])] as const);
    if (op === '') return pairs.map(([, v]) => encode(v)).join(',');
    if (pairs.length === 0) return '';
    const query = pairs.map(([n, v]) => `${n}=${encode(v)}`).join('&');
    return `${op}${query}`;
  });
}

/** The variable names a template needs (for error messages). */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{[?&]?([^}]+)\}/g)) out.push(...m[1]!.split(',').map((s) => s.trim()));
  return out;
}
