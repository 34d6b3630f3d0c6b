// Renders the console's panels from one state object; `act` holds the actions buttons call.
import { h } from '/assets/tools.js';

const STATE_KIND = {
  connected: 'ok',
  ringing: 'warn',
  offered: 'warn',
  dialing: 'info',
  ringback: 'info',
  queued: 'warn',
  held: 'bad',
  remoteHeld: 'bad',
  parked: 'info',
  ended: '',
};
export const badge = (text, kind = '') => h('span', { class: `badge ${kind}`.trim() }, text);
const button = (label, aria, onclick, cls = 'small') =>
  h('button', { type: 'button', class: cls, 'aria-label': aria, onclick }, label);

export function seconds(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function legsOfTenant(state) {
  return (state.sim?.calls ?? []).filter((c) => c.tenantId === state.tenantId).flatMap((c) => c.legs);
}

export function extensionsView(state, act) {
  const legs = legsOfTenant(state);
  const devices = (state.sim?.devices ?? []).filter((d) => d.tenantId === state.tenantId);
  const rows = state.extensions
    .filter((e) => e.extensionType === 'userExt' || e.extensionType === 'locationExt')
    .map((e) => {
      const p = state.presence.get(e.extension);
      const device = devices.find((d) => d.ownerExt === e.extension);
      const myLegs = legs.filter((l) => l.ext === e.extension);
      const ringing = myLegs.find((l) => l.state === 'ringing');
      const account = `${e.extension}@${state.tenantId}`;
      return h(
        'tr',
        { dataset: { ext: e.extension } },
        h('th', { scope: 'row', class: 'mono' }, e.extension),
        h(
          'td',
          { class: 'name' },
          e.name,
          h('div', { class: 'sub' }, e.extensionType === 'locationExt' ? 'location' : 'user'),
        ),
        h(
          'td',
          { class: 'presence' },
          p
            ? [
                badge(p.callActivity, p.callActivity === 'busy' ? 'warn' : 'ok'),
                ' ',
                badge(p.reachability, p.reachability === 'available' ? 'ok' : 'bad'),
                ' ',
                p.acd === 'signedInAcd' ? [badge('ACD in', 'info'), ' '] : null,
                p.dnd === 'dndOn' ? badge('DND', 'bad') : null,
              ]
            : h('span', { class: 'muted' }, '—'),
        ),
        h(
          'td',
          {
            class: 'device',
            dataset: device
              ? {
                  device: device.deviceId,
                  deviceState: ringing
                    ? 'ringing'
                    : myLegs.length
                      ? 'in-call'
                      : device.registered
                        ? 'idle'
                        : 'unregistered',
                }
              : {},
          },
          device
            ? [
                h('span', { class: 'mono' }, device.deviceId),
                h(
                  'div',
                  { class: 'sub' },
                  device.model,
                  ' · ',
                  device.registered ? 'registered' : 'not registered',
                ),
                ringing
                  ? badge('ringing', 'warn')
                  : myLegs.length
                    ? badge(`${myLegs.length} call${myLegs.length > 1 ? 's' : ''}`, 'info')
                    : null,
              ]
            : h('span', { class: 'muted' }, state.sim ? 'no phone' : '—'),
        ),
        h(
          'td',
          {},
          h(
            'div',
            { class: 'cell-actions' },
            device && ringing
              ? button('Answer', `Answer on ${e.extension}'s phone`, () => act.deviceAnswer(device, ringing))
              : null,
            device && myLegs.length
              ? button(
                  'Hang up',
                  `Hang up ${e.extension}'s phone`,
                  () => act.deviceHangup(device, myLegs.find((l) => l.state === 'connected') ?? myLegs[0]),
                  'small danger',
                )
              : null,
            device
              ? device.registered
                ? button(
                    'Unregister',
                    `Unregister ${e.extension}'s phone`,
                    () => act.register(device, false),
                    'small secondary',
                  )
                : button(
                    'Register',
                    `Register ${e.extension}'s phone`,
                    () => act.register(device, true),
                    'small secondary',
                  )
              : null,
            p
              ? button(
                  p.dnd === 'dndOn' ? 'DND off' : 'DND on',
                  `Turn do-not-disturb ${p.dnd === 'dndOn' ? 'off' : 'on'} for ${account}`,
                  () => act.dnd(e.extension, p.dnd !== 'dndOn'),
                  'small secondary',
                )
              : null,
          ),
        ),
      );
    });
  return [
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Ext', 'Name', 'Presence', 'Device', 'Actions'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length
        ? rows
        : h(
            'tr',
            {},
            h('td', { colspan: 5, class: 'empty' }, 'No extensions (sign in as the tenant admin).'),
          ),
    ),
  ];
}

