import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, PostgresAdapter } from "kysely";

export type DialectName = "sqlite" | "postgres";

export function dialectOf(db: Kysely<any>): DialectName {
  // getExecutor() is marked internal in Kysely's typings but is the one way to reach the adapter
  // from any Kysely instance, including the transaction a migration receives.
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/**
 * Adds an auto-increment integer primary key `id`: `serial primary key` on PostgreSQL,
 * `integer primary key autoincrement` on SQLite (ids never reused).
 */
export function withIdColumn<T extends string>(
  db: Kysely<any>,
  table: CreateTableBuilder<T, never>,
  name = "id",
): CreateTableBuilder<T, never> {
  if (dialectOf(db) === "postgres") {
    return table.addColumn(name, "serial", (c: ColumnDefinitionBuilder) => c.primaryKey());
  }
  return table.addColumn(name, "integer", (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}

/** True for a unique-constraint violation, on SQLite (better-sqlite3) or PostgreSQL (pg). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
