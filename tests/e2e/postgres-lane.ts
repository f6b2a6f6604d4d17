/**
 * The PostgreSQL lane's database (playwright.pg.config.ts): `tsx tests/e2e/postgres-lane.ts create`
 * makes it before the server starts (the webServer command), and the default export, the lane's
 * globalTeardown, drops it after the run. Its name comes from E2E_DATABASE_URL; it is created through
 * E2E_PG_ADMIN_URL (TEST_DATABASE_URL, or the local server's `test` database).
 */
import { pathToFileURL } from "node:url";
import pg from "pg";
import { withDefaultUser } from "../../api/platform/db";

/** Only names this lane makes, so a wrong variable can never drop someone's database. */
const LANE_DATABASE = /^e2e_pg_\d+_[0-9a-f]+$/;

function laneDatabase(): { name: string; adminUrl: string } {
  const url = process.env.E2E_DATABASE_URL;
  const adminUrl = process.env.E2E_PG_ADMIN_URL;
  if (!url || !adminUrl) throw new Error("E2E_DATABASE_URL and E2E_PG_ADMIN_URL are set by playwright.pg.config.ts.");
  const name = new URL(url).pathname.slice(1);
  if (!LANE_DATABASE.test(name)) throw new Error(`${name} is not a PostgreSQL lane database (e2e_pg_<port>_<hex>).`);
  return { name, adminUrl };
}

async function onAdmin(statement: string) {
  const { adminUrl } = laneDatabase();
  const client = new pg.Client({ connectionString: withDefaultUser(adminUrl, process.env.PGUSER || process.env.USER) });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createLaneDatabase() {
  await onAdmin(`CREATE DATABASE ${laneDatabase().name}`);
}

export default async function dropLaneDatabase() {
  // WITH (FORCE): the server is still connected (Playwright stops it after the global teardown).
  await onAdmin(`DROP DATABASE IF EXISTS ${laneDatabase().name} WITH (FORCE)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] !== "create") throw new Error("usage: tsx tests/e2e/postgres-lane.ts create");
  await createLaneDatabase();
}
