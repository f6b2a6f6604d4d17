import SqliteDatabase from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type Kysely, sql } from "kysely";
import { createDatabase } from "../../api/platform/db";
import { withStatementCache } from "../../api/platform/db/statement-cache";

describe("the SQLite statement cache", () => {
  it("prepares a query once, gives an iterating statement's SQL a fresh one, and keeps at most its capacity", () => {
    const sqlite = new SqliteDatabase(":memory:");
    const db = withStatementCache(sqlite, 2);
    db.prepare("create table t (n integer)").run([]);
    db.prepare("insert into t (n) values (?), (?)").run([1, 2]);
    const select = db.prepare("select n from t order by n");
    expect(db.prepare("select n from t order by n")).toBe(select);
    expect(select.all([])).toEqual([{ n: 1 }, { n: 2 }]);

    // A statement still iterating cannot run again: that SQL gets a fresh statement meanwhile.
    const iterating = (select as unknown as SqliteDatabase.Statement).iterate();
    iterating.next();
    const fresh = db.prepare("select n from t order by n");
    expect(fresh).not.toBe(select);
    expect(fresh.all([])).toEqual([{ n: 1 }, { n: 2 }]);
    iterating.return?.();
    expect(db.prepare("select n from t order by n")).toBe(select);

    // The least recently used goes first.
    const one = db.prepare("select 1");
    db.prepare("select n from t order by n");
    db.prepare("select 2");
    expect(db.prepare("select n from t order by n")).toBe(select);
    expect(db.prepare("select 1")).not.toBe(one);
    db.close();
    expect(sqlite.open).toBe(false);
  });
});

describe("the SQLite query compiler", () => {
  it("writes an integer LIMIT and OFFSET into the SQL (a bound LIMIT makes SQLite recompile the kept statement on every run) and binds anything else", async () => {
    const db = createDatabase(":memory:") as unknown as Kysely<{ t: { n: number } }>;
    await sql`create table t (n integer)`.execute(db);
    await db.insertInto("t").values([{ n: 1 }, { n: 2 }, { n: 3 }]).execute();

    const page = db.selectFrom("t").select("n").where("n", ">", 0).orderBy("n").limit(2).offset(1);
    const compiled = page.compile();
    expect(compiled.sql).toBe('select "n" from "t" where "n" > ? order by "n" limit 2 offset 1');
    expect(compiled.parameters).toEqual([0]);
    expect(await page.execute()).toEqual([{ n: 2 }, { n: 3 }]);

    // Not a safe integer: bound as before, never spliced into the text.
    const bound = db.selectFrom("t").select("n").limit(2n as unknown as number).compile();
    expect(bound.sql).toBe('select "n" from "t" limit ?');
    expect(bound.parameters).toEqual([2n]);
    await db.destroy();
  });
});
