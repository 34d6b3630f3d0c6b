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
 */
export class CompiledShapes<R> {
  private readonly byShape = new Map<string, CompiledQuery<R>>();

  constructor(private readonly db: Executor) {}

  /** The rows of the `shape` query with `parameters` (in the order its SQL takes them). */
  async rows(shape: string, parameters: readonly unknown[], build: () => Compilable<R>): Promise<R[]> {
    const known = this.byShape.get(shape);
    if (known) return (await this.db.executeQuery<R>({ ...known, parameters })).rows;
    const compiled = build().compile();
    if (!sameParameters(compiled.parameters, parameters))
      throw new Error(`query shape ${shape} takes its parameters in another order than given`);
    this.byShape.set(shape, compiled);
    return (await this.db.executeQuery<R>(compiled)).rows;
  }
}

/** What runs a compiled query: any `Kysely` instance. */
interface Executor {
  executeQuery<O>(query: CompiledQuery<O>): Promise<QueryResult<O>>;
}

const sameParameters = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
