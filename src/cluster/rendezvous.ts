/**
 * Rendezvous (highest random weight) hashing: each tenant's preferred node is the live node with
 * the highest score for (node, tenant). Every node computes the same answer from the same list of
 * live nodes, with no coordination; when a node joins or leaves, only the tenants it wins or held
 * move (about 1/N of them), the rest stay where they are.
 */

/** The preferred node of a tenant among `nodes` (undefined when there are none). */
export function preferredNode(tenantId: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const node of nodes) {
    const s = score(node, tenantId);
    if (s > bestScore || (s === bestScore && best !== undefined && node < best)) {
      best = node;
      bestScore = s;
    }
  }
  return best;
}

/** A well-mixed 32-bit score of (node, tenant): FNV-1a over the text, then a murmur3 finalizer. */
export function score(node: string, tenantId: number): number {
  let h = 0x811c9dc5;
  const text = `${node}\u0000${tenantId}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
