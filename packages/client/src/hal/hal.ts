import { LinkNotOfferedError } from '../errors.js';
import { expandTemplate, type TemplateVars } from '../http/uri-template.js';

export interface HalLink {
  href: string;
  templated?: boolean;
  name?: string;
  title?: string;
}

/** A HAL representation: the resource's own properties plus `_links` and `_embedded`. */
export type Hal<P = Record<string, unknown>> = P & {
  _links: Record<string, HalLink | HalLink[]>;
  _embedded?: Record<string, unknown>;
};

/** The one link of relation `rel`, or undefined when the resource does not offer it. */
export function findLink(resource: Hal<unknown>, rel: string): HalLink | undefined {
  const l = resource._links?.[rel];
  return Array.isArray(l) ? l[0] : l;
}

/** The address of link `rel`, its template expanded with `vars`; throws when it is not offered. */
export function linkHref(resource: Hal<unknown>, rel: string, vars: TemplateVars = {}): string {
  const link = findLink(resource, rel);
  if (!link) {
    const self = findLink(resource, 'self')?.href ?? 'the resource';
    throw new LinkNotOfferedError(rel, self);
  }
  return link.templated ? expandTemplate(link.href, vars) : link.href;
}

/** The embedded list `name` (an empty list when absent). */
export function embedded<T>(resource: Hal<unknown>, name: string): Hal<T>[] {
  const e = resource._embedded?.[name];
  if (e === undefined) return [];
  return (Array.isArray(e) ? e : [e]) as Hal<T>[];
}

/** A HAL item without its `_links` and `_embedded`: the plain typed properties. */
export function props<T>(resource: Hal<T>): T {
  const { _links: _l, _embedded: _e, ...rest } = resource as Hal<T> & Record<string, unknown>;
  return rest as T;
}
