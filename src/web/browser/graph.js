// The resource graph: the live root, v1 root and uridictionary, drawn as a tree in SVG.
import { $, fill, setStatus, topBar, voiceClient } from '/assets/tools.js';

topBar('Resource graph');
const SVG = 'http://www.w3.org/2000/svg';
const COL = 250;
const BOX_W = 226;
const BOX_H = 36;
const ROW = 42;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const pathOf = (href) => href.replace(/\{\?[^}]*\}/g, '').split('?')[0];
const segments = (href) => pathOf(href).split('/').filter(Boolean);
const isVar = (seg) => /^\{[^}]+\}$/.test(seg);
const sameSeg = (a, b) => a === b || isVar(a) || isVar(b);

/** true when parent's address is a proper prefix of child's, segment by segment. */
function extendsPath(parent, child) {
  const p = segments(parent);
  const c = segments(child);
  return p.length < c.length && p.every((seg, i) => sameSeg(seg, c[i]));
}
function samePath(a, b) {
  const x = segments(a);
  const y = segments(b);
  return x.length === y.length && x.every((seg, i) => sameSeg(seg, y[i]));
}

function linksOf(doc) {
  const out = [];
  for (const [rel, value] of Object.entries(doc?._links ?? {})) {
    if (rel === 'self' || rel === 'curies') continue;
    for (const l of Array.isArray(value) ? value : [value]) out.push({ rel, href: l.href });
  }
  return out;
}

/** Builds the tree: /api → its links; /api/v1 → its relations; dictionary templates under the resource they extend. */
export function buildGraph(root, v1, dictionary) {
  const nodes = [];
  const add = (node) => {
    nodes.push({ ...node, children: [] });
    return nodes.at(-1);
  };
  const api = add({ id: 'api', name: '/api', href: '/api', kind: 'root' });
  let v1Node = null;
  for (const { rel, href } of linksOf(root)) {
    const node = add({ id: rel, name: rel, href, kind: /ws$/.test(href) ? 'socket' : 'resource', rel });
    api.children.push(node);
    if (rel === 'api:v1') v1Node = node;
  }
  if (!v1Node) return { root: api, nodes };
  const relations = [];
  for (const { rel, href } of linksOf(v1)) {
    const node = add({ id: rel, name: rel, href, kind: 'resource', rel, v1: true });
    relations.push(node);
  }
  const templates = [];
  for (const { rel, href } of linksOf(dictionary)) {
    const same = relations.find((r) => samePath(r.href, href));
    if (same) {
      same.alias = rel;
      continue;
    }
    templates.push(add({ id: `dict:${rel}`, name: rel, href, kind: 'template', template: rel }));
  }
  const dictionaryNode = relations.find((r) => r.rel === 'v1:uriDictionary');
  const candidates = [...relations, ...templates];
  const parentOf = (node) => {
    let best = null;
    for (const c of candidates)
      if (
        c !== node &&
        extendsPath(c.href, node.href) &&
        (!best || segments(c.href).length > segments(best.href).length)
      )
        best = c;
    return best;
  };
  for (const r of relations) {
    const parent = parentOf(r);
    (parent?.v1 ? parent : v1Node).children.push(r);
  }
  for (const t of templates) (parentOf(t) ?? dictionaryNode ?? v1Node).children.push(t);
  return { root: api, nodes };
}

/** Outline layout: leaves take one row each, a parent sits level with its first child. */
function layout(root) {
  let row = 0;
  let depthMax = 0;
  const place = (node, depth) => {
    node.depth = depth;
    depthMax = Math.max(depthMax, depth);
    if (!node.children.length) node.row = row++;
    else {
      for (const c of node.children) place(c, depth + 1);
      node.row = node.children[0].row;
    }
  };
  place(root, 0);
  return { rows: row, depth: depthMax };
}

function draw({ root, nodes }) {
  const { rows, depth } = layout(root);
  const width = (depth + 1) * COL + 20;
  const height = Math.max(rows, 1) * ROW + 20;
  const svg = s('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': 'Resource graph',
  });
  const x = (n) => 10 + n.depth * COL;
  const y = (n) => 10 + n.row * ROW;
  const edges = s('g', { class: 'edges' });
  const boxes = s('g', { class: 'nodes' });
  const visit = (n) => {
    for (const c of n.children) {
      const x1 = x(n) + BOX_W;
      const y1 = y(n) + BOX_H / 2;
      const x2 = x(c);
      const y2 = y(c) + BOX_H / 2;
      const mid = (x1 + x2) / 2;
      edges.append(
        s('path', {
          class: `edge${c.kind === 'template' ? ' nested' : ''}`,
          d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`,
          'data-from': n.id,
          'data-to': c.id,
        }),
      );
      visit(c);
    }
  };
  visit(root);
  for (const n of nodes) {
    if (n.row === undefined) continue;
    const label = n.alias ? `${n.name} = ${n.alias}` : n.name;
    const g = s(
      'g',
      {
        class: `node kind-${n.kind}`,
        transform: `translate(${x(n)},${y(n)})`,
        tabindex: 0,
        role: 'link',
        'aria-label': `${label} ${n.href}`,
        'data-id': n.id,
        'data-rel': n.rel,
        'data-template': n.template,
      },
      s('title', {}, `${label}\n${n.href}`),
      s('rect', { width: BOX_W, height: BOX_H }),
      s('text', { class: 'name', x: 8, y: 15 }, clip(label, 30)),
      s('text', { class: 'path', x: 8, y: 29 }, clip(n.href, 34)),
    );
    const openIt = () =>
      window.open(`/api/browser/browser.html#${encodeURIComponent(n.href)}`, '_blank', 'noopener');
    g.addEventListener('click', openIt);
    g.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      openIt();
    });
    boxes.append(g);
  }
  svg.append(edges, boxes);
  return svg;
}

const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

$('#login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const client = voiceClient($('#username').value, $('#password').value);
  setStatus($('#status'), 'Reading /api …');
  const root = await client('GET', '/api');
  if (!root.ok)
    return setStatus($('#status'), `/api answered ${root.status}: ${root.json?.detail ?? root.text}`, 'bad');
  const v1Href = root.json?._links?.['api:v1']?.href ?? '/api/v1';
  const v1 = await client('GET', v1Href);
  if (!v1.ok) return setStatus($('#status'), `${v1Href} answered ${v1.status}`, 'bad');
  const dictHref = v1.json?._links?.['v1:uriDictionary']?.href;
  const dict = dictHref ? await client('GET', dictHref) : null;
  const graph = buildGraph(root.json, v1.json, dict?.ok ? dict.json : null);
  fill($('#graph'), draw(graph));
  const rels = graph.nodes.filter((n) => n.v1).length;
  const templates = graph.nodes.filter((n) => n.kind === 'template').length;
  fill($('#counts'), `· ${rels} v1 relations, ${templates} more templates`);
  setStatus(
    $('#status'),
    dict && !dict.ok ? `Drawn. The uridictionary is not visible to this user (${dict.status}).` : 'Drawn.',
    'ok',
  );
});
