/**
 * Lookups by a name that came from a client. `table[name]` would also find what every object
 * inherits (`constructor`, `__proto__`, `toString`...), so a typed name reaches only the table's own
 * properties.
 */
export function ownValue<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
