import { ownValue } from '../../../core/own.js';

/** The domain-neutral shape every voice resource is built in before the one renderer runs. */
export interface Link {
  href: string;
  templated?: boolean;
  name?: string;
  title?: string;
}

export type Links = Record<string, Link | Link[]>;

export type Embed = Entity | Entity[];

export interface Entity {
  /** Every property the caller may see, in wire order. */
  props: Record<string, unknown>;
  /** Properties kept when this entity is embedded and not expanded; default: all. */
  summary?: readonly string[];
  links: Links;
  /** Embedded resources; thunks are only evaluated when rendered or filtered on. */
  embeds?: Record<string, Embed | (() => Embed)>;
  /** Set on a list resource: the embed that holds its elements. */
  listOf?: string;
  /**
   * The item's own resource, where it costs more to build than the summary in `props` (a list's
   * elements): rendered in its place when expanded, and read by `filter` for keys beyond `props`.
   * Only built when asked for (expand rule 1: an expanded item is its resource).
   */
  resource?: () => Entity;
}

/** Value types of filterable properties. */
export type FieldType = 'string' | 'integer' | 'boolean';

/** What a list item exposes to `filter`: its properties and, recursively, its embeds. */
export interface ItemSchema {
  fields: Record<string, FieldType>;
  embeds?: Record<string, ItemSchema>;
}

export function embedValue(e: Entity, name: string): Embed | undefined {
  const v = ownValue(e.embeds, name);
  return typeof v === 'function' ? v() : v;
}
