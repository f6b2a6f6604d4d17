import type SqliteDatabase from "better-sqlite3";
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from "kysely";

/**
 * better-sqlite3 behind Kysely with its prepared statements kept, by SQL text. Kysely's SQLite
 * driver prepares every query anew, and preparing cost more than running the query: about a third
 * of the database time of a signed-in page (docs/decisions/013-performance-budgets.md). SQLite
 * re-prepares a kept statement itself when the schema changes. A statement still iterating (only
 * Kysely's `.stream()`) is busy, so that SQL gets a fresh one.
 */
export function withStatementCache(sqlite: SqliteDatabase.Database, capacity = 500): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      const kept = statements.get(sql);
      if (kept && !kept.busy) {
        // Most recently used last, so the first entry is the one to drop.
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = sqlite.prepare(sql);
      if (!kept) {
        statements.set(sql, statement);
        if (statements.size > capacity) statements.delete(statements.keys().next().value!);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
