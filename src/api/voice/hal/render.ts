import type { ExpandNode } from './expand.js';
import { type Entity, embedValue, type Link } from './model.js';

export type Namespace = 'api' | 'v1';

export const HAL_JSON = 'application/hal+json';

/** The link-relation documents are reached through these templates (spec: Versioning). */
export function curies(ns: Namespace): Link[] {
  return ns === 'api'
    ? [{ name: 'api', href: '/api/releases/{rel}', templated: true }]
    : [
        { name: 'v1', href: '/api/v1/rels/{rel}', templated: true },
        { name: 'v1options', href: '/api/v1/rels/{rel}', templated: true },
      ];
}

/** Built once: every response carries them, and the rendered body is only serialized. */
const CURIES: Record<Namespace, Link[]> = { api: curies('api'), v1: curies('v1') };

/** The one HAL renderer: a top-level entity with curies, expanded per the `expand` tree. */
export function renderHal(entity: Entity, expand: ExpandNode, ns: Namespace): Record<string, unknown> {
  const body = renderEntity(entity, expand, true);
  // Not `{ ...links, curies }`: V8 gave that literal a fresh hidden class on every request.
  const links: Record<string, unknown> = {};
  Object.assign(links, body._links);
  links.curies = CURIES[ns];
  body._links = links;
  return body;
}

function renderEntity(entity: Entity, node: ExpandNode, expanded: boolean): Record<string, unknown> {
  if (expanded && entity.resource) return renderEntity(entity.resource(), node, true);
  const out: Record<string, unknown> = {};
  if (expanded || !entity.summary) Object.assign(out, entity.props);
  else for (const k of entity.summary) if (k in entity.props) out[k] = entity.props[k];
  out._links = entity.links;
  if (!expanded || !entity.embeds) return out;
  const embedded: Record<string, unknown> = {};
  for (const name of Object.keys(entity.embeds)) {
    const value = embedValue(entity, name);
    if (value === undefined) continue;
    const sub = node.under(name);
    // A list resource embeds its elements; `item` (or anything asked below them) expands them.
    const expandIt = entity.listOf === name ? node.itemsExpanded(embedNamesOf(value)) : node.expands(name);
    const itemNode = entity.listOf === name ? node : sub;
    embedded[name] = Array.isArray(value)
      ? renderEach(value, itemNode, expandIt)
      : renderEntity(value, itemNode, expandIt);
  }
  if (Object.keys(embedded).length > 0) out._embedded = embedded;
  return out;
}

/**
 * A loop, not `Array.prototype.map`: optimized code makes map's result a holey array, which
 * JSON.stringify serializes on its slow path (seen in the request-path profile).
 */
function renderEach(values: Entity[], node: ExpandNode, expanded: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const v of values) out.push(renderEntity(v, node, expanded));
  return out;
}

function embedNamesOf(value: Entity | Entity[]): Set<string> {
  const names = new Set<string>();
  for (const e of Array.isArray(value) ? value : [value])
    for (const n of Object.keys(e.embeds ?? {})) names.add(n);
  return names;
}
