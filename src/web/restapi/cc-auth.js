// Contact-center sign-in shared by the REST and WebSocket test pages.
import { call, explainStatus } from '/assets/tools.js';

/** `100` + tenant domain `1001` → `100@1001`; a name that already has `@`, or no tenant domain, is kept. */
export function loginName(username, tenantDomain) {
  const user = username.trim();
  const domain = tenantDomain.trim();
  return domain && !user.includes('@') ? `${user}@${domain}` : user;
}

/** POST /6/v2/api/oauth/token with the password grant. Returns {token, expiresIn, username} or {error}. */
export async function requestToken(domain, username, password) {
  const url = `${domain.replace(/\/+$/, '')}/6/v2/api/oauth/token`;
  const res = await call('POST', url, { body: { grant_type: 'password', username, password } });
  if (!res.ok || !res.json?.access_token)
    return {
      error: `${res.status} ${res.json?.reason ?? res.json?.error ?? res.text}. ${explainStatus(res)}`.trim(),
    };
  return { token: res.json.access_token, expiresIn: res.json.expires_in, username };
}
