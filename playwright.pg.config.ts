import { randomBytes } from "node:crypto";
import { defineConfig, devices } from "@playwright/test";
import base, { e2eServerEnv } from "./playwright.config";

// The PostgreSQL lane (`npm run test:e2e:pg`): the @smoke tests (sign-in, sign-up, a card purchase),
// without and with JavaScript, against the built server on a fresh PostgreSQL database, then a check
// that what they did is in that database. The database (e2e_pg_<port>_<random>) is created before the
// server starts and dropped after the run; TEST_DATABASE_URL names the server (default: the local one).
const PORT = Number(process.env.E2E_PG_PORT ?? 3150);
const DATA_DIR = `data/e2e-pg-${PORT}`;
const ADMIN_URL = process.env.TEST_DATABASE_URL?.trim() || "postgres://127.0.0.1:5432/test";

// The runner and every worker load this file: the runner's choice reaches the workers (and the support
// code's withDatabase) through the environment they inherit.
process.env.E2E_PG_ADMIN_URL = ADMIN_URL;
if (!process.env.E2E_DATABASE_URL) {
  const url = new URL(ADMIN_URL);
  url.pathname = `/e2e_pg_${PORT}_${randomBytes(6).toString("hex")}`;
  process.env.E2E_DATABASE_URL = url.toString();
}
const DATABASE_URL = process.env.E2E_DATABASE_URL;

export default defineConfig({
  ...base,
  // Beside the main run's report and results, not over them.
  outputDir: "test-results/pg",
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never", outputFolder: "playwright-report/pg" }]],
  use: { ...base.use, baseURL: `http://127.0.0.1:${PORT}` },
  projects: [
    { name: "no-js", grep: /@smoke/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: false } },
    { name: "js", grep: /@smoke/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: true } },
    { name: "pg-data", testMatch: /postgres-lane\.check\.ts/, dependencies: ["no-js", "js"] },
  ],
  globalTeardown: "./tests/e2e/postgres-lane.ts",
  // The database is made first; the server's stdout goes to server.log, a crash shows on stderr.
  webServer: {
    command: `rm -rf ${DATA_DIR} && mkdir -p ${DATA_DIR} && node_modules/.bin/tsx tests/e2e/postgres-lane.ts create && exec node build/server.js > ${DATA_DIR}/server.log`,
    url: `http://127.0.0.1:${PORT}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "ignore",
    stderr: "pipe",
    env: { ...e2eServerEnv(PORT, DATA_DIR), DATABASE_URL },
  },
});
