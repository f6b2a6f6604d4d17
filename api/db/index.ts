import { mkdirSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, resolve } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { parseDatabaseUrl } from "../config";
import { migrations } from "./migrations";
import { withStatementCache } from "./statement-cache";
import type { DB } from "./schema";

export type Database = Kysely<DB>;
export type { DB } from "./schema";
export { dialectOf, isUniqueViolation, type DialectName } from "./dialect";

/**
 * Opens the database named by a DATABASE_URL: a SQLite file path (optionally `file:`-prefixed; the
 * parent folder is created if missing; WAL and foreign keys on) or a postgres:// / postgresql://
 * URL (a pg Pool).
 */
export function createDatabase(url: string): Database {
  const target = parseDatabaseUrl(url);
  if (!target) throw new Error("DATABASE_URL is neither a SQLite file path nor a postgres:// URL.");
  if (target.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: withDefaultUser(target.url), max: 10 });
    // An idle client losing its connection must not crash the process; the next query reports it.
    pool.on("error", (err) => console.error("PostgreSQL pool error:", err.message));
    return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  }
  const inMemory = target.path === ":memory:";
  if (!inMemory) mkdirSync(dirname(resolve(target.path)), { recursive: true });
  const sqlite = new SqliteDatabase(target.path);
  if (!inMemory) sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

/**
 * pg lets an empty user name in the URL override its defaults, so a URL without one
 * (postgres://127.0.0.1:5432/test) gets PGUSER, else USER, else the OS account name, like psql.
 */
export function withDefaultUser(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || !parsed.host) return url;
    const user = process.env.PGUSER || process.env.USER || userInfo().username;
    if (!user) return url;
    parsed.username = encodeURIComponent(user);
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Runs every pending migration (safe to call from several instances at once). */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${reason}`.replace("  ", " "), {
      cause: error,
    });
  }
}

/** `select 1` against the database; true when it answers. */
export async function pingDatabase(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
