// The live console: one tenant at a time, refreshed by both event sockets and a slow poll.
import { $, fill, h, setStatus, timeOfDay, topBar } from '/assets/tools.js';
import { createSources, defaultTenantAdmin } from '/console/sources.js';
import { agentsView, callsView, extensionsView, parksView, queuesView } from '/console/views.js';

topBar('Live console');
const POLL_MS = 3000;

const state = {
  tenants: [],
  tenantId: null,
  sim: null,
  simError: null,
  extensions: [],
  presence: new Map(),
  parks: [],
  agents: [],
  presenceOptions: [],
  retrieveTargets: new Map(),
  sockets: { voice: 'connecting', cc: 'connecting' },
};
let src = null;
let stopSockets = [];

function credentials(tenantId) {
  return {
    simUser: $('#simUser').value,
    simPass: $('#simPass').value,
    tenantUser: $('#tenantUser').value.trim() || defaultTenantAdmin(tenantId),
    tenantPass: $('#tenantPass').value,
  };
}

// ---- actions -----------------------------------------------------------------------------

async function act(label, run) {
  setStatus($('#actionStatus'), `${label} …`);
  const res = await run();
  const ok = res.ok;
  const detail = ok
    ? ''
    : ` — ${res.status} ${res.json?.detail ?? res.json?.reason ?? res.json?.error?.message ?? res.json?.message ?? res.text ?? ''}`;
  setStatus($('#actionStatus'), `${label}: ${ok ? 'done' : 'failed'}${detail}`, ok ? 'ok' : 'bad');
  scheduleRefresh();
  return res;
}

const account = (ext) => `${ext}@${state.tenantId}`;
const actions = {
  deviceAnswer: (device, leg) =>
    act(`Answer on ${device.deviceId}`, () =>
      src.sim('POST', `/devices/${encodeURIComponent(device.deviceId)}/answer`, {
        callObserverId: leg.callObserverId,
      }),
    ),
  deviceHangup: (device, leg) =>
    act(`Hang up ${device.deviceId}`, () =>
      src.sim(
        'POST',
        `/devices/${encodeURIComponent(device.deviceId)}/hangup`,
        leg ? { callObserverId: leg.callObserverId } : {},
      ),
    ),
  register: (device, on) =>
    act(`${on ? 'Register' : 'Unregister'} ${device.deviceId}`, () =>
      src.sim('POST', `/devices/${encodeURIComponent(device.deviceId)}/${on ? 'register' : 'unregister'}`),
    ),
  // Do-not-disturb is a setting of the user or location: the voice API's provisioning resource.
  dnd: (ext, on) => {
    const kind =
      state.extensions.find((e) => e.extension === ext)?.extensionType === 'locationExt'
        ? 'locations'
        : 'users';
    return act(`DND ${on ? 'on' : 'off'} for ${ext}`, () =>
      src.voice('PUT', `/api/v1/tenants/${state.tenantId}/${kind}/${encodeURIComponent(ext)}`, { dnd: on }),
    );
  },
  pstnAnswer: (id) =>
    act('Outside party answers', () => src.sim('POST', `/pstn/calls/${encodeURIComponent(id)}/answer`)),
  pstnHangup: (id) =>
    act('Outside party hangs up', () => src.sim('POST', `/pstn/calls/${encodeURIComponent(id)}/hangup`)),
  answerLeg: (leg) =>
    leg.deviceId && state.sim?.devices.some((d) => d.deviceId === leg.deviceId)
      ? actions.deviceAnswer({ deviceId: leg.deviceId }, leg)
      : actions.callRequest(leg, 'answerCall'),
  hangupLeg: (leg) =>
    act(`Hang up ${leg.account}`, () =>
      src.voice('POST', `/api/v1/calls/${leg.callObserverId}`, { callRequest: 'hangupCall' }),
    ),
  callRequest: (leg, callRequest, extra = {}) =>
    act(`${callRequest} for ${leg.account}`, () =>
      src.voice('POST', `/api/v1/calls/${leg.callObserverId}`, {
        callRequest,
        myPartyId: leg.account,
        ...extra,
      }),
    ),
  retrieve: (ext, n) =>
    act(`Retrieve PL${n} to ${ext}`, () =>
      src.voice('POST', '/api/v1/calls', {
        request: 'retrieveParkedCall',
        from: account(ext),
        featureData: String(n),
        deviceIdType: 'device',
      }),
    ),
  agentState: (agent, name) =>
    act(`${agent.extension} → ${name}`, () =>
      src.cc('POST', `extensions/${agent.uuid}`, { request: 'updateAgentState', name }),
    ),
};

