// Where the console reads and acts: /sim/v1 (telco admin), the voice API (tenant admin, Basic)
// and the contact-center API (tenant admin, Bearer), plus both event sockets.
import { basicAuth, call, explainClose, openVoiceSocket, wsUrl } from '/assets/tools.js';

/** Seconds between attempts to reopen a socket that closed on its own (a restart, say). */
const RETRY_SECONDS = [1, 2, 4, 8, 15];

/**
 * Keeps a socket open until `stop` is called: `open(onClosed)` opens one and calls
 * `onClosed(opened)` when it ends. A socket that had opened starts the back-off again.
 */
function keepOpen(open, onStatus, name) {
  let stopped = false;
  let current = null;
  let attempt = 0;
  let timer = null;
  const connect = () => {
    if (stopped) return;
    current = open((opened, ev) => {
      if (stopped) return;
      if (opened) attempt = 0;
      const wait = RETRY_SECONDS[Math.min(attempt++, RETRY_SECONDS.length - 1)];
      onStatus(
        `${name}: closed (${ev.code}). ${explainClose(ev.code, ev.reason)} Reconnecting in ${wait} s…`,
        false,
      );
      timer = setTimeout(connect, wait * 1000);
    });
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    current?.close(1000, 'console closed');
  };
}

/** The demo's tenant admins: 100@1001, 200@1002 (overridable in the sign-in panel). */
export const defaultTenantAdmin = (tenantId) => `${(tenantId % 1000) * 100}@${tenantId}`;

export function createSources({ simUser, simPass, tenantUser, tenantPass }) {
  const simAuth = basicAuth(simUser, simPass);
  const voiceAuth = basicAuth(tenantUser, tenantPass);
  let ccToken = null;

  const json = { Accept: 'application/hal+json, application/json' };
  const sim = (method, path, body) =>
    call(method, `/sim/v1${path}`, { headers: { ...json, Authorization: simAuth }, body });
  const voice = (method, path, body) =>
    call(method, path, { headers: { ...json, Authorization: voiceAuth }, body });

  async function token(username, password) {
    const res = await call('POST', '/6/v2/api/oauth/token', {
      body: { grant_type: 'password', username, password },
    });
    return res.json?.access_token ?? null;
  }
  async function cc(method, path, body) {
    ccToken ??= await token(tenantUser, tenantPass);
    if (!ccToken) return { ok: false, status: 401, json: null, text: 'no contact-center token' };
    const res = await call(method, `/6/v2/api/${path}`, {
      headers: { Authorization: `Bearer ${ccToken}` },
      body: body ?? undefined,
    });
    if (res.status === 401) ccToken = null;
    return res;
  }
  /** The telco admin's view of the contact-center tenants: platform_tenant_id → name. */
  async function tenantNames() {
    const t = await token(simUser, simPass);
    if (!t) return new Map();
    const res = await call('GET', '/6/v2/api/tenants', { headers: { Authorization: `Bearer ${t}` } });
    return new Map(
      (res.json?.items ?? []).map((i) => [Number(i.platform_tenant_id), i.platform_tenant_name]),
    );
  }

  /** Voice events for ALL accounts of the tenant: socket, set, subscriptions. onEvent(frame). */
  // A refused upgrade (the previous socket of this user not yet closed) and a restart are retried.
  function voiceEvents(tenantId, onEvent, onStatus) {
    return keepOpen(
      (onClosed) => subscribeAll(tenantId, onEvent, onStatus, onClosed),
      onStatus,
      'voice events',
    );
  }

  function subscribeAll(tenantId, onEvent, onStatus, onClose) {
    const ws = openVoiceSocket(tenantUser, tenantPass);
    let opened = false;
    let keepAlive = null;
    ws.onmessage = async (m) => {
      let msg;
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (msg.webSocketId) {
        const set = await voice('POST', `/api/v1/subscriptions/ws/${msg.webSocketId}/subscriptionsets`);
        const href = set.json?._links?.self?.href;
        if (!href) return onStatus(`voice events: no subscription set (${set.status})`, false);
        const results = await Promise.all([
          voice('PUT', `${href}/calleventaccounts`, { eventAccounts: ['ALL'] }),
          voice('PUT', `${href}/presenceeventaccounts`, { eventAccounts: [`ALL_USERS@${tenantId}`] }),
          voice('PUT', `${href}/parklocationeventaccounts`, { scope: 'all' }),
        ]);
        const ok = results.every((r) => r.ok);
        onStatus(
          ok
            ? 'voice events: subscribed to ALL'
            : `voice events: subscribing failed (${results.map((r) => r.status).join(', ')})`,
          ok,
        );
      } else if (msg.event) onEvent(msg);
    };
    ws.onopen = () => {
      opened = true;
      keepAlive = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('keepalive'), 30_000);
    };
    ws.onclose = (ev) => {
      clearInterval(keepAlive);
      onClose(opened, ev);
    };
    return ws;
  }

  /** Contact-center events: connect with the tenant admin's token (a new one after a refusal). */
  function ccEvents(onEvent, onStatus) {
    return keepOpen((onClosed) => ccSocket(onEvent, onStatus, onClosed), onStatus, 'contact-center events');
  }

  function ccSocket(onEvent, onStatus, onClosed) {
    const ws = new WebSocket(wsUrl('/6/v2/sock'));
    let opened = false;
    ws.onopen = async () => {
      ccToken ??= await token(tenantUser, tenantPass);
      if (!ccToken) {
        onStatus('contact-center events: no token (check the tenant user)', false);
        return ws.close(1000, 'no token');
      }
      ws.send(JSON.stringify({ request: 'connect', token: ccToken }));
    };
    ws.onmessage = (m) => {
      let msg;
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (msg.response === 'connect') {
        opened = msg.success;
        if (!msg.success) {
          ccToken = null;
          ws.close(1000, 'refused');
        }
        onStatus(
          msg.success ? 'contact-center events: connected' : 'contact-center events: refused',
          msg.success,
        );
      } else if (msg.event) onEvent(msg);
    };
    ws.onclose = (ev) => onClosed(opened, ev);
    return ws;
  }

  return { sim, voice, cc, tenantNames, voiceEvents, ccEvents };
}
