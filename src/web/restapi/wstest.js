// The contact-center event socket test page: token, connect, optional subscribe, the events.

import { loginName, requestToken } from '/6/restapi/cc-auth.js';
import { $, explainClose, h, pretty, setStatus, timeOfDay, topBar, wsUrl } from '/assets/tools.js';

topBar('Contact Center WebSocket test');
$('#domain').value = location.origin;
let socket = null;
let count = 0;

function connected(on) {
  $('#connect').disabled = on;
  $('#disconnect').disabled = !on;
  $('#subscribe').disabled = !on;
}

function show(direction, text) {
  let summary = direction;
  try {
    const msg = JSON.parse(text);
    summary = msg.event
      ? `${msg.event} · ${msg.category ?? ''}`
      : msg.response
        ? `response ${msg.response}${msg.success === false ? ' (failed)' : ''}`
        : direction;
  } catch {}
  if (direction === 'received') $('#eventCount').textContent = String(++count);
  $('#eventList').prepend(
    h(
      'li',
      { dataset: { direction } },
      h('div', { class: 'meta' }, `${timeOfDay()} · ${direction} · `, h('strong', {}, summary)),
      h('pre', {}, pretty(text)),
    ),
  );
}

$('#connectForm').addEventListener('submit', async (e) => {
  e.preventDefault();
  const status = $('#socketStatus');
  setStatus(status, 'Requesting a token…');
  const domain = $('#domain').value;
  const result = await requestToken(
    domain,
    loginName($('#username').value, $('#tenantDomain').value),
    $('#password').value,
  );
  if (!result.token) return setStatus(status, `No token: ${result.error}`, 'bad');
  const url =
    domain === location.origin
      ? wsUrl('/6/v2/sock')
      : `${domain.replace(/^http/, 'ws').replace(/\/+$/, '')}/6/v2/sock`;
  socket = new WebSocket(url);
  setStatus(status, `Opening ${url}…`);
  socket.onopen = () => {
    const connect = JSON.stringify({ request: 'connect', token: result.token });
    socket.send(connect);
    show('sent', JSON.stringify({ request: 'connect', token: '…' }));
    setStatus(status, `Connected to ${url} as ${result.username}.`, 'ok');
    connected(true);
  };
  socket.onmessage = (m) => show('received', String(m.data));
  socket.onclose = (ev) => {
    setStatus(
      status,
      `Closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ''}). ${explainClose(ev.code, ev.reason)}`,
      ev.code === 1000 ? '' : 'bad',
    );
    connected(false);
  };
});

$('#disconnect').addEventListener('click', () => socket?.close(1000, 'bye'));

$('#subscribeForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const events = $('#events')
    .value.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const msg = JSON.stringify({ request: 'subscribe', events });
  socket?.send(msg);
  show('sent', msg);
});

$('#clear').addEventListener('click', () => {
  $('#eventList').replaceChildren();
  count = 0;
  $('#eventCount').textContent = '0';
});
