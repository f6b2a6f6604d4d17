/**
 * `npm run test:e2e:pg`: the PostgreSQL lane (playwright.pg.config.ts), after checking that the
 * PostgreSQL server in TEST_DATABASE_URL (default postgres://127.0.0.1:5432/test) answers. Without
 * one, CI (CI=true) fails here with the reason; a local run skips the lane, loudly. Arguments are
 * passed on to Playwright.
 */
import { spawnSync } from "node:child_process";
import pg from "pg";
import { withDefaultUser } from "../api/platform/db";

const adminUrl = process.env.TEST_DATABASE_URL?.trim() || "postgres://127.0.0.1:5432/test";
const safeUrl = (() => {
  const url = new URL(adminUrl);
  if (url.password) url.password = "***";
  return url.toString();
})();

async function reachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: withDefaultUser(adminUrl, process.env.PGUSER || process.env.USER), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const problem = await reachable();
if (problem) {
  const banner = [
    "",
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
    `!! PostgreSQL lane: no PostgreSQL server at ${safeUrl} (${problem}).`,
    process.env.CI
      ? "!! CI must run it: start PostgreSQL (.ci/run does) or set TEST_DATABASE_URL. FAILING."
      : "!! SKIPPED locally. Start PostgreSQL or set TEST_DATABASE_URL to run it; CI fails here.",
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
    "",
  ].join("\n");
  console.error(banner);
  process.exit(process.env.CI ? 1 : 0);
}

const run = spawnSync("npx", ["playwright", "test", "-c", "playwright.pg.config.ts", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TEST_DATABASE_URL: adminUrl },
});
process.exit(run.status ?? 1);
