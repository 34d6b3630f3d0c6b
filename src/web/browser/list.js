// Every resource and template, with who may see it: read live for each identity.
import { $, fill, h, setStatus, topBar, voiceClient } from '/assets/tools.js';

topBar('Resource list');

function parseIdentities(text) {
  return text
    .split('\n')
    .map((line) => line.split('|').map((p) => p.trim()))
    .filter((p) => p.length === 3 && p[1])
    .map(([label, username, password]) => ({ label, username, password }));
}

function links(doc) {
  const out = [];
  for (const [rel, value] of Object.entries(doc?._links ?? {})) {
    if (rel === 'self' || rel === 'curies') continue;
    for (const l of Array.isArray(value) ? value : [value]) out.push({ rel, href: l.href });
  }
  return out;
}

/** What one identity sees: Map key → {rel, kind, href}; or an error text. */
async function visibleTo(identity) {
  const client = voiceClient(identity.username, identity.password);
  const seen = new Map();
  const root = await client('GET', '/api');
  if (!root.ok) return { error: `${root.status} ${root.json?.errorCode ?? ''}`.trim(), seen };
  for (const l of links(root.json)) seen.set(`root ${l.rel}`, { ...l, kind: 'root link' });
  const v1 = await client('GET', root.json._links?.['api:v1']?.href ?? '/api/v1');
  for (const l of links(v1.json)) seen.set(`v1 ${l.rel}`, { ...l, kind: 'v1 relation' });
  const dictHref = v1.json?._links?.['v1:uriDictionary']?.href;
  if (dictHref) {
    const dict = await client('GET', dictHref);
    for (const l of links(dict.json)) seen.set(`template ${l.rel}`, { ...l, kind: 'URI template' });
  }
  return { seen };
}

const KIND_ORDER = { 'root link': 0, 'v1 relation': 1, 'URI template': 2 };
let rows = [];

$('#identitiesForm').addEventListener('submit', async (e) => {
  e.preventDefault();
  const identities = parseIdentities($('#identities').value);
  const results = [];
  for (const id of identities) {
    setStatus($('#status'), `Signing in as ${id.username} …`);
    results.push(await visibleTo(id));
  }
  const all = new Map();
  results.forEach((r) => {
    for (const [key, item] of r.seen) {
      // The least filled-in address (a telco user's) shows the template best.
      const known = all.get(key);
      if (!known || (item.href.match(/\{/g) ?? []).length > (known.href.match(/\{/g) ?? []).length)
        all.set(key, item);
    }
  });
  rows = [...all.entries()]
    .map(([key, item]) => ({ key, ...item, who: results.map((r) => r.seen.has(key)) }))
    .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.rel.localeCompare(b.rel));
  render(identities, results);
  const failed = identities
    .filter((_, i) => results[i].error)
    .map((id, i) => `${id.username}: ${results[i].error}`);
  setStatus(
    $('#status'),
    failed.length ? `Loaded; could not sign in: ${failed.join(', ')}` : 'Loaded.',
    failed.length ? 'bad' : 'ok',
  );
});

function render(identities, results) {
  const term = $('#filter').value.trim().toLowerCase();
  const shown = rows.filter(
    (r) => !term || r.rel.toLowerCase().includes(term) || r.href.toLowerCase().includes(term),
  );
  fill(
    $('#resources'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Relation'),
        h('th', { scope: 'col' }, 'Kind'),
        h('th', { scope: 'col' }, 'Address'),
        identities.map((id, i) =>
          h(
            'th',
            { scope: 'col', class: 'who', title: id.username },
            id.label,
            results[i].error ? h('div', { class: 'badge bad' }, results[i].error) : null,
          ),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      shown.map((r) =>
        h(
          'tr',
          { dataset: { key: r.key } },
          h('th', { scope: 'row', class: 'mono' }, r.rel),
          h('td', {}, r.kind),
          h(
            'td',
            { class: 'addr mono' },
            h('a', { href: `/api/browser/browser.html#${encodeURIComponent(r.href)}` }, r.href),
          ),
          r.who.map((yes, i) =>
            h(
              'td',
              {
                class: yes ? 'yes' : 'no',
                'aria-label': `${identities[i].label}: ${yes ? 'visible' : 'not visible'}`,
              },
              yes ? '✓' : '—',
            ),
          ),
        ),
      ),
    ),
  );
  fill($('#counts'), `· ${shown.length} of ${rows.length}`);
  $('#resources').dataset.identities = String(identities.length);
  lastRender = () => render(identities, results);
}

let lastRender = null;
$('#filter').addEventListener('input', () => lastRender?.());
