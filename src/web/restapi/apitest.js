// The contact-center REST test page: a token from the token endpoint, then any request.

import { loginName, requestToken } from '/6/restapi/cc-auth.js';
import { $, call, explainStatus, pretty, setStatus, topBar } from '/assets/tools.js';

topBar('Contact Center API test');
$('#domain').value = location.origin;
let token = null;

$('#login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const status = $('#tokenStatus');
  setStatus(status, 'Requesting a token…');
  const result = await requestToken(
    $('#domain').value,
    loginName($('#username').value, $('#tenantDomain').value),
    $('#password').value,
  );
  if (!result.token) {
    token = null;
    setStatus(status, `No token: ${result.error}`, 'bad');
    return;
  }
  token = result.token;
  setStatus(status, `Signed in as ${result.username}. Token expires in ${result.expiresIn} s.`, 'ok');
  setAuthorizationHeader(`Bearer ${token}`);
});

/** Keeps the Request Headers field's Authorization line in step with the token. */
function setAuthorizationHeader(value) {
  const lines = $('#requestHeaders')
    .value.split('\n')
    .filter((l) => l.trim() && !/^authorization\s*:/i.test(l));
  lines.push(`Authorization: ${value}`);
  $('#requestHeaders').value = lines.join('\n');
}

function parseHeaders(text) {
  const headers = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return headers;
}

$('#request').addEventListener('submit', async (e) => {
  e.preventDefault();
  const method = $('#method').value;
  const url = `${$('#domain').value.replace(/\/+$/, '')}/6/v2/api/${$('#endpoint').value.replace(/^\/+/, '')}`;
  const status = $('#requestStatus');
  setStatus(status, `${method} ${url} …`);
  const res = await call(method, url, {
    headers: parseHeaders($('#requestHeaders').value),
    body: $('#requestBody').value.trim() || undefined,
  });
  const why = explainStatus(res);
  setStatus(
    status,
    `${method} ${url} → ${res.status} ${res.statusText}${why ? `. ${why}` : ''}`,
    res.ok ? 'ok' : 'bad',
  );
  $('#responseHeaders').textContent = [
    `HTTP ${res.status} ${res.statusText}`,
    ...res.headers.map(([k, v]) => `${k}: ${v}`),
  ].join('\n');
  $('#responseBody').textContent = pretty(res.text);
});

$('#clear').addEventListener('click', () => {
  $('#responseBody').textContent = '';
});
