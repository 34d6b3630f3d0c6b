import type { Compilable, CompiledQuery, QueryResult } from 'kysely';

/**
 * Kysely queries compiled once per shape, then run with each request's parameters. Building a
 * query (immutable operation nodes, one copy per `where`) and compiling it to SQL was about 12 %
 * of the busy time of the contact-center call reads, which run the same few shapes on every
 * request (issue 19). A shape is what decides the SQL text: which clauses a query has, never the
 * values. The first run of a shape builds and compiles it with its real parameters and checks that
 * the compiled parameters are exactly the ones the caller names, in the same order: a shape whose
 * SQL would take its parameters differently fails there, loudly, instead of answering wrongly.
 * The compiled query is the dialect's own (SQLite or PostgreSQL), and runs through Kysely's
 * executor like any other (its connection handling, plugins and statement cache).
 *
 * Writes use it too (the owner's live-state batches and call records: their builders were about
 * 390 µs of every forwarded command's 2,200 on the owner, issue 16); a write's shape includes its
 * row count, and a count past what is worth keeping is built and run without being kept
 * (`shape` undefined). A write in a transaction runs on the transaction (`on`).
 */
export class CompiledShapes<R> {
  private readonly byShape = new Map<string, CompiledQuery<R>>();

  /** `db`: where the queries run unless a call names another (none: each call names its own). */
  constructor(private readonly db?: Executor) {}

  /**
   * The rows of the `shape` query with `parameters` (in the order its SQL takes them), run `on`
   * the given executor (a transaction) or the store's. `shape` undefined: built, checked and run,
   * not kept.
   */
  async rows(
    shape: string | undefined,
    parameters: readonly unknown[],
    build: () => Compilable<R>,
    on: Executor | undefined = this.db,
  ): Promise<R[]> {
    if (!on) throw new Error(`query shape ${shape ?? '(not kept)'} has nothing to run on`);
    const known = shape === undefined ? undefined : this.byShape.get(shape);
    if (known) return (await on.executeQuery<R>({ ...known, parameters })).rows;
    const compiled = build().compile();
    if (!sameParameters(compiled.parameters, parameters))
      throw new Error(
        `query shape ${shape ?? '(not kept)'} takes its parameters in another order than given`,
      );
    if (shape !== undefined) this.byShape.set(shape, compiled);
    return (await on.executeQuery<R>(compiled)).rows;
  }
}

/** What runs a compiled query: any `Kysely` instance. */
interface Executor {
  executeQuery<O>(query: CompiledQuery<O>): Promise<QueryResult<O>>;
}

const sameParameters = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/**
 * An upsert's `doUpdateSet` that sets `columns` (but `key`) from the row the insert proposed
 * (`excluded.<column>`, in SQLite and PostgreSQL alike), so the row's values are parameters once.
 */
export function excludedOf(
  eb: { ref(reference: string): unknown },
  columns: readonly string[],
  key: readonly string[],
): never {
  const set: Record<string, unknown> = {};
  for (const column of columns) if (!key.includes(column)) set[column] = eb.ref(`excluded.${column}`);
  return set as never;
}
