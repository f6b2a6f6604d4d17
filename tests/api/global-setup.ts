import type { TestProject } from "vitest/node";
import { dropSqliteFile, makePostgresTemplate, migrateSqliteTemplate, sqliteFile } from "./template-databases";

// The API files' template databases (vitest.config.ts: the api project's globalSetup): a SQLite file, and a
// PostgreSQL database when TEST_DATABASE_URL is set, each migrated once per run. The harness copies them for
// each suite's fresh database (tests/api/harness.ts, createMigrated) instead of migrating each one. Both are
// removed when the run ends.

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated SQLite template's path. */
    sqliteTemplate: string;
    /** The migrated template database's name on TEST_DATABASE_URL's server; null without PostgreSQL. */
    postgresTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  const sqliteTemplate = sqliteFile("template");
  await migrateSqliteTemplate(sqliteTemplate);
  const adminUrl = process.env.TEST_DATABASE_URL?.trim();
  const postgresTemplate = adminUrl ? await makePostgresTemplate(adminUrl) : null;
  project.provide("sqliteTemplate", sqliteTemplate);
  project.provide("postgresTemplate", postgresTemplate?.name ?? null);
  return async () => {
    dropSqliteFile(sqliteTemplate);
    await postgresTemplate?.drop();
  };
}
