import SqliteDatabase from "better-sqlite3";
import { describe, expect, it } from "vitest";
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