function legActions(leg, tenantLegs, state, act) {
  const who = leg.account ?? `outside ${leg.deviceId ?? leg.from}`;
  if (!leg.account) {
    const pstn = (state.sim?.pstnCalls ?? []).find((p) => p.callObserverId === leg.callObserverId);
    return [
      pstn?.direction === 'outbound' && pstn.state === 'ringing'
        ? button('Answer', `Answer ${who}`, () => act.pstnAnswer(pstn.pstnCallId))
        : null,
      button(
        'Hang up',
        `Hang up ${who}`,
        () => act.pstnHangup(pstn?.pstnCallId ?? leg.callObserverId),
        'small danger',
      ),
    ];
  }
  const person = state.extensions.find((e) => `${e.extension}@${state.tenantId}` === leg.account);
  if (!person || (person.extensionType !== 'userExt' && person.extensionType !== 'locationExt')) return [];
  const held = tenantLegs.find(
    (l) => l.account === leg.account && l.callObserverId !== leg.callObserverId && l.state === 'held',
  );
  const out = [];
  if (leg.state === 'ringing' || leg.state === 'offered')
    out.push(button('Answer', `Answer ${who}`, () => act.answerLeg(leg)));
  if (leg.state === 'connected') {
    out.push(button('Hold', `Hold ${who}`, () => act.callRequest(leg, 'holdCall')));
    out.push(button('Park', `Park the other party of ${who}`, () => act.callRequest(leg, 'parkCall')));
    if (held)
      out.push(
        button('Transfer', `Transfer ${who} to the held call`, () =>
          act.callRequest(leg, 'transfer', { otherCallId: held.callObserverId }),
        ),
      );
  }
  if (leg.state === 'held')
    out.push(button('Resume', `Resume ${who}`, () => act.callRequest(leg, 'resumeHeldCall')));
  out.push(button('Hang up', `Hang up ${who}`, () => act.hangupLeg(leg), 'small danger'));
  return out;
}

/** Who a leg is talking to, as the switch names the call's parties. */
function otherParties(leg) {
  return (leg.callParties ?? [])
    .filter((p) => p.partyId !== leg.account)
    .map((p) => (p.partyName && p.partyName !== p.partyId ? `${p.partyName} (${p.partyId})` : p.partyId));
}

export function callsView(state, act) {
  const calls = (state.sim?.calls ?? []).filter((c) => c.tenantId === state.tenantId && c.legs.length);
  if (!state.sim)
    return [h('p', { class: 'empty' }, state.simError ?? 'The simulator state is not available.')];
  if (!calls.length) return [h('p', { class: 'empty' }, 'No active calls.')];
  const tenantLegs = calls.flatMap((c) => c.legs);
  return calls.map((c) =>
    h(
      'article',
      { class: 'call-card', dataset: { call: c.smdrCallId } },
      h(
        'header',
        {},
        h('span', {}, `Call ${c.smdrCallId}`),
        h('span', {}, `for ${seconds(state.sim.now - c.startedAt)}`),
      ),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Party', 'State', 'Device', 'From → To', ''].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          c.legs.map((l) =>
            h(
              'tr',
              {
                dataset: {
                  leg: l.callObserverId,
                  legAccount: l.account ?? `pstn:${l.deviceId ?? l.from}`,
                  state: l.state,
                },
              },
              h('td', { class: 'mono' }, l.account ?? h('span', {}, 'outside ', l.deviceId ?? l.from)),
              h(
                'td',
                {},
                badge(l.state, STATE_KIND[l.state] ?? ''),
                l.queue ? h('div', { class: 'sub' }, `queue ${l.queue}`) : null,
                l.parkLocation ? h('div', { class: 'sub' }, `PL${l.parkLocation}`) : null,
              ),
              h('td', { class: 'mono' }, l.deviceId ?? '—'),
              h(
                'td',
                { class: 'mono' },
                `${l.from} → ${l.to}`,
                otherParties(l).length
                  ? h('div', { class: 'sub' }, `with ${otherParties(l).join(', ')}`)
                  : null,
              ),
              h('td', {}, h('div', { class: 'cell-actions' }, legActions(l, tenantLegs, state, act))),
            ),
          ),
        ),
      ),
    ),
  );
}

