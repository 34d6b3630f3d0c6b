/**
 * The `expand` grammar: comma-separated keys `item`, `all`, `<embed>`, `-<embed>`, and dotted
 * multi-level keys (`<embed>.item`, `<embed>.all`, `<embed>.<embed>`, `-<embed>.<embed>`).
 * Unknown keys are harmless: they name nothing the renderer will meet.
 */
export class ExpandNode {
  /** The entity this node stands for is expanded (all its properties shown). */
  expanded = false;
  /** `all`: every embed of this entity is expanded. */
  all = false;
  /** `item`: a list's elements are expanded. */
  item = false;
  readonly children = new Map<string, ExpandNode>();
  readonly excluded = new Set<string>();

  child(name: string): ExpandNode {
    const existing = this.children.get(name);
    if (existing) return existing;
    const created = new ExpandNode();
    this.children.set(name, created);
    return created;
  }

  /** Is embed `name` of this entity to be expanded? */
  expands(name: string): boolean {
    if (this.excluded.has(name)) return false;
    return this.all || this.children.get(name)?.expanded === true;
  }

  /** The node governing embed `name` (an empty one when nothing was asked for it). */
  under(name: string): ExpandNode {
    return this.children.get(name) ?? EMPTY;
  }

  /** For a list: are its elements expanded (`item`, or one of their embeds, named in `embeds`)? */
  itemsExpanded(embeds: Iterable<string>): boolean {
    if (this.item || this.all) return true;
    for (const name of embeds) if (this.expands(name)) return true;
    return false;
  }
}

const EMPTY = new ExpandNode();

/** The tree of a request without `expand`: the renderer only reads trees, so one is shared. */
const PLAIN = new ExpandNode();
PLAIN.expanded = true;

/** Parses every `expand` value of a request into one tree. */
export function parseExpand(values: readonly string[]): ExpandNode {
  if (values.length === 0) return PLAIN;
  const root = new ExpandNode();
  root.expanded = true;
  for (const value of values) {
    for (const raw of value.split(',')) {
      const key = raw.trim();
      if (key) addKey(root, key);
    }
  }
  return root;
}

function addKey(root: ExpandNode, key: string): void {
  const exclude = key.startsWith('-');
  // `item` is transparent at the top: `item.phones` and `phones` name the same thing in a list.
  const parts = (exclude ? key.slice(1) : key).split('.').filter(Boolean);
  if (parts[0] === 'item' && parts.length > 1) parts.shift();
  if (parts.length === 0) return;
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    node = node.child(parts[i]);
    if (!exclude) node.expanded = true;
  }
  const last = parts[parts.length - 1];
  if (exclude) node.excluded.add(last);
  else if (last === 'all') node.all = true;
  else if (last === 'item') {
    node.item = true;
    node.expanded = true;
  } else node.child(last).expanded = true;
}
