import os from "node:os";
import { defineConfig, devices } from "@playwright/test";

import { BROWSER_TEST_ARGS, chromiumPath } from "./tests/support/chromium";
import { e2eDataDir } from "./tests/support/e2e-servers";

// End-to-end tests drive the built server in sandbox mode (SANDBOX=true) on a fresh SQLite database, with
// JavaScript disabled (plain HTML forms) and enabled (React enhancements). A test runs in both projects when the
// two modes take different paths (a form post, a redirect, a dialog); one that only displays a page, or speaks
// HTTP alone, is tagged ONCE and runs without JavaScript only (issue 31): the server's HTML is what it checks,
// and the page check (scripts/page-check.ts) still validates every page state hydrated.
const PORT = Number(process.env.E2E_PORT ?? 3100);
// The test clock moves a server's business time for everyone on it: the specs that move it get a server and
// database of their own on the next port, and run beside the others instead of after them.
const CLOCK_PORT = PORT + 1;
// Failed renewals move the clock too, and are paid through forms that differ with JavaScript: each mode on a
// server of its own, so that neither waits for the clock specs nor for the other (they used to run one after
// another once every other test had finished: 40 s with one core idle).
const DUNNING_PORTS = { "no-js": PORT + 2, js: PORT + 3 };
const DATA_DIR = e2eDataDir(PORT);
export const E2E_DATABASE = `${DATA_DIR}/portal.sqlite`;
// The server's stdout (JSON lines) for the whole run; the "logs" project scans it at the end.
export const E2E_SERVER_LOG = `${DATA_DIR}/server.log`;
/** Where the run's JSON report goes (scripts/test.ts reads it). */
export const E2E_REPORT = "data/e2e-report.json";
/** The tag of a test that runs in the no-js project only (see above). */
const ONCE = /@once/;
/**
 * The whole suite, as CI runs it and as `npm test` runs it on anyone's machine (scripts/test.ts sets
 * TEST_WHOLE_SUITE): a worker per core on two cores (Playwright's own default, half the cores, left one of a
 * 2-core machine idle and took a newcomer's `npm test` far over CI's), CI's limits and one retry with its trace
 * instead of a trace recorded for every test (about 15 % of the run's CPU). A spec run by hand keeps Playwright's
 * defaults, a trace of every failure and the shorter limits (issue 31, docs/decisions/077).
 */
const WHOLE_SUITE = Boolean(process.env.CI || process.env.TEST_WHOLE_SUITE);

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: WHOLE_SUITE ? Math.max(2, Math.floor(os.availableParallelism() / 2)) : undefined,
  // One retry in a whole-suite run, where two workers share two cores: a timing flake shows as "flaky" in the report
  // instead of failing the run (and skipping the test-clock projects that depend on every other test).
  retries: WHOLE_SUITE ? 1 : 0,
  // The JSON report gives `npm test` each spec file's time (scripts/test.ts prints the slowest).
  reporter: process.env.CI
    ? [["list"], ["json", { outputFile: E2E_REPORT }]]
    : [["list"], ["html", { open: "never" }], ["json", { outputFile: E2E_REPORT }]],
  // CI machines differ: the same run took 5 min on one and 28 min on another, where flows of 7 s took 30 s.
  // In a whole-suite run the limits are twice as long, so that a slow machine is slow rather than red (speed is measured
  // by `npm run bench`, not here), and a trace is kept only for a retry: recording every test costs ~15%.
  timeout: WHOLE_SUITE ? 60_000 : 30_000,
  expect: { timeout: WHOLE_SUITE ? 15_000 : 7_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // One browser context and page per worker, reset by Playwright between tests (cookies, cache, storage,
    // extra pages, routes, init scripts, the page clock; docs: TestOptions.reuseContext) instead of a new
    // one per test: a new page cost Chromium 300-400 ms of CPU (a renderer process and its set-up) against
    // ~100 ms for a navigation in one that exists (issue 31). What it does not reset (permissions,
    // geolocation, offline, extra headers, and what a spec sets through CDP: a virtual authenticator, the
    // animation rate) is only changed by specs that take a page of their own: test.use({ reuseContext: false }).
    reuseContext: true,
    trace: WHOLE_SUITE ? "on-first-retry" : "retain-on-failure",
    launchOptions: {
      executablePath: chromiumPath(),
      // One renderer process for all of a worker's pages (each worker has a browser of its own): the page a
      // worker reuses keeps its process, its memory cache and V8's compiled scripts from test to test, instead
      // of a new process when a test's first navigation leaves about:blank (docs/decisions/071).
      args: [...BROWSER_TEST_ARGS, "--renderer-process-limit=1"],
    },
  },
  // The specs that move the clock run on servers of their own beside the others, listed first so that they
  // start first (each is one file in serial mode). The log scan reads what the main server wrote: it runs last.
  projects: [
    // clock.spec.ts and paypal-clock.spec.ts move the time and check what it brings (renewals, reminders,
    // expiry): one worker, so never side by side, and once (the payments they start are the checkout specs').
    {
      name: "clock",
      testMatch: /clock\.spec/,
      workers: 1,
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false, baseURL: `http://127.0.0.1:${CLOCK_PORT}` },
    },
    ...(["no-js", "js"] as const).map((mode) => ({
      name: `dunning-${mode}`,
      testMatch: /dunning\.spec/,
      workers: 1,
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: mode === "js", baseURL: `http://127.0.0.1:${DUNNING_PORTS[mode]}` },
    })),
    { name: "no-js", testIgnore: /(clock|dunning|logs)\.spec/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: false } },
    {
      name: "js",
      testIgnore: /(clock|dunning|logs)\.spec/,
      grepInvert: ONCE,
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: true },
    },
    {
      name: "logs",
      testMatch: /logs\.spec/,
      dependencies: ["no-js", "js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false },
    },
  ],
  // The four servers side by side, in one entry: Playwright starts its entries one after another (11-12 s before the
  // first test, against about 5 s; scripts/e2e-servers.mjs). Each with e2eServerEnv below, its stdout in its DIR/server.log.
  webServer: {
    command: `node scripts/e2e-servers.mjs ${[PORT, CLOCK_PORT, ...Object.values(DUNNING_PORTS)].map((port) => `${port}=${e2eDataDir(port)}`).join(" ")}`,
    wait: { stdout: /e2e servers ready/ },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "ignore" as const,
    stderr: "pipe" as const,
    env: sandboxServerEnv(),
  },
});

/** What every e2e server runs with, but its port, database and address. */
function sandboxServerEnv() {
  return {
    NODE_ENV: "production",
    // Every integration on its stand-in (docs/decisions/019).
    SANDBOX: "true",
    SESSION_SECRET: "e2e-session-secret-0123456789abcdef0123456789",
    // Every test browser comes from 127.0.0.1: keep the per-address limit out of the way here
    // (the limits themselves are tested against the API in tests/api).
    LOGIN_MAX_FAILURES_PER_IP: "10000",
    LOGIN_MAX_FAILURES_PER_EMAIL: "10000",
    LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "10000",
    CODE_MAX_PER_IP_PER_HOUR: "10000",
    COUPON_MAX_ATTEMPTS_PER_IP: "10000",
    CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR: "10000",
    SUPPORT_MAX_PER_IP_PER_HOUR: "10000",
  };
}

/** The environment of the built server in sandbox mode on `port`, with its SQLite database in `dataDir`. */
export function e2eServerEnv(port: number, dataDir: string) {
  return {
    ...sandboxServerEnv(),
    PORT: String(port),
    DATABASE_URL: `${dataDir}/portal.sqlite`,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
}
