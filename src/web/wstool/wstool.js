// The voice WebSocket tool: open /api/ws, create a subscription set, subscribe, watch events.
import {
  $,
  explainClose,
  explainVoiceRefusal,
  h,
  openVoiceSocket,
  pretty,
  setStatus,
  timeOfDay,
  topBar,
  voiceClient,
} from '/assets/tools.js';

topBar('Voice WebSocket tool');
let socket = null;
let webSocketId = null;
let setHref = null;
let keepAliveTimer = null;
let events = 0;

const tenantOf = (username) => /@(\d+)(\.ID)?$/.exec(username)?.[1];
function defaultAccounts() {
  const t = tenantOf($('#username').value);
  $('#callAccounts').value = t ? 'ALL' : '';
  $('#presenceAccounts').value = t ? `ALL_USERS@${t}` : '';
}
defaultAccounts();
$('#username').addEventListener('change', defaultAccounts);

const client = () => voiceClient($('#username').value, $('#password').value);

function log(kind, text) {
  let summary = kind;
  try {
    const msg = JSON.parse(text);
    if (msg.event) {
      summary = `${msg.event} · ${msg.observedParty ?? ''}${msg.callId !== undefined ? ` · call ${msg.callId}` : ''}`;
      $('#eventCount').textContent = String(++events);
    } else if (msg.webSocketId) summary = 'webSocketId';
  } catch {}
  $('#eventList').prepend(
    h(
      'li',
      { dataset: { kind } },
      h('div', { class: 'meta' }, `${timeOfDay()} · ${kind} · `, h('strong', {}, summary)),
      h('pre', {}, pretty(text)),
    ),
  );
}

function scheduleKeepAlive() {
  clearInterval(keepAliveTimer);
  if (!socket || !$('#keepAlive').checked) return;
  const seconds = Math.max(1, Number($('#keepAliveSeconds').value) || 30);
  keepAliveTimer = setInterval(() => {
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send('keepalive');
      log('sent', 'keepalive');
    }
  }, seconds * 1000);
}
$('#keepAlive').addEventListener('change', scheduleKeepAlive);
$('#keepAliveSeconds').addEventListener('change', scheduleKeepAlive);

function setConnected(on) {
  $('#connect').disabled = on;
  $('#disconnect').disabled = !on;
  $('#createSet').disabled = !on;
  $('#subscribe').disabled = !on || !setHref;
}

$('#connectForm').addEventListener('submit', (e) => {
  e.preventDefault();
  setStatus($('#socketStatus'), 'Connecting…');
  const username = $('#username').value;
  const password = $('#password').value;
  let opened = false;
  socket = openVoiceSocket(username, password);
  socket.onopen = () => {
    opened = true;
    setStatus($('#socketStatus'), 'Open.', 'ok');
    setConnected(true);
    scheduleKeepAlive();
  };
  socket.onmessage = (m) => {
    const text = String(m.data);
    let msg = null;
    try {
      msg = JSON.parse(text);
    } catch {}
    if (msg?.webSocketId && !webSocketId) {
      webSocketId = msg.webSocketId;
      $('#webSocketId').textContent = webSocketId;
    }
    log(msg?.event ? 'event' : msg?.webSocketId ? 'identifier' : 'echo', text);
  };
  socket.onclose = async (ev) => {
    const code = `Closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ''}).`;
    setStatus(
      $('#socketStatus'),
      `${code} ${explainClose(ev.code, ev.reason)}`,
      ev.code === 1000 ? '' : 'bad',
    );
    if (!opened) {
      setStatus($('#socketStatus'), `Refused. ${await explainVoiceRefusal(username, password)}`, 'bad');
    }
    socket = null;
    webSocketId = null;
    setHref = null;
    $('#webSocketId').textContent = '—';
    $('#subscriptionSetId').textContent = '—';
    clearInterval(keepAliveTimer);
    setConnected(false);
  };
});

$('#disconnect').addEventListener('click', () => socket?.close(1000, 'bye'));

$('#setForm').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!webSocketId) return;
  const res = await client()('POST', `/api/v1/subscriptions/ws/${webSocketId}/subscriptionsets`);
  if (!res.ok)
    return setStatus(
      $('#subscribeStatus'),
      `Creating the set failed: ${res.status} ${res.json?.detail ?? res.text}`,
      'bad',
    );
  const id = res.json?.subscriptionSetId;
  setHref = res.json?._links?.self?.href ?? `/api/v1/subscriptions/ws/${webSocketId}/subscriptionsets/${id}`;
  $('#subscriptionSetId').textContent = id ?? setHref;
  setConnected(true);
  setStatus($('#subscribeStatus'), 'Subscription set created; it holds no subscriptions yet.');
});

const list = (text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

$('#subscribeForm').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!setHref) return;
  const c = client();
  const results = await Promise.all([
    c('PUT', `${setHref}/calleventaccounts`, { eventAccounts: list($('#callAccounts').value) }),
    c('PUT', `${setHref}/presenceeventaccounts`, { eventAccounts: list($('#presenceAccounts').value) }),
    c('PUT', `${setHref}/parklocationeventaccounts`, { scope: $('#parkScope').value }),
  ]);
  const names = ['calls', 'presence', 'park locations'];
  const bad = results
    .map((r, i) => (r.ok ? null : `${names[i]}: ${r.status} ${r.json?.detail ?? ''}`))
    .filter(Boolean);
  setStatus(
    $('#subscribeStatus'),
    bad.length ? `Refused: ${bad.join('; ')}` : 'Subscribed. Events arrive below as they occur.',
    bad.length ? 'bad' : 'ok',
  );
});

$('#clear').addEventListener('click', () => {
  $('#eventList').replaceChildren();
  events = 0;
  $('#eventCount').textContent = '0';
});
