// Shared helpers of the Switchboard browser tools (plain ES module, no framework).

/** Creates an element: h('button', {type: 'button', onclick}, 'Text', child...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of an element. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);

const TOOLS = [
  ['/console/', 'Live console'],
  ['/api/browser/browser.html', 'HAL explorer'],
  ['/api/browser/graph.html', 'Resource graph'],
  ['/api/browser/list.html', 'Resource list'],
  ['/api/wstool/wstool.html', 'Voice WebSocket'],
  ['/6/restapi/apitest.html', 'CC API test'],
  ['/6/restapi/wstest.html', 'CC WebSocket test'],
];

/** Fills <header class="top"> with the title and the links between the tools. */
export function topBar(title) {
  const here = location.pathname;
  const header = $('header.top');
  fill(
    header,
    h('h1', {}, `Switchboard · ${title}`),
    h(
      'nav',
      { 'aria-label': 'Tools' },
      TOOLS.map(([href, label]) =>
        h(
          'a',
          {
            href,
            'aria-current':
              here === href || (href === '/console/' && here.startsWith('/console')) ? 'page' : null,
          },
          label,
        ),
      ),
    ),
  );
}

function base64Utf8(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function basicAuth(username, password) {
  return `Basic ${base64Utf8(`${username}:${password}`)}`;
}

/** ws(s):// address of a path on this server. */
export function wsUrl(path) {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;
}

/**
 * Opens /api/ws with Basic credentials. Browsers cannot set Authorization on a WebSocket, so the
 * credentials travel as the subprotocol `basic.<base64url>` (docs/browser-tools.md).
 */
export function openVoiceSocket(username, password) {
  const token = base64Utf8(`${username}:${password}`)
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  return new WebSocket(wsUrl('/api/ws'), ['switchboard', `basic.${token}`]);
}

/**
 * One HTTP exchange. Returns {status, statusText, headers: [[k, v]], text, json, ok}; never throws
 * for HTTP errors (network failures are reported as status 0).
 */
export async function call(method, url, { headers = {}, body } = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined && body !== null && body !== '' && method !== 'GET' && method !== 'HEAD') {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    if (!Object.keys(init.headers).some((k) => k.toLowerCase() === 'content-type'))
      init.headers['Content-Type'] = 'application/json';
  }
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      status: res.status,
      statusText: res.statusText,
      ok: res.ok,
      headers: [...res.headers],
      text,
      json,
    };
  } catch (err) {
    return { status: 0, statusText: String(err), ok: false, headers: [], text: String(err), json: undefined };
  }
}

/** A voice API client bound to Basic credentials. */
export function voiceClient(username, password) {
  const auth = basicAuth(username, password);
  return (method, url, body) =>
    call(method, url, {
      headers: { Authorization: auth, Accept: 'application/hal+json, application/json' },
      body,
    });
}

/** Expands the RFC 6570 forms the API uses: {var} and {?a,b}. Missing variables are dropped. */
export function expandTemplate(template, values = {}) {
  return template.replace(/\{([?&]?)([^}]+)\}/g, (_m, op, names) => {
    const vars = names.split(',').map((n) => n.trim());
    if (!op) return vars.map((n) => encodeURIComponent(values[n] ?? '')).join(',');
    const pairs = vars
      .filter((n) => values[n] !== undefined && values[n] !== '')
      .map((n) => `${n}=${encodeURIComponent(values[n])}`);
    return pairs.length ? (op === '?' ? '?' : '&') + pairs.join('&') : '';
  });
}

/** The variables of a template, in order: [{name, query}]. */
export function templateVariables(template) {
  const out = [];
  for (const m of template.matchAll(/\{([?&]?)([^}]+)\}/g))
    for (const n of m[2].split(',')) out.push({ name: n.trim(), query: m[1] !== '' });
  return out;
}

/**
 * Pretty JSON, or the text as is. Re-indents the text itself rather than parsing it, so large
 * numeric ids are shown exactly as the server sent them.
 */
export function pretty(text) {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      let j = i + 1;
      while (/\s/.test(text[j] ?? '')) j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') out += `,${newline()}`;
    else if (c === ':') out += ': ';
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}

export function timeOfDay(d = new Date()) {
  return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

/** Sets a status line: kind is '', 'ok' or 'bad'. */
export function setStatus(el, text, kind = '') {
  el.textContent = text;
  el.className = `status ${kind}`.trim();
}

/** Remembers form field values (never passwords) across visits. */
export function remember(...inputs) {
  for (const input of inputs) {
    const key = `switchboard:${location.pathname}:${input.id}`;
    const saved = localStorage.getItem(key);
    if (saved !== null && input.type !== 'password') input.value = saved;
    input.addEventListener('change', () => localStorage.setItem(key, input.value));
  }
}

function retryAfter(res) {
  const v = res.headers.find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  return v ? ` Try again in ${v} s.` : '';
}

/**
 * The common refusals in words, for any answer `call` returned (both APIs); '' for the others.
 * The limits are the server's defaults (docs/operations.md).
 */
export function explainStatus(res) {
  const code = res.json?.errorCode ?? res.json?.reason;
  if (res.status === 0) return 'The server did not answer: it is not running, or it is restarting.';
  if (res.status === 401) return 'The username or password (or the token) is not valid.';
  if (res.status === 403 && (code === 'LOCKED_OUT' || code === 'Locked Out'))
    return `Locked out: too many failed logins for this user from this address.${retryAfter(res)}`;
  if (res.status === 429)
    return 'This user already holds a socket from this address: one socket per client. Close the other socket (or tab) first.';
  if (res.status === 503)
    return `The server is busy: too many requests in flight (or it is shutting down).${retryAfter(res)}`;
  return '';
}

/** What a socket's close code means, in words. */
export function explainClose(code, reason = '') {
  switch (code) {
    case 1000:
      return reason === 'idle timeout' || reason === 'idle'
        ? 'Closed by the server after a long time without traffic.'
        : 'Closed normally.';
    case 1001:
      return 'The server is shutting down or restarting.';
    case 1006:
      return 'The connection was refused or lost without a goodbye (server stopped, or the upgrade was refused).';
    case 1008:
      return `Refused by the server’s rules${reason ? `: ${reason}` : ''}.`;
    case 1013:
      return 'Refused: this user already has a socket open from this address (one socket per client). Close the other socket or tab, then connect again.';
    default:
      return reason;
  }
}

/**
 * A browser sees only 1006 when the server refuses an /api/ws upgrade; asking the API with the
 * same credentials tells a wrong password or a lock-out from the one-socket-per-client limit.
 */
export async function explainVoiceRefusal(username, password) {
  const res = await voiceClient(username, password)('GET', '/api/v1');
  return (
    explainStatus(res) ||
    'The credentials are fine, so the server most likely refused a second socket: one socket per user and address. Close the other socket (or tab) first.'
  );
}
