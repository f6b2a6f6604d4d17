import { afterAll, describe, expect, it } from "vitest";
import { type Kysely, sql } from "kysely";
import { createDatabase } from "../../api/platform/db";
import { type Param, prepare } from "../../api/platform/db/prepared";
import type { DB } from "../../api/platform/db/schema";

// A scratch table in a database of each dialect the machine has: SQLite always, PostgreSQL when TEST_DATABASE_URL names one.
type Scratch = { prepared_scratch: { id: number; owner: string; n: number; note: string | null } };
const targets: Array<[string, string]> = [["SQLite", ":memory:"]];
if (process.env.TEST_DATABASE_URL) targets.push(["PostgreSQL", process.env.TEST_DATABASE_URL]);

describe.each(targets)("a prepared query on %s", (_name, url) => {
  const db = createDatabase(url) as unknown as Kysely<Scratch>;
  const asDb = db as unknown as Kysely<DB>;
  const table = `prepared_scratch`;
  afterAll(async () => {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
    await db.destroy();
  });

  // Built with the test's own table: the production queries are typed on DB, this one casts its way through.
  const rowsOf = prepare((k, param: Param<{ owner: string; above: number }>) =>
    (k as unknown as Kysely<Scratch>)
      .selectFrom("prepared_scratch")
      .select(["id", "n"])
      .where("owner", "=", param("owner"))
      .where("n", ">", param("above"))
      .where("note", "=", "kept")
      .orderBy("n")
      .limit(2),
  );

  it("binds each run's values where the builder put them, keeps the constants compiled in, and compiles once", async () => {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
    await sql`create table ${sql.table(table)} (id integer primary key, owner text not null, n integer not null, note text)`.execute(db);
    await db
      .insertInto("prepared_scratch")
      .values([
        { id: 1, owner: "ann", n: 1, note: "kept" },
        { id: 2, owner: "ann", n: 2, note: "kept" },
        { id: 3, owner: "ann", n: 3, note: "other" },
        { id: 4, owner: "ann", n: 4, note: "kept" },
        { id: 5, owner: "bob", n: 5, note: "kept" },
      ])
      .execute();
    expect(await rowsOf.execute(asDb, { owner: "ann", above: 0 })).toEqual([
      { id: 1, n: 1 },
      { id: 2, n: 2 },
    ]);
    expect(await rowsOf.execute(asDb, { owner: "ann", above: 1 })).toEqual([
      { id: 2, n: 2 },
      { id: 4, n: 4 },
    ]);
    expect(await rowsOf.executeTakeFirst(asDb, { owner: "bob", above: 0 })).toEqual({ id: 5, n: 5 });
    expect(await rowsOf.executeTakeFirst(asDb, { owner: "carol", above: 0 })).toBeUndefined();
    // Inside a transaction too: the same compiled SQL, run on the transaction's connection.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("prepared_scratch").values({ id: 6, owner: "carol", n: 6, note: "kept" }).execute();
      expect(await rowsOf.executeTakeFirst(trx as unknown as Kysely<DB>, { owner: "carol", above: 0 })).toEqual({ id: 6, n: 6 });
    });
  });

  it("refuses a value the query does not bind as a parameter of its own", async () => {
    const concatenated = prepare((k, param: Param<{ name: string }>) =>
      (k as unknown as Kysely<Scratch>).selectFrom("prepared_scratch").select("id").where("owner", "=", sql<string>`${param("name")} || 'x'`),
    );
    await expect(concatenated.execute(asDb, { name: "ann" })).resolves.toEqual([]);
    const inlined = prepare((k, param: Param<{ name: string }>) =>
      (k as unknown as Kysely<Scratch>).selectFrom("prepared_scratch").select("id").where("owner", "=", sql.lit(param("name"))),
    );
    await expect(inlined.execute(asDb, { name: "ann" })).rejects.toThrow(/not bound as one parameter/);
  });
});
