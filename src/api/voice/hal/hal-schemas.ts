/**
 * TypeBox builders for the HAL shapes of the voice API (what `render.ts` produces), shared by every
 * voice resource's response schemas.
 *
 * - `HalLinkSchema`: one link `{href, templated?, name?, title?}` (component `HalLink`).
 * - `halLinks(rels?, optionalRels?, closed?)`: a `_links` object; `rels` are required (default
 *   `['self']`), `optionalRels` documented but optional, `curies` always allowed (top-level
 *   resources carry them). Any other relation (links shown only to some authorities) must still be
 *   a link or an array of links, or, with `closed`, is not allowed.
 * - `halObject(props, { links?, optionalLinks?, closedLinks?, embedded?, summary? }, opts?)`: a HAL
 *   resource with `props`, `_links` and an optional `_embedded`. `embedded` lists the embeds the
 *   resource can carry (each optional; with `additionalProperties: false`, since `expand` only ever
 *   expands declared embeds); without `embedded`, `_embedded` may hold any HAL objects. `summary`
 *   names the properties an embedded, not expanded, copy keeps: the others become optional (use it
 *   for list items and embeds of entities that have a summary). `opts` are TypeBox object options
 *   (`$id`, `description`); `additionalProperties` is false unless `opts` says otherwise.
 * - `halList(name, itemSchema, opts?)`: a list resource: `_embedded[name]` is a required array of
 *   `itemSchema`; `opts.props`, `opts.links`, `opts.optionalLinks`, `opts.closedLinks` as for
 *   `halObject`, the rest TypeBox object options.
 * - `HalResourceSchema`: any HAL object (an object whose `_links` are links), for generic embeds.
 * - `halQuery('entity' | 'list', extra?)`: the query object of a GET (`expand`, and `filter` on
 *   lists), plus the resource's own parameters; `ExpandParamSchema`, `FilterParamSchema`.
 */
import {
  KindGuard,
  type ObjectOptions,
  type TObject,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';

export const HalLinkSchema = Type.Object(
  {
    href: Type.String({ description: 'The target URI, or a URI template when `templated` is true.' }),
    templated: Type.Optional(Type.Boolean()),
    name: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
  },
  { $id: 'HalLink', additionalProperties: false },
);

/** The value of one relation in `_links`: a link or (for `curies` and repeated relations) a list. */
export const HalLinkValueSchema = Type.Union([HalLinkSchema, Type.Array(HalLinkSchema)], {
  $id: 'HalLinkValue',
});

/** The `curies` of a top-level resource: the templates of the relation documents. */
export const HalCuriesSchema = Type.Array(HalLinkSchema, { $id: 'HalCuries' });

/** Any HAL object: whatever properties, with `_links` that are links. */
export const HalResourceSchema = Type.Object(
  {
    _links: Type.Record(Type.String(), HalLinkValueSchema),
    _embedded: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'HalResource', additionalProperties: true },
);

const anyEmbed = Type.Union([HalResourceSchema, Type.Array(HalResourceSchema)]);

export function halLinks(
  rels: readonly string[] = ['self'],
  optionalRels: readonly string[] = [],
  closed = false,
): TObject {
  const properties: TProperties = {};
  for (const rel of rels) properties[rel] = HalLinkSchema;
  for (const rel of optionalRels) if (!(rel in properties)) properties[rel] = Type.Optional(HalLinkSchema);
  properties.curies = Type.Optional(HalCuriesSchema);
  return Type.Object(properties, { additionalProperties: closed ? false : HalLinkValueSchema });
}

export interface HalParts {
  /** Required relations (default `['self']`). */
  links?: readonly string[];
  /** Relations documented but not always present. */
  optionalLinks?: readonly string[];
  /** No relations beyond `links`, `optionalLinks` and `curies`. */
  closedLinks?: boolean;
  /** The embeds the resource may carry (each optional). */
  embedded?: Record<string, TSchema>;
  /** Properties an embedded, not expanded, copy keeps; the others become optional. */
  summary?: readonly string[];
}

export function halObject(props: TProperties, hal: HalParts = {}, opts: ObjectOptions = {}): TObject {
  const properties: TProperties = {};
  for (const [key, schema] of Object.entries(props)) {
    properties[key] = hal.summary && !hal.summary.includes(key) ? optional(schema) : schema;
  }
  properties._links = halLinks(hal.links, hal.optionalLinks, hal.closedLinks);
  properties._embedded = Type.Optional(embeddedSchema(hal.embedded));
  return Type.Object(properties, { additionalProperties: false, ...opts });
}

export interface HalListOptions extends ObjectOptions {
  props?: TProperties;
  links?: readonly string[];
  optionalLinks?: readonly string[];
  closedLinks?: boolean;
}

export function halList(name: string, itemSchema: TSchema, opts: HalListOptions = {}): TObject {
  const { props = {}, links, optionalLinks, closedLinks, ...objectOpts } = opts;
  const properties: TProperties = { ...props };
  properties._links = halLinks(links, optionalLinks, closedLinks);
  properties._embedded = Type.Object({ [name]: Type.Array(itemSchema) }, { additionalProperties: false });
  return Type.Object(properties, { additionalProperties: false, ...objectOpts });
}

function embeddedSchema(embedded: Record<string, TSchema> | undefined): TSchema {
  if (!embedded) return Type.Record(Type.String(), anyEmbed);
  const properties: TProperties = {};
  for (const [name, schema] of Object.entries(embedded)) properties[name] = Type.Optional(schema);
  return Type.Object(properties, { additionalProperties: false });
}

const optional = (schema: TSchema): TSchema =>
  KindGuard.IsOptional(schema) ? schema : Type.Optional(schema);

/** The `expand` query parameter (spec: Query parameters), accepted by every HAL GET. */
export const ExpandParamSchema = Type.String({
  description:
    'Comma-separated keys: `item` (a list’s elements), `all`, `<embed>`, `-<embed>` (exclude), and dotted ' +
    'multi-level keys such as `phones.all`. Unknown keys are ignored.',
});

/** The `filter` query parameter of list resources. */
export const FilterParamSchema = Type.String({
  description:
    'Conditions `<op>(<key>,<value>)` (eq, ne, gt, ge, lt, le, ct, ci, sw, ew) or `<op>(<key>)` (est, nes, ' +
    'emp, nem); comma-separated conditions combine with OR, repeated `filter` parameters with AND.',
});

/** Query of a HAL entity (`expand`) or list (`expand`, `filter`), plus the resource's own parameters. */
export function halQuery(kind: 'entity' | 'list', extra: TProperties = {}): TObject {
  return Type.Object({
    expand: Type.Optional(ExpandParamSchema),
    ...(kind === 'list' ? { filter: Type.Optional(FilterParamSchema) } : {}),
    ...extra,
  });
}
