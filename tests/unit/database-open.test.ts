import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../api/platform/db";

// A SQLite file the process cannot open (a container's bind mount owned by root) must say where and why,
// not SQLite's bare "unable to open database file" (docs/decisions/021).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-db-open-"));
fs.chmodSync(dir, 0o755); // others may look inside, as in a container's /app
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("opening the SQLite database", () => {
  it("names the file, its folder and the process's user when it cannot be opened", () => {
    // A folder where the file should be: SQLITE_CANTOPEN for any user, root included.
    const target = path.join(dir, "is-a-folder.sqlite");
    fs.mkdirSync(target);
    expect(() => createDatabase(target)).toThrow(
      new RegExp(`Cannot open the SQLite database ${target.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(SQLITE_CANTOPEN\\): its folder .* must exist and be writable by this process`),
    );
  });

  it("says so for a folder the process may not write (run as uid 1000 when the tests run as root)", (ctx) => {
    const readOnly = path.join(dir, "root-owned");
    fs.mkdirSync(readOnly, { mode: 0o755 });
    const target = path.join(readOnly, "portal.sqlite");
    const asRoot = process.getuid?.() === 0;
    const asUser = asRoot ? { uid: 1000, gid: 1000 } : {};
    // A clone uid 1000 cannot read (under /root, say) cannot run this check as that user.
    const moduleFile = path.resolve("api/platform/db/index.ts");
    const readable = spawnSync(process.execPath, ["--import", "tsx", "-e", `import("node:fs").then((fs) => fs.accessSync(${JSON.stringify(moduleFile)}))`], { cwd: path.resolve("."), ...asUser });
    if (readable.status !== 0) {
      console.warn(`Skipped: uid 1000 cannot read ${moduleFile} and node_modules here, so the check cannot run as that user.`);
      ctx.skip();
    }
    if (!asRoot) fs.chmodSync(readOnly, 0o555);
    // As root every folder is writable, so the check runs in a child process as uid 1000, like the image.
    const script = `import("${path.resolve("api/platform/db/index.ts")}").then(({ createDatabase }) => createDatabase(${JSON.stringify(target)})).then(() => console.log("opened"), (e) => console.log(e.message))`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
      encoding: "utf8",
      cwd: path.resolve("."),
      ...asUser,
    });
    if (!asRoot) fs.chmodSync(readOnly, 0o755);
    expect(child.stdout).toMatch(/Cannot open the SQLite database .*portal\.sqlite \(SQLITE_CANTOPEN\): its folder .*root-owned must exist and be writable by this process \(uid \d+, gid \d+\).*1000:1000/);
  });
});

// Another process writing the same SQLite file (the e2e helpers, a maintenance script) between a
// transaction's first read and its first write: in WAL a deferred transaction cannot upgrade its stale
// snapshot and SQLite answers SQLITE_BUSY at once, without the busy timeout (seen as a 500 on
// register-user in CI's page check). Transactions begin IMMEDIATE, so the other writer waits instead.
describe("transactions on a SQLite file another process writes", () => {
  it("read, another process writes, then write: both commit", async () => {
    const file = path.join(dir, "two-writers.sqlite");
    const db = createDatabase(file) as unknown as Kysely<{ notes: { id: number | null; body: string } }>;
    try {
      await db.schema.createTable("notes").addColumn("id", "integer", (c) => c.primaryKey()).addColumn("body", "text").execute();
      let otherExit: Promise<number | null> | undefined;
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom("notes").selectAll().execute();
        const script = `const db = require("better-sqlite3")(${JSON.stringify(file)}); db.pragma("busy_timeout = 5000"); db.prepare("insert into notes (body) values ('other')").run();`;
        const other = spawn(process.execPath, ["-e", script], { cwd: path.resolve("."), stdio: "inherit" });
        otherExit = new Promise((resolve) => other.once("exit", resolve));
        // Long enough for the other process to write, had nothing stopped it.
        await Promise.race([otherExit, new Promise((r) => setTimeout(r, 1000))]);
        await trx.insertInto("notes").values({ body: "mine" }).execute();
      });
      expect(await otherExit).toBe(0);
      const bodies = (await db.selectFrom("notes").select("body").execute()).map((r) => r.body).sort();
      expect(bodies).toEqual(["mine", "other"]);
    } finally {
      await db.destroy();
    }
  });
});
