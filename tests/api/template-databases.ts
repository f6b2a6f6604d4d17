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

/** A PostgreSQL database on `adminUrl`'s server migrated to the latest version, with nobody connected to it (as a template must be). */
export async function makePostgresTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const user = process.env.PGUSER || process.env.USER;
  const name = `api_template_${randomBytes(6).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: withDefaultUser(adminUrl, user) });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDatabase(url.toString(), user);
  try {
    await migrateToLatest(db);
  } finally {
    // A template is copied only while nobody is connected to it.
    await db.destroy();
  }
  return { name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