$('#pstnForm').addEventListener('submit', (e) => {
  e.preventDefault();
  act(`Outside call ${$('#pstnFrom').value} → ${$('#pstnTo').value}`, () =>
    src.sim('POST', '/pstn/calls', {
      from: $('#pstnFrom').value.trim(),
      to: $('#pstnTo').value.trim(),
      callerName: $('#pstnName').value.trim() || undefined,
    }),
  );
});
$('#c2cForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const from = $('#c2cFrom').value;
  act(`Click to call ${from} → ${$('#c2cTo').value}`, () =>
    src.voice('POST', '/api/v1/calls', {
      request: 'makeCall',
      from: account(from),
      to: $('#c2cTo').value.trim(),
    }),
  );
});

// ---- data ---------------------------------------------------------------------------------

/** The outside caller dials the selected tenant's own numbers (its DIDs), never another tenant's. */
async function loadTenantNumbers() {
  const res = await src.voice('GET', `/api/v1/tenants/${state.tenantId}/dids?expand=item`);
  const dids = res.json?._embedded?.dids ?? [];
  const nameOf = (ext) => state.extensions.find((e) => e.extension === ext)?.name ?? `extension ${ext}`;
  fill(
    $('#dids'),
    dids.map((d) => h('option', { value: d.number }, `${nameOf(d.extension)} (${d.extension})`)),
  );
  const to = $('#pstnTo');
  if (!dids.some((d) => d.number === to.value)) to.value = dids[0]?.number ?? '';
}

async function loadTenantStatics() {
  const ext = await src.voice('GET', `/api/v1/tenants/${state.tenantId}/extensions`);
  state.extensions = ext.json?._embedded?.extensions ?? [];
  const users = state.extensions.filter(
    (e) => e.extensionType === 'userExt' || e.extensionType === 'locationExt',
  );
  fill(
    $('#c2cFrom'),
    users.map((u) => h('option', { value: u.extension }, `${u.extension} ${u.name}`)),
  );
  await loadTenantNumbers();
  // Agents: the contact-center extensions that have an agent state.
  const ccExt = await src.cc('GET', 'extensions');
  state.agents = [];
  for (const e of ccExt.json?.items ?? []) {
    const voiceExt = state.extensions.find((v) => v.extension === e.extension);
    if (voiceExt && voiceExt.extensionType !== 'userExt') continue;
    const s = await src.cc('GET', `tenants/${tenantUuid()}/extensions/${e.uuid}/agent_state`);
    if (s.ok && s.json?.agent_state)
      state.agents.push({
        uuid: e.uuid,
        extension: e.extension,
        name: `${e.firstname} ${e.lastname}`.trim(),
        state: s.json,
      });
  }
  const options = await src.cc('GET', `tenants/${tenantUuid()}/presence_options`);
  state.presenceOptions = options.json?.items ?? [];
}

let ccTenantUuid = null;
const tenantUuid = () => ccTenantUuid;

async function refresh() {
  const [sim, presence, parks] = await Promise.all([
    src.sim('GET', '/state'),
    src.voice('GET', `/api/v1/presencestatus/tenants/${state.tenantId}/extensions`),
    src.voice('GET', `/api/v1/presencestatus/tenants/${state.tenantId}/parklocations`),
  ]);
  state.sim = sim.ok ? sim.json : null;
  state.simError = sim.ok
    ? null
    : `The simulator answered ${sim.status} (${sim.json?.error?.message ?? sim.json?.message ?? 'is it on?'}).`;
  state.presence = new Map(
    (presence.json?._embedded?.presenceStatus ?? []).map((p) => [p.accountId.split('@')[0], p]),
  );
  state.parks = parks.json?._embedded?.parkLocationStatus ?? [];
  for (const a of state.agents) {
    const s = await src.cc('GET', `tenants/${tenantUuid()}/extensions/${a.uuid}/agent_state`);
    if (s.ok) a.state = s.json;
  }
  render();
}

let refreshing = null;
let again = false;
let refreshTimer = null;
/** Coalesces bursts of events into one refresh; never two at once. */
function scheduleRefresh(delay = 60) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = refresh().catch((err) => setStatus($('#connection'), `Refresh failed: ${err}`, 'bad'));
    await refreshing;
    refreshing = null;
    if (again) {
      again = false;
      scheduleRefresh(0);
    }
  }, delay);
}

