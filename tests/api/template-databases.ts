import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { createDatabase, migrateToLatest, withDefaultUser } from "../../api/platform/db";

// The API files' databases on disk and their migrated templates: what the harness (tests/api/harness.ts) and the
// run's set-up (tests/api/global-setup.ts) share. No Vitest here: the set-up runs outside the test workers.

/** A new SQLite file's path in the temp directory (not created). */
export function sqliteFile(purpose: string): string {
  return join(tmpdir(), `api-${purpose}-${process.pid}-${randomBytes(6).toString("hex")}.sqlite`);
}

export function dropSqliteFile(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
}

/** Migrates a new SQLite file to the latest version and checkpoints it, so that the file alone can be copied. */
export async function migrateSqliteTemplate(file: string): Promise<void> {
  const db = createDatabase(file);
  try {
    await migrateToLatest(db);
    await sql`pragma wal_checkpoint(truncate)`.execute(db);
  } finally {
    await db.destroy();
  }
}

/** Runs one statement on `adminUrl`'s server on a connection of its own (CREATE and DROP DATABASE). */
export async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDefaultUser(adminUrl, postgresUser()) });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on `adminUrl`'s server, with its user, as the API's configuration would give it. */
export function postgresDatabaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return withDefaultUser(url.toString(), postgresUser());
}

/** PGUSER, else USER: the user the API connects as when the URL names none. */
function postgresUser(): string | undefined {
  return process.env.PGUSER || process.env.USER;
}

/** A PostgreSQL database on `adminUrl`'s server migrated to the latest version, with nobody connected to it (as a template must be). */
export async function makePostgresTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `api_template_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const db = createDatabase(postgresDatabaseUrl(adminUrl, name));
  try {
    await migrateToLatest(db);
  } finally {
    // A template is copied only while nobody is connected to it.
    await db.destroy();
  }
  return { name, drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
