import { type SchemaOptions, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { ENUMS } from '../enums/enum-values.js';
import { halList, halObject } from '../hal/hal-schemas.js';
import type { CollectionDef, Ref, SingletonDef } from './collection.js';
import type { FieldSpec, Fields, Mode } from './fields.js';

/**
 * The TypeBox schemas of every provisioning resource, generated from its field descriptors: the
 * same schemas validate POST/PUT bodies (through the voice registry) and are published in the
 * `voice` OpenAPI document. Component ids are `Prov<Name>` (the record), `Prov<Name>Summary` (a
 * list element or an embed), `Prov<Name>List`, `Prov<Name>Create` and `Prov<Name>Update`.
 *
 * The records are tables of loosely typed properties, so no `Static` types are exported: a
 * record's type is `Record<string, unknown>` until the field tables carry literal types.
 */
type Use = Mode | 'response';

export interface CollectionSchemas {
  /** A record, as GET of the item, POST and PUT answer it. */
  item: TObject;
  /** A list element or an embedded record: the summary properties, the others when expanded. */
  summary: TObject;
  list: TObject;
  create: TObject;
  update: TObject;
}

export interface SingletonSchemas {
  item: TObject;
  update: TObject;
}

export const enumValues = (enumName: string): string[] =>
  (ENUMS[enumName] ?? []).map((v) => (Array.isArray(v) ? v[0] : v));

/** `codecSets` -> `codecSet`, `phoneAccessEntries` -> `phoneAccessEntry`. */
export const singular = (collection: string): string =>
  collection.endsWith('ies')
    ? `${collection.slice(0, -3)}y`
    : collection.endsWith('s')
      ? collection.slice(0, -1)
      : collection;

export const capitalized = (name: string) => name[0]!.toUpperCase() + name.slice(1);

/** The name of a collection's records in schema ids and operation ids: `codecSets` -> `CodecSet`. */
export const specName = (collection: string) => capitalized(singular(collection));

/**
 * Whether a body or a response must carry the field. A record shows its required fields and those
 * marked `always`; a defaulted field may be absent from records seeded or stored without it.
 */
const demanded = (spec: FieldSpec, use: Use) =>
  use === 'response'
    ? spec.required === true || spec.always === true
    : use === 'create' && spec.required === true && spec.default === undefined;

/** `null` clears an optional scalar that has no default; lists, objects and defaulted fields keep a value. */
const nullable = (spec: FieldSpec, use: Use) =>
  use !== 'response' &&
  !spec.required &&
  spec.default === undefined &&
  spec.type !== 'list' &&
  spec.type !== 'object';

function annotations(spec: FieldSpec, use: Use): SchemaOptions {
  const notes: string[] = [];
  if (spec.type === 'string' && spec.hint) notes.push(`${capitalized(spec.hint)}.`);
  if (spec.type === 'enum')
    notes.push(`A value of the enum ${spec.enumName} (/api/v1/enums/${spec.enumName}).`);
  if (use !== 'response' && spec.adminOnly)
    notes.push('Only a tenant administrator or a telco user may change it.');
  if (nullable(spec, use)) notes.push('null clears it.');
  return {
    ...(notes.length ? { description: notes.join(' ') } : {}),
    ...(use === 'create' && spec.default !== undefined ? { default: spec.default } : {}),
    ...(use === 'response' && spec.readOnly ? { readOnly: true } : {}),
    ...(use !== 'response' && spec.writeOnly ? { writeOnly: true } : {}),
  };
}

/** The schema of one value (no annotations): what a body may carry, or what a response shows. */
function valueSchema(spec: FieldSpec, use: Use, options: SchemaOptions = {}): TSchema {
  switch (spec.type) {
    case 'string': {
      if (spec.oneOf)
        return Type.Union(
          spec.oneOf.map((v) => Type.Literal(v)),
          options,
        );
      const blankRefused = use !== 'response' && spec.required;
      return Type.String({
        ...options,
        ...(blankRefused ? { minLength: 1 } : {}),
        ...(spec.pattern ? { pattern: spec.pattern.source } : blankRefused ? { pattern: '\\S' } : {}),
      });
    }
    case 'integer':
      return Type.Integer({
        ...options,
        ...(spec.min !== undefined ? { minimum: spec.min } : {}),
        ...(spec.max !== undefined ? { maximum: spec.max } : {}),
      });
    case 'boolean':
      return Type.Boolean(options);
    case 'enum':
      return Type.Union(
        enumValues(spec.enumName).map((v) => Type.Literal(v)),
        options,
      );
    case 'list':
      return Type.Array(valueSchema(spec.of, use === 'update' ? 'create' : use), options);
    case 'object':
      // A nested object is a whole value: on update too, it is given complete.
      return objectSchema(spec.fields, use === 'update' ? 'create' : use, options);
  }
}

function fieldSchema(spec: FieldSpec, use: Use): TSchema {
  const options = annotations(spec, use);
  if (!nullable(spec, use)) return valueSchema(spec, use, options);
  const value = valueSchema(spec, use);
  const members =
    spec.type === 'enum' || (spec.type === 'string' && spec.oneOf)
      ? [...(value.anyOf as TSchema[])]
      : [value];
  return Type.Union([...members, Type.Null()], options);
}

/** The properties of a body (writable fields) or of a response (visible fields), and which are required. */
function fieldProperties(fields: Fields, use: Use): TProperties {
  const props: TProperties = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (use === 'response' ? spec.writeOnly : spec.readOnly) continue;
    const schema = fieldSchema(spec, use);
    props[name] = demanded(spec, use) ? schema : Type.Optional(schema);
  }
  return props;
}