export function queuesView(state) {
  if (!state.sim) return [h('p', { class: 'empty' }, 'Queues need the simulator state.')];
  const queues = state.sim.queues.filter((q) => q.tenantId === state.tenantId);
  if (!queues.length) return [h('p', { class: 'empty' }, 'No ACD queues.')];
  return queues.map((q) =>
    h(
      'div',
      { class: 'queue', dataset: { queue: q.acdExt } },
      h(
        'h3',
        {},
        `${q.name} (${q.acdExt})`,
        badge(`${q.calls.length} waiting`, q.calls.length ? 'warn' : ''),
      ),
      q.calls.length
        ? h(
            'ul',
            {},
            q.calls.map((c) =>
              h(
                'li',
                { dataset: { from: c.from } },
                h('span', { class: 'mono' }, c.from),
                ` ${c.callerName ?? ''} · waiting ${seconds(state.sim.now - c.since)}`,
              ),
            ),
          )
        : null,
    ),
  );
}

export function agentsView(state, act) {
  const names = ['Ready', ...state.presenceOptions.map((o) => o.name)];
  if (!state.agents.length)
    return [h('tbody', {}, h('tr', {}, h('td', { class: 'empty' }, 'No agents visible to this user.')))];
  return [
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Agent', 'Agent state', 'Phone', 'Queue', 'Missed'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      state.agents.map((a) => {
        const s = a.state;
        const current = s?.agent_state?.state?.name;
        const select = h(
          'select',
          {
            'aria-label': `Agent state of ${a.extension}`,
            onchange: (e) => act.agentState(a, e.target.value),
          },
          names.map((n) => h('option', { value: n, selected: n === current }, n)),
        );
        const type = s?.agent_state?.state?.type;
        return h(
          'tr',
          { dataset: { agent: a.extension, agentState: current ?? '' } },
          h('th', { scope: 'row' }, h('span', { class: 'mono' }, a.extension), ' ', a.name),
          h(
            'td',
            {},
            select,
            ' ',
            badge(type ?? '?', type === 'ready' ? 'ok' : type === 'away' ? 'warn' : 'bad'),
            h('div', { class: 'sub' }, s?.agent_state?.duration ?? ''),
          ),
          h('td', { dataset: { phoneState: s?.phone_state?.state ?? '' } }, s?.phone_state?.state ?? '—'),
          h(
            'td',
            {},
            s?.queue_state?.state ?? '—',
            s?.queue_state?.queue ? h('div', { class: 'sub' }, s.queue_state.queue) : null,
          ),
          h('td', {}, String(s?.consecutive_missed ?? '—')),
        );
      }),
    ),
  ];
}

export function parksView(state, act) {
  const users = state.extensions.filter((e) => e.extensionType === 'userExt');
  return [
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Location', 'State', 'Parked party', 'Retrieve'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      state.parks.map((p) => {
        const n = /^PL(\d+)@/.exec(p.accountId)?.[1];
        // Re-rendering must not lose what the user picked.
        const picked = state.retrieveTargets.get(p.accountId);
        const target = h(
          'select',
          {
            'aria-label': `Retrieve ${p.accountId} to extension`,
            onchange: (e) => state.retrieveTargets.set(p.accountId, e.target.value),
          },
          users.map((u) =>
            h('option', { value: u.extension, selected: u.extension === picked }, `${u.extension} ${u.name}`),
          ),
        );
        return h(
          'tr',
          { dataset: { park: p.accountId, state: p.state } },
          h('th', { scope: 'row', class: 'mono' }, p.accountId),
          h('td', {}, badge(p.state, p.state === 'busy' ? 'warn' : 'ok')),
          h(
            'td',
            {},
            p.parkedParty ?? '',
            p.parkedPartyName ? h('div', { class: 'sub' }, p.parkedPartyName) : null,
          ),
          h(
            'td',
            {},
            p.state === 'busy'
              ? h(
                  'div',
                  { class: 'cell-actions' },
                  target,
                  button('Retrieve', `Retrieve ${p.accountId}`, () => act.retrieve(target.value, n)),
                )
              : null,
          ),
        );
      }),
    ),
  ];
}
