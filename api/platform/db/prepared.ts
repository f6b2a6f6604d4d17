import type { Compilable, CompiledQuery, Kysely } from "kysely";
import { dialectOf, type DialectName } from "./dialect";
import type { DB } from "./schema";

/*
 * A query built and compiled once per dialect, then run with each call's values (issue 31). Kysely
 * builds a query as a tree of frozen nodes and compiles it with a visitor on every run: for the few
 * queries every signed-in request makes (the token, the subscription, the sandbox clock) that was
 * about a third of the time they took, SQLite's own work included. Only the values change from run to
 * run, so the SQL is compiled once with a marker in each value's place, and each run binds the values
 * where the markers were. better-sqlite3's statement cache (statement-cache.ts) then reuses the
 * statement as well.
 *
 * For queries whose shape does not depend on the values: a value that changes the SQL (a list for
 * `in`, an optional filter) cannot be a parameter here, and `prepare` refuses a marker that the
 * compiled query does not bind as exactly one of its parameters.
 */

const MARKER = "\u0000prepared-query-parameter:";

/** Stands for a value in a prepared query's builder; typed as the value it stands for. */
export type Param<Values> = <K extends keyof Values & string>(name: K) => Values[K];

interface Compiled {
  sql: string;
  /** For each bound parameter: the name of the value that goes there, or the constant compiled in. */
  slots: Array<{ name: string } | { constant: unknown }>;
  query: CompiledQuery;
}

export interface PreparedQuery<Values, Row> {
  /** Every row. */
  execute(db: Kysely<DB>, values: Values): Promise<Row[]>;
  /** The first row, or undefined. */
  executeTakeFirst(db: Kysely<DB>, values: Values): Promise<Row | undefined>;
}

/**
 * `build` receives the database and `param`, and returns the query with `param("name")` wherever a
 * run's value goes. It is called once per dialect, on the first run.
 */
export function prepare<Values extends Record<string, unknown>, Row>(
  build: (db: Kysely<DB>, param: Param<Values>) => Compilable<Row>,
): PreparedQuery<Values, Row> {
  const byDialect = new Map<DialectName, Compiled>();
  const compiledFor = (db: Kysely<DB>): Compiled => {
    const dialect = dialectOf(db);
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      compiled = compile(build(db, ((name: string) => `${MARKER}${name}`) as Param<Values>).compile());
      byDialect.set(dialect, compiled);
    }
    return compiled;
  };
  const execute = async (db: Kysely<DB>, values: Values): Promise<Row[]> => {
    const { query, slots } = compiledFor(db);
    const parameters = slots.map((slot) => ("name" in slot ? values[slot.name] : slot.constant));
    const result = await db.executeQuery<Row>({ ...query, parameters } as CompiledQuery<Row>);
    return result.rows;
  };
  return {
    execute,
    async executeTakeFirst(db, values) {
      return (await execute(db, values))[0];
    },
  };
}

function compile(query: CompiledQuery): Compiled {
  const slots = query.parameters.map((value) =>
    typeof value === "string" && value.startsWith(MARKER) ? { name: value.slice(MARKER.length) } : { constant: value },
  );
  const misplaced = query.sql.includes(MARKER) || slots.some((slot) => "constant" in slot && typeof slot.constant === "string" && slot.constant.includes(MARKER));
  if (misplaced) throw new Error(`A prepared query's value is not bound as one parameter of its own: ${query.sql}`);
  return { sql: query.sql, slots, query };
}