function objectSchema(fields: Fields, use: Use, options: SchemaOptions = {}): TObject {
  // Bodies may carry unlisted properties (ignored); rendered objects carry only listed ones.
  return Type.Object(fieldProperties(fields, use), {
    ...options,
    ...(use === 'response' ? { additionalProperties: false } : {}),
  });
}

const bodyOptions = (id: string, use: Mode): SchemaOptions => ({
  $id: id,
  description:
    use === 'create'
      ? 'A new record. Properties not listed, and read-only ones, are ignored.'
      : 'The properties to change; the others keep their values. Properties not listed, and read-only ones, are ignored.',
});

const isMany = (def: { fields: Fields }, ref: Ref) =>
  ref.field.includes('[].') || def.fields[ref.field]?.type === 'list';

/** The records a resource embeds through its references (each a summary, or a list of them). */
function embedded(def: CollectionDef | SingletonDef): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const [name, ref] of Object.entries(def.refs ?? {})) {
    const target = collectionSchemas(ref.target()).summary;
    out[name] = isMany(def, ref) ? Type.Array(target) : target;
  }
  if ('children' in def)
    for (const [name, child] of Object.entries(def.children ?? {})) out[name] = child.schema;
  return out;
}

/** Single references are documented links; repeated ones (arrays of links) stay generic relations. */
const refLinks = (def: CollectionDef | SingletonDef) =>
  Object.entries(def.refs ?? {})
    .filter(([, ref]) => !isMany(def, ref))
    .map(([name]) => `v1:${name}`);

const byCollection = new Map<string, CollectionSchemas>();
const building = new Set<string>();
const ownerOfName = new Map<string, string>();

/** The schemas of one collection, built once (collections embed each other's summaries). */
export function collectionSchemas(def: CollectionDef): CollectionSchemas {
  const known = byCollection.get(def.name);
  if (known) return known;
  if (building.has(def.name)) throw new Error(`provisioning references form a cycle at ${def.name}`);
  building.add(def.name);
  const name = `Prov${specName(def.name)}`;
  const owner = ownerOfName.get(name) ?? def.name;
  if (owner !== def.name) throw new Error(`${def.name} and ${owner} would share the schema id ${name}`);
  ownerOfName.set(name, def.name);
  // Every record shows its id.
  const idSpec = { ...def.fields[def.idField]!, always: true };
  const props = fieldProperties({ ...def.fields, [def.idField]: idSpec }, 'response');
  const hal = { embedded: embedded(def), optionalLinks: refLinks(def) };
  const summary = halObject(
    props,
    { ...hal, summary: def.summary ?? [def.idField, 'name'] },
    {
      $id: `${name}Summary`,
      description: `A ${def.name} record as a list element or an embed: the summary properties, all of them when expanded.`,
    },
  );
  const schemas: CollectionSchemas = {
    item: halObject(props, hal, { $id: name }),
    summary,
    list: halList(def.name, summary, { $id: `${name}List` }),
    create: objectSchema(def.fields, 'create', bodyOptions(`${name}Create`, 'create')),
    update: objectSchema(def.fields, 'update', bodyOptions(`${name}Update`, 'update')),
  };
  building.delete(def.name);
  byCollection.set(def.name, schemas);
  return schemas;
}

const bySetting = new Map<string, SingletonSchemas>();

export function singletonSchemas(def: SingletonDef): SingletonSchemas {
  const known = bySetting.get(def.name);
  if (known) return known;
  const name = `Prov${capitalized(def.name)}`;
  const schemas: SingletonSchemas = {
    item: halObject(
      fieldProperties(def.fields, 'response'),
      { embedded: embedded(def), optionalLinks: refLinks(def) },
      { $id: name },
    ),
    update: objectSchema(def.fields, 'update', bodyOptions(`${name}Update`, 'update')),
  };
  bySetting.set(def.name, schemas);
  return schemas;
}
