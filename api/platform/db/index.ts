import { mkdirSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, resolve } from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  type LimitNode,
  Migrator,
  type OffsetNode,
  PostgresDialect,
  type QueryCompiler,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
  sql,
  type Driver,
} from "kysely";
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
export function createDatabase(url: string, postgresUser?: string): Database {
  const target = parseDatabaseUrl(url);
  if (!target) throw new Error("DATABASE_URL is neither a SQLite file path nor a postgres:// URL.");
  if (target.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: withDefaultUser(target.url, postgresUser), max: 10 });
    // An idle client losing its connection must not crash the process; the next query reports it.
    pool.on("error", (err) => console.error("PostgreSQL pool error:", err.message));
    return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  }
  const inMemory = target.path === ":memory:";
  let sqlite: SqliteDatabase.Database;
  try {
    if (!inMemory) mkdirSync(dirname(resolve(target.path)), { recursive: true });
    sqlite = new SqliteDatabase(target.path);
    if (!inMemory) sqlite.pragma("journal_mode = WAL");
  } catch (error) {
    throw cannotOpen(target.path, error);
  }
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  return new Kysely<DB>({ dialect: new ImmediateTransactionSqliteDialect({ database: withStatementCache(sqlite) }) });
}

/**
 * Transactions begin IMMEDIATE: they take the write lock first, so another process writing the file
 * (the e2e helpers, a maintenance script) waits its busy timeout. A deferred transaction that read
 * before the other process wrote cannot upgrade its stale snapshot in WAL: SQLite answers SQLITE_BUSY
 * at once, whatever the busy timeout (a 500 on register-user in CI). Within the process nothing
 * changes: Kysely runs one query at a time on the one connection anyway.
 */
class ImmediateTransactionSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    return driver;
  }

  override createQueryCompiler(): QueryCompiler {
    return new LiteralLimitSqliteQueryCompiler();
  }
}

/**
 * Writes an integer LIMIT or OFFSET into the SQL text instead of binding it. SQLite's planner reads a
 * bound LIMIT's value, so it recompiles the statement on every run that binds it anew, which is every
 * run: a kept statement with `limit ?` cost 21 µs against 5 µs with `limit 1` (the subscription read
 * of every signed-in page; issue 31). Only safe integers are written; anything else is bound as before.
 */
export class LiteralLimitSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (!this.appendLiteralInteger("limit ", node.limit)) super.visitLimit(node);
  }

  protected override visitOffset(node: OffsetNode): void {
    if (!this.appendLiteralInteger("offset ", node.offset)) super.visitOffset(node);
  }

  private appendLiteralInteger(keyword: string, node: LimitNode["limit"]): boolean {
    if (!ValueNode.is(node) || typeof node.value !== "number" || !Number.isSafeInteger(node.value)) return false;
    this.append(`${keyword}${node.value}`);
    return true;
  }
}

/**
 * SQLite's own word for a folder it may not write is "unable to open database file" (SQLITE_CANTOPEN): it
 * names neither the file nor the cause. The usual cause is a container's bind-mounted folder owned by
 * root (docs/decisions/021), so the message says who needs to be able to write where.
 */
function cannotOpen(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !["SQLITE_CANTOPEN", "SQLITE_READONLY", "EACCES", "EPERM", "EROFS"].includes(code)) return error;
  const file = resolve(path);
  const who = typeof process.getuid === "function" ? ` (uid ${process.getuid()}, gid ${process.getgid?.()})` : "";
  return new Error(
    `Cannot open the SQLite database ${file} (${code}): its folder ${dirname(file)} must exist and be writable by this process${who}, ` +
      "and the path must not be a folder. In the container image, mount a named volume at /app/data " +
      "(-v portal-data:/app/data) or a host folder owned by 1000:1000 (README, \"Docker\").",
    { cause: error },
  );
}

/**
 * pg lets an empty user name in the URL override its defaults, so a URL without one
 * (postgres://127.0.0.1:5432/test) gets the given user (the configuration's PGUSER, else USER), else the
 * OS account name, like psql.
 */
export function withDefaultUser(url: string, user: string | undefined): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || !parsed.host) return url;
    user ||= userInfo().username;
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
