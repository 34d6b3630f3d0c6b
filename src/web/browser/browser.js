// The HAL explorer: start at /api, follow and fill links, send bodies with any verb.
import {
  $,
  explainStatus,
  expandTemplate,
  fill,
  h,
  pretty,
  setStatus,
  templateVariables,
  topBar,
  voiceClient,
} from '/assets/tools.js';

topBar('HAL explorer');
let client = null;
const history = [];

function linkList(value) {
  return Array.isArray(value) ? value : [value];
}

/** Opens an address; GETs are pushed on the history so Back returns to them. */
async function open(method, address, body, { record = true } = {}) {
  if (!client) client = voiceClient($('#username').value, $('#password').value);
  $('#method').value = method;
  $('#address').value = address;
  toggleBody();
  setStatus($('#statusLine'), `${method} ${address} …`);
  const res = await client(method, address, body);
  if (record && method === 'GET' && history.at(-1) !== address) history.push(address);
  const why = explainStatus(res);
  setStatus(
    $('#statusLine'),
    `${method} ${address} → ${res.status} ${res.statusText}${why ? `. ${why}` : ''}`,
    res.ok ? 'ok' : 'bad',
  );
  $('#rawHeaders').textContent = res.headers.map(([k, v]) => `${k}: ${v}`).join('\n');
  $('#rawBody').textContent = pretty(res.text);
  fill(
    $('#resource'),
    res.json && typeof res.json === 'object'
      ? renderResource(res.json, 0)
      : h('p', { class: 'muted' }, res.text ? res.text : '(empty body)'),
  );
}

function renderResource(doc, depth) {
  const { _links: links = {}, _embedded: embedded = {}, ...props } = doc;
  return h(
    'div',
    { class: 'hal-resource' },
    renderProperties(props),
    renderLinks(links),
    Object.keys(embedded).length
      ? h(
          'div',
          { class: 'hal-block' },
          depth === 0 ? h('h3', {}, '_embedded') : null,
          Object.entries(embedded).map(([name, value]) =>
            h(
              'div',
              { class: 'hal-embedded', dataset: { embed: name } },
              h(
                'h4',
                {},
                name,
                ' ',
                h('span', { class: 'badge' }, Array.isArray(value) ? `${value.length} items` : 'resource'),
              ),
              isFlatList(value)
                ? renderItemTable(value)
                : (Array.isArray(value) ? value : [value]).map((item) =>
                    h('div', { class: 'hal-item' }, renderResource(item, depth + 1)),
                  ),
            ),
          ),
        )
      : null,
  );
}

/** A list of items with only plain properties and plain links: one table, one row per item. */
function isFlatList(value) {
  return (
    Array.isArray(value) &&
    value.length > 1 &&
    value.every(
      (item) =>
        item &&
        !item._embedded &&
        Object.entries(item).every(([k, v]) => k === '_links' || v === null || typeof v !== 'object'),
    )
  );
}

function renderItemTable(items) {
  const keys = [...new Set(items.flatMap((i) => Object.keys(i).filter((k) => k !== '_links')))];
  return h(
    'table',
    { class: 'items' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        keys.map((k) => h('th', { scope: 'col', class: 'mono' }, k)),
        h('th', { scope: 'col' }, '_links'),
      ),
    ),
    h(
      'tbody',
      {},
      items.map((item) =>
        h(
          'tr',
          {},
          keys.map((k) => h('td', { class: 'mono' }, item[k] === undefined ? '' : String(item[k]))),
          h(
            'td',
            {},
            h(
              'div',
              { class: 'cell-actions' },
              Object.entries(item._links ?? {})
                .filter(([rel]) => rel !== 'curies')
                .flatMap(([rel, v]) => linkList(v).map((l) => linkButton(rel, l))),
            ),
          ),
        ),
      ),
    ),
  );
}

