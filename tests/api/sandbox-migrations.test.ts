import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, createDatabase, migrateToLatest } from "../../api/platform/db";
import { SANDBOX_MIGRATION_TABLE, migrateSandboxes, sandboxMigrations } from "../../api/sandboxes/migrations";
import { LIVE_ESSENTIALS, type TestDatabase, databases, startApi } from "./harness";

// The sandboxes' tables have a migration set of their own (docs/decisions/024), run only in sandbox
// mode. The product's 0004/0005 made the same tables before and stay as they are (deployed databases
// ran them), so the sandbox set must create exactly those tables on a database that never had them
// and leave a database that has them as it is.

const SANDBOX_TABLES = ["stripe_sandbox_objects", "bitpay_sandbox_invoices"];

async function columnsOf(db: Database) {
  const tables = await db.introspection.getTables();
  return Object.fromEntries(
    SANDBOX_TABLES.map((name) => [
      name,
      tables
        .find((t) => t.name === name)
        ?.columns.map(({ name, dataType, isNullable, hasDefaultValue }) => ({ name, dataType, isNullable, hasDefaultValue }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ]),
  );
}

async function indexExists(db: Database, kind: string): Promise<boolean> {
  const found =
    kind === "postgres"
      ? await sql<{ n: number }>`select count(*)::int as n from pg_indexes where indexname = 'stripe_sandbox_objects_type_idx'`.execute(db)
      : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'index' and name = 'stripe_sandbox_objects_type_idx'`.execute(db);
  return Number(found.rows[0]?.n) === 1;
}

describe.each(databases({ postgres: "migrations: dialect branches" }))("the sandboxes' own migrations ($name)", (kind) => {
  const opened: { db: Database; database: TestDatabase }[] = [];
  async function freshDatabase() {
    const database = await kind.create();
    const db = createDatabase(database.url);
    opened.push({ db, database });
    return db;
  }
  afterAll(async () => {
    for (const { db, database } of opened) {
      await db.destroy().catch(() => undefined);
      await database.drop();
    }
  });

  it("create, on a database that never had them, the tables 0004/0005 create, with their index", async () => {
    const sandboxOnly = await freshDatabase();
    await migrateSandboxes(sandboxOnly);
    const product = await freshDatabase();
    await migrateToLatest(product);

    const made = await columnsOf(sandboxOnly);
    for (const table of SANDBOX_TABLES) expect(made[table], table).toBeDefined();
    expect(made).toEqual(await columnsOf(product));
    expect(await indexExists(sandboxOnly, kind.name)).toBe(true);
  });

  it("leave a database that 0004/0005 migrated as it is, and are recorded apart from the product's", async () => {
    const db = await freshDatabase();
    await migrateToLatest(db);
    await db.insertInto("stripe_sandbox_objects").values({ id: "cus_kept", type: "customer", customer: null, data: "{}", created: 1 }).execute();
    await db.insertInto("bitpay_sandbox_invoices").values({ id: "inv_kept", data: "{}", created: 1 }).execute();

    await migrateSandboxes(db);
    await migrateSandboxes(db); // idempotent: nothing pending the second time

    expect(await db.selectFrom("stripe_sandbox_objects").select("id").execute()).toEqual([{ id: "cus_kept" }]);
    expect(await db.selectFrom("bitpay_sandbox_invoices").select("id").execute()).toEqual([{ id: "inv_kept" }]);
    const sandboxRecord = await sql<{ name: string }>`select name from ${sql.table(SANDBOX_MIGRATION_TABLE)} order by name`.execute(db);
    expect(sandboxRecord.rows.map((r) => r.name)).toEqual(Object.keys(sandboxMigrations));
    const productRecord = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    expect(productRecord.rows.map((r) => r.name)).not.toContain("0001_sandbox_tables");
  });

  it("run in sandbox mode only", async () => {
    const hasSandboxMigrations = async (db: Database) =>
      (await db.introspection.getTables({ withInternalKyselyTables: true })).some((t) => t.name === SANDBOX_MIGRATION_TABLE);

    const sandbox = await startApi(kind);
    try {
      expect(await hasSandboxMigrations(sandbox.db)).toBe(true);
    } finally {
      await sandbox.close();
    }
    const live = await startApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "" } });
    try {
      expect(await hasSandboxMigrations(live.db)).toBe(false);
    } finally {
      await live.close();
    }
  });
});
