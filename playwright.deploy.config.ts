import { defineConfig, devices } from "@playwright/test";
import base from "./playwright.config";

// The deploy rehearsal's browser flows (`npm run test:deploy`, scripts/test-deploy.ts): the @smoke tests,
// without and with JavaScript, through the caching proxy in front of two built instances on one PostgreSQL
// database. The script starts everything and sets DEPLOY_BASE_URL (the proxy) and E2E_DATABASE_URL (the
// database the support code makes accounts in); there is no webServer here.
const BASE_URL = process.env.DEPLOY_BASE_URL;
if (!BASE_URL) throw new Error("playwright.deploy.config.ts is run by `npm run test:deploy`, which sets DEPLOY_BASE_URL.");

export default defineConfig({
  ...base,
  webServer: undefined,
  outputDir: "test-results/deploy",
  reporter: [["list"]],
  // As the main run on CI: a timing flake of a browser flow shows as "flaky" (printed with its error) instead
  // of failing the rehearsal; what the rehearsal proves (no leak, no double charge, no lost write) is checked
  // apart from the flows, on the database and the proxy.
  retries: 1,
  workers: 2,
  use: { ...base.use, baseURL: BASE_URL },
  projects: [
    { name: "no-js", grep: /@smoke/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: false } },
    { name: "js", grep: /@smoke/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: true } },
    // What the flows did is in the PostgreSQL database (the check the PostgreSQL lane ends with, which this
    // rehearsal replaces in `npm test`: the same flows on a fresh PostgreSQL database, through two instances).
    { name: "pg-data", testMatch: /postgres-lane\.check\.ts/, dependencies: ["no-js", "js"] },
  ],
});