/** A link as a button: follows a plain link, opens a templated one in the address bar. */
function linkButton(rel, link) {
  const templated = link.templated === true || /\{[^}]+\}/.test(link.href ?? '');
  return h(
    'button',
    {
      type: 'button',
      class: 'small secondary',
      title: link.href,
      'aria-label': `${rel} ${link.href}`,
      onclick: () => {
        if (templated) $('#address').value = link.href;
        else open('GET', link.href);
      },
    },
    rel,
  );
}

function renderProperties(props) {
  const entries = Object.entries(props);
  if (!entries.length) return null;
  return h(
    'div',
    { class: 'hal-block' },
    h('h3', {}, 'Properties'),
    h(
      'table',
      { class: 'props' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Value'))),
      h(
        'tbody',
        {},
        entries.map(([k, v]) =>
          h(
            'tr',
            {},
            h('td', { class: 'mono' }, k),
            h('td', { class: 'mono' }, typeof v === 'object' ? JSON.stringify(v) : String(v)),
          ),
        ),
      ),
    ),
  );
}

function renderLinks(links) {
  const rows = [];
  for (const [rel, value] of Object.entries(links)) {
    if (rel === 'curies') continue;
    for (const link of linkList(value)) rows.push(linkRow(rel, link));
  }
  if (!rows.length) return null;
  return h(
    'div',
    { class: 'hal-block' },
    h('h3', {}, '_links'),
    h(
      'table',
      { class: 'links' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Relation'),
          h('th', { scope: 'col' }, 'Address'),
          h('th', { scope: 'col' }, 'Action'),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

function linkRow(rel, link) {
  const href = link.href ?? '';
  const templated = link.templated === true || /\{[^}]+\}/.test(href);
  const action = templated
    ? templateForm(rel, href)
    : h(
        'button',
        { type: 'button', class: 'small', dataset: { follow: rel }, onclick: () => open('GET', href) },
        'Follow',
      );
  return h(
    'tr',
    { dataset: { rel } },
    h('td', { class: 'rel mono' }, rel),
    h(
      'td',
      {},
      h('span', { class: 'href mono' }, href),
      link.title ? h('div', { class: 'muted' }, link.title) : null,
      templated ? h('span', { class: 'badge info' }, 'templated') : null,
    ),
    h('td', {}, action),
  );
}

function templateForm(rel, template) {
  const vars = templateVariables(template);
  const inputs = vars.map((v) =>
    h('input', {
      name: v.name,
      placeholder: v.query ? `${v.name} (optional)` : v.name,
      'aria-label': `${rel} ${v.name}`,
      class: 'mono',
    }),
  );
  return h(
    'form',
    {
      class: 'template-form',
      dataset: { template: rel },
      onsubmit: (e) => {
        e.preventDefault();
        const values = Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()]));
        open('GET', expandTemplate(template, values));
      },
    },
    inputs,
    h('button', { type: 'submit', class: 'small' }, 'Go'),
  );
}

function toggleBody() {
  $('#bodyLabel').hidden = !['POST', 'PUT', 'DELETE'].includes($('#method').value);
}

$('#method').addEventListener('change', toggleBody);
$('#login').addEventListener('submit', (e) => {
  e.preventDefault();
  client = voiceClient($('#username').value, $('#password').value);
  history.length = 0;
  open('GET', '/api');
});
$('#requestForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const method = $('#method').value;
  const body = $('#body').value.trim();
  open(
    method,
    $('#address').value.trim(),
    ['POST', 'PUT', 'DELETE'].includes(method) && body ? body : undefined,
  );
});
$('#back').addEventListener('click', () => {
  if (history.length > 1) {
    history.pop();
    open('GET', history.at(-1), undefined, { record: false });
  }
});

// graph.html and list.html link here with the address in the fragment.
if (location.hash.length > 1) {
  $('#address').value = decodeURIComponent(location.hash.slice(1));
  $('#send').focus();
}