function render() {
  // Keep keyboard focus across re-renders: remember the focused control by its accessible name.
  const focused = document.activeElement?.getAttribute('aria-label');
  fill($('#extensions'), extensionsView(state, actions));
  fill($('#calls'), callsView(state, actions));
  $('#callCount').textContent = String(
    (state.sim?.calls ?? []).filter((c) => c.tenantId === state.tenantId && c.legs.length).length,
  );
  fill($('#queues'), queuesView(state));
  fill($('#agents'), agentsView(state, actions));
  fill($('#parks'), parksView(state, actions));
  if (focused) document.querySelector(`[aria-label="${CSS.escape(focused)}"]`)?.focus();
  document.body.dataset.refreshed = String(Date.now());
}

function logEvent(source, msg) {
  const summary =
    source === 'voice'
      ? `${msg.event} · ${msg.observedParty ?? ''}${msg.callId !== undefined ? ` · call ${msg.callId}` : ''}`
      : `${msg.event} · ${msg.category ?? ''}${msg.data?.extension ? ` · ${msg.data.extension}` : ''}`;
  const log = $('#eventLog');
  log.prepend(
    h(
      'li',
      { dataset: { source, event: msg.event } },
      h('span', { class: 'meta' }, `${timeOfDay()} · ${source === 'voice' ? 'voice' : 'contact center'} · `),
      h('strong', {}, summary),
    ),
  );
  while (log.children.length > 80) log.lastChild.remove();
}

function showConnection() {
  const { voice, cc } = state.sockets;
  const ok = voice.includes('subscribed') && cc.includes('connected');
  setStatus($('#connection'), `${voice}; ${cc}`, ok ? 'ok' : voice.includes('connecting') ? '' : 'bad');
}

function onEvent(source, msg) {
  logEvent(source, msg);
  scheduleRefresh();
}

function onSocketStatus(source, text) {
  state.sockets[source] = text;
  showConnection();
}

async function selectTenant(tenantId) {
  for (const stop of stopSockets) stop();
  state.tenantId = tenantId;
  src = createSources(credentials(tenantId));
  fill(
    $('#tenants'),
    state.tenants.map((t) =>
      h(
        'button',
        {
          type: 'button',
          'aria-pressed': String(t.tenantId === tenantId),
          onclick: () => selectTenant(t.tenantId),
        },
        `${t.name} (${t.tenantId})`,
      ),
    ),
  );
  state.sockets = { voice: 'voice events: connecting', cc: 'contact-center events: connecting' };
  showConnection();
  const tenants = await src.cc('GET', 'tenants');
  ccTenantUuid =
    (tenants.json?.items ?? []).find((t) => Number(t.platform_tenant_id) === tenantId)?.uuid ?? null;
  await loadTenantStatics();
  // A stream that could not resume (its grace period passed) missed events: read everything again.
  const onResync = () => scheduleRefresh(0);
  stopSockets = [
    src.voiceEvents(tenantId, {
      onEvent: (msg) => onEvent('voice', msg),
      onStatus: (text) => onSocketStatus('voice', text),
      onResync,
    }),
    src.ccEvents({
      onEvent: (msg) => onEvent('cc', msg),
      onStatus: (text) => onSocketStatus('cc', text),
      onResync,
    }),
  ];
  await refresh();
}

async function start() {
  const bootstrap = createSources(credentials(1001));
  const [sim, names] = await Promise.all([bootstrap.sim('GET', '/state'), bootstrap.tenantNames()]);
  const ids = new Set([...(sim.json?.devices ?? []).map((d) => d.tenantId), ...names.keys()]);
  state.tenants = [...ids]
    .sort((a, b) => a - b)
    .map((tenantId) => ({ tenantId, name: names.get(tenantId) ?? `Tenant ${tenantId}` }));
  if (!state.tenants.length) {
    setStatus($('#connection'), 'No tenants visible: check the simulator user.', 'bad');
    $('#settings').open = true;
    return;
  }
  await selectTenant(
    state.tenants.some((t) => t.tenantId === state.tenantId) ? state.tenantId : state.tenants[0].tenantId,
  );
}

$('#settingsForm').addEventListener('submit', (e) => {
  e.preventDefault();
  start();
});
setInterval(() => state.tenantId && scheduleRefresh(0), POLL_MS);
start();
