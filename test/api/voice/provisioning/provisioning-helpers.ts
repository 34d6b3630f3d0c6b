import type { TestServer } from '../../../helpers/server.js';

export const ADMIN = 'admin:admin'; // telco, every permission
export const OPERATOR = 'operator:operator'; // scoped telco for 1001, TBAM + CallControl
export const ALICE = '100@1001:1234'; // tenant admin
export const BOB = '101@1001:1234'; // user
export const LOBBY = '150@1001:1234'; // location
export const AUTHORITIES = [ADMIN, OPERATOR, ALICE, BOB, LOBBY] as const;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: HAL bodies are read loosely in tests
  body: any;
}

export async function call(
  s: TestServer,
  method: string,
  path: string,
  auth: string,
  json?: unknown,
): Promise<Reply> {
  const r = await s.fetch(path, { method, auth, json });
  const text = await r.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: r.status, headers: r.headers, text, body };
}

/** Fills a link template with example values and drops its query part. */
export function followable(href: string, vars: Record<string, string>): string | undefined {
  let out = href.replace(/\{\?[^}]*\}/g, '');
  for (const [k, v] of Object.entries(vars)) out = out.replaceAll(`{${k}}`, encodeURIComponent(v));
  return /\{/.test(out) ? undefined : out;
}
