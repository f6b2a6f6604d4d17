import { defineConfig, devices } from "@playwright/test";

// End-to-end tests drive the built server in sandbox mode (SANDBOX=true) on a fresh SQLite database, each flow
// twice: with JavaScript disabled (plain HTML forms) and enabled (React enhancements).
const PORT = Number(process.env.E2E_PORT ?? 3100);
// One database directory per port, so that runs on other ports (E2E_PORT) never share or delete it.
const DATA_DIR = PORT === 3100 ? "data/e2e" : `data/e2e-${PORT}`;
export const E2E_DATABASE = `${DATA_DIR}/portal.sqlite`;
// The server's stdout (JSON lines) for the whole run; the "logs" project scans it at the end.
export const E2E_SERVER_LOG = `${DATA_DIR}/server.log`;

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  // One retry on CI, where two workers share two cores: a timing flake shows as "flaky" in the report
  // instead of failing the run (and skipping the test-clock projects that depend on every other test).
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  // CI machines differ: the same run took 5 min on one and 28 min on another, where flows of 7 s took 30 s.
  // There the limits are twice as long, so that a slow machine is slow rather than red (speed is measured
  // by `npm run bench`, not here), and a trace is kept only for a retry: recording every test costs ~15%.
  timeout: process.env.CI ? 60_000 : 30_000,
  expect: { timeout: process.env.CI ? 15_000 : 7_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  // The test clock moves the server's business time for everyone: its specs run after all others.
  // The log scan reads what the whole run wrote: it runs last.
  projects: [
    { name: "no-js", testIgnore: /(clock|dunning|logs)\.spec/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: false } },
    { name: "js", testIgnore: /(clock|dunning|logs)\.spec/, use: { ...devices["Desktop Chrome"], javaScriptEnabled: true } },
    // clock.spec.ts and paypal-clock.spec.ts both move the time: one worker, so never side by side.
    {
      name: "clock-no-js",
      testMatch: /clock\.spec/,
      workers: 1,
      dependencies: ["no-js", "js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false },
    },
    {
      name: "clock-js",
      testMatch: /clock\.spec/,
      workers: 1,
      dependencies: ["clock-no-js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: true },
    },
    // Failed renewals move the clock too: after the clock specs, one project at a time.
    {
      name: "dunning-no-js",
      testMatch: /dunning\.spec/,
      dependencies: ["clock-js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false },
    },
    {
      name: "dunning-js",
      testMatch: /dunning\.spec/,
      dependencies: ["dunning-no-js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: true },
    },
    {
      name: "logs",
      testMatch: /logs\.spec/,
      dependencies: ["dunning-js"],
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false },
    },
  ],
  webServer: {
    command: `rm -rf ${DATA_DIR} && mkdir -p ${DATA_DIR} && exec node build/server.js > ${E2E_SERVER_LOG}`,
    url: `http://127.0.0.1:${PORT}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    // stdout goes to E2E_SERVER_LOG; anything on stderr (a crash) shows in the run's output.
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      // Every integration on its stand-in (docs/decisions/019).
      SANDBOX: "true",
      PORT: String(PORT),
      DATABASE_URL: E2E_DATABASE,
      PUBLIC_URL: `http://127.0.0.1:${PORT}`,
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
    },
  },
});
