// Where the console reads and acts: /sim/v1 (telco admin), the voice API (tenant admin, Basic)
// and the contact-center API (tenant admin, Bearer), plus both event sockets through the typed
// client, which resumes them after a drop or a restart.
import { basicAuth, call, explainClose } from '/assets/tools.js';
import { CcClient, VoiceClient } from '/client/index.js';

/** The product token the typed client puts before its own. */
const application = 'switchboard-console';

/** Seconds between attempts to open a stream again after the client gave up on it. */
const RETRY_SECONDS = [1, 2, 4, 8, 15];

const reason = (e) => e?.message ?? String(e);
/** Bad credentials: trying again would only count toward the lock-out. */
const isFinal = (e) => e?.status === 401 || e?.status === 403;

/**
 * Follows one event stream of the typed client (served under /client/). The client reconnects
 * and resumes by itself (docs/events.md): after a resume the missed events arrive as events, once;
 * when it could not resume (the grace period passed), `onResync` reads the state again. Only a
 * stream the client gave up on, or a first connection that failed, is opened again here.
 * `open(stream)` subscribes on the new stream; `onStatus(text, ok)` reports.
 */
function follow(name, makeClient, open, { onEvent, onStatus, onResync, connectedText }) {
  let stopped = false;
  let client = null;
  let timer = null;
  let attempt = 0;
  const retry = (why) => {
    const wait = RETRY_SECONDS[Math.min(attempt++, RETRY_SECONDS.length - 1)];
    onStatus(`${name}: ${why} Retrying in ${wait} s…`, false);
    timer = setTimeout(begin, wait * 1000);
  };
  const begin = async () => {
    if (stopped) return;
    const current = (client = makeClient());
    try {
      const stream = await current.events();
      stream.on('event', (event) => onEvent(event));
      stream.on('disconnected', ({ code, reason: why }) =>
        onStatus(`${name}: closed (${code}). ${explainClose(code, why)} Reconnecting…`, false),
      );
      stream.on('connected', ({ resumed }) => {
        onStatus(
          resumed
            ? `${connectedText} (resumed: the missed events followed)`
            : `${connectedText} (could not resume: the state was read again)`,
          true,
        );
        if (!resumed) onResync();
      });
      stream.on('error', (error, set) => {
        if (set !== undefined) return onStatus(`${name}: ${reason(error)}`, false);
        if (stopped || client !== current) return;
        void current.close();
        if (isFinal(error)) onStatus(`${name}: refused (${reason(error)}): check the tenant user`, false);
        else retry(`the connection was given up (${reason(error)}).`);
      });
      await open(stream);
    } catch (error) {
      await current.close().catch(() => {});
      if (stopped) return;
      if (isFinal(error))
        return onStatus(`${name}: refused (${reason(error)}): check the tenant user`, false);
      return retry(`could not connect (${reason(error)}).`);
    }
    if (stopped) return void current.close();
    // A stream opened anew (not resumed) may have missed events: read the state again.
    if (attempt > 0) onResync();
    attempt = 0;
    onStatus(connectedText, true);
  };
  void begin();
  return () => {
    stopped = true;
    clearTimeout(timer);
    void client?.close();
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

  /**
   * Voice events for ALL calls, presence and park locations of the tenant, through the typed
   * client's socket: one subscription set, which the client keeps across reconnects.
   */
  function voiceEvents(tenantId, hooks) {
    return follow(
      'voice events',
      () =>
        new VoiceClient({ url: location.origin, username: tenantUser, password: tenantPass, application }),
      (stream) =>
        stream.subscribe({ calls: ['ALL'], presence: [`ALL_USERS@${tenantId}`], parkLocations: 'all' }),
      { ...hooks, connectedText: 'voice events: subscribed to ALL' },
    );
  }

  /** Contact-center events of the tenant admin's tenant (the client logs in with the password grant). */
  function ccEvents(hooks) {
    return follow(
      'contact-center events',
      () => new CcClient({ url: location.origin, username: tenantUser, password: tenantPass, application }),
      () => {},
      { ...hooks, connectedText: 'contact-center events: connected' },
    );
  }

  return { sim, voice, cc, tenantNames, voiceEvents, ccEvents };
}
