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
 * - Both are generic: the Static type of what they return has the props (the non-summary ones
 *   optional), `_links` as any relation → link(s), and `_embedded` as the schema builds it
 *   (`THalObject`, `THalList`), so `Static<typeof CallSchema>` types a Call.
 * - `HalResourceSchema`: any HAL object (an object whose `_links` are links), for generic embeds.
 * - `halQuery('entity' | 'list', extra?)`: the query object of a GET (`expand`, and `filter` on
 *   lists), plus the resource's own parameters; `ExpandParamSchema`, `FilterParamSchema`.
 */
import {
  type Evaluate,
  KindGuard,
  type ObjectOptions,
  type Static,
  type TArray,
  type TObject,
  type TOptional,
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

export type HalLink = Static<typeof HalLinkSchema>;

/**
 * The schema of `_links`: at runtime an object of the documented relations; statically any
 * relation → a link or a list of links (which relations a resource shows depends on the requester).
 */
export interface THalLinks extends TObject {
  static: Record<string, HalLink | HalLink[]>;
}

export function halLinks(
  rels: readonly string[] = ['self'],
  optionalRels: readonly string[] = [],
  closed = false,
): THalLinks {
  const properties: TProperties = {};
  for (const rel of rels) properties[rel] = HalLinkSchema;
  for (const rel of optionalRels) if (!(rel in properties)) properties[rel] = Type.Optional(HalLinkSchema);
  properties.curies = Type.Optional(HalCuriesSchema);
  return Type.Object(properties, {
    additionalProperties: closed ? false : HalLinkValueSchema,
  }) as THalLinks;
}

/** `E` are the declared embeds (none: any HAL objects); `S` the summary properties (none: no summary). */
export interface HalParts<E extends TProperties | undefined = undefined, S extends string = never> {
  /** Required relations (default `['self']`). */
  links?: readonly string[];
  /** Relations documented but not always present. */
  optionalLinks?: readonly string[];
  /** No relations beyond `links`, `optionalLinks` and `curies`. */
  closedLinks?: boolean;
  /** The embeds the resource may carry (each optional). */
  embedded?: E;
  /** Properties an embedded, not expanded, copy keeps; the others become optional. */
  summary?: readonly S[];
}

/** The props of a summary: those not named in `S` optional (all of them when `S` is just `string`). */
type SummaryProps<P extends TProperties, S extends string> = [S] extends [never]
  ? P
  : { [K in keyof P]: K extends S ? (string extends S ? TOptional<P[K]> : P[K]) : TOptional<P[K]> };

type TEmbedded<E extends TProperties | undefined> = E extends TProperties
  ? TObject<{ [K in keyof E]: TOptional<E[K]> }>
  : TObject<Record<never, never>>;

/** The schema `halObject` builds: its Static type has the props, `_links` and an optional `_embedded`. */
export type THalObject<
  P extends TProperties,
  E extends TProperties | undefined = undefined,
  S extends string = never,
> = TObject<Evaluate<SummaryProps<P, S> & { _links: THalLinks; _embedded: TOptional<TEmbedded<E>> }>>;

export function halObject<
  P extends TProperties,
  E extends TProperties | undefined = undefined,
  S extends string = never,
>(props: P, hal: HalParts<E, S> = {}, opts: ObjectOptions = {}): THalObject<P, E, S> {
  const summary: readonly string[] | undefined = hal.summary;
  const properties: TProperties = {};
  for (const [key, schema] of Object.entries(props)) {
    properties[key] = summary && !summary.includes(key) ? optional(schema) : schema;
  }
  properties._links = halLinks(hal.links, hal.optionalLinks, hal.closedLinks);
  properties._embedded = Type.Optional(embeddedSchema(hal.embedded));
  return Type.Object(properties, { additionalProperties: false, ...opts }) as THalObject<P, E, S>;
}

export interface HalListOptions<P extends TProperties = TProperties> extends ObjectOptions {
  props?: P;
  links?: readonly string[];
  optionalLinks?: readonly string[];
  closedLinks?: boolean;
}

/** The schema `halList` builds: its props, `_links`, and `_embedded[N]`, a list of `I`. */
export type THalList<
  N extends string,
  I extends TSchema,
  P extends TProperties = Record<never, TSchema>,
> = TObject<Evaluate<P & { _links: THalLinks; _embedded: TObject<{ [K in N]: TArray<I> }> }>>;

export function halList<N extends string, I extends TSchema, P extends TProperties = Record<never, TSchema>>(
  name: N,
  itemSchema: I,
  opts: HalListOptions<P> = {},
): THalList<N, I, P> {
  const { props = {}, links, optionalLinks, closedLinks, ...objectOpts } = opts;
  const properties: TProperties = { ...props };
  properties._links = halLinks(links, optionalLinks, closedLinks);
  properties._embedded = Type.Object({ [name]: Type.Array(itemSchema) }, { additionalProperties: false });
  return Type.Object(properties, { additionalProperties: false, ...objectOpts }) as THalList<N, I, P>;
}

function embeddedSchema(embedded: TProperties | undefined): TSchema {
  // The renderer only embeds what an entity declares: a resource that declares none never has one.
  if (!embedded) return Type.Object({}, { additionalProperties: false });
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
