import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { type Browser, type BrowserContext, expect, type Page, test, type TestInfo } from "@playwright/test";
import { SMTPServer } from "smtp-server";
import { createUser, expectHome, hasJavaScript, signIn, submitSignIn } from "../support/e2e";
import { uniqueEmail } from "../support/emails";

// The product API unreachable, then back (decision 012). This spec runs its own split deploy — the
// built API (`node build/api.js`) and the built portal (`node build/server.js` with API_URL pointing
// at it) — so that it can kill, stop and restart the API under a portal that keeps running. Each
// project (no-js, js) gets its own ports from the faults range and its own database; the tests of one
// project run one after another on one worker (they share the deploy).

test.describe.configure({ mode: "serial" });

const API_TIMEOUT_MS = 2_000;
/**
 * What the portal may take beyond the API client's timeout to answer, measured from the request leaving
 * the browser: ten 503 pages rendered at once by a process starved of CPU (3.8 s seen with other work
 * loading two cores thirtyfold). The same bound on CI: the client's timeout holds under concurrency (one
 * deadline per page request, the health probe's failure ending every page's calls at once), and the
 * fault it replaced answered after two timeouts (tests/unit/api-hung.test.ts measures it exactly).
 */
const SLACK_MS = 2_000;
// The portal keeps the API's health answer a second (app/utils/api.server.ts apiHealth): a page
// needing nothing else from the API may still render during the second after the API went away.
const HEALTH_TTL_MS = 1_000;
const healthProbeExpired = () => new Promise((resolve) => setTimeout(resolve, HEALTH_TTL_MS + 100));
// 70 above the main server's port (E2E_PORT): clear of the clock server (+1), the security spec's servers
// (+10 to +49), the PostgreSQL lane (3150) and production-mode's servers (+60 to +69).
const FAULTS_PORT = Number(process.env.E2E_PORT ?? 3100) + 70;
const PORTS: Record<string, { api: number; portal: number }> = {
  "no-js": { api: FAULTS_PORT, portal: FAULTS_PORT + 1 },
  js: { api: FAULTS_PORT + 2, portal: FAULTS_PORT + 3 },
};
const UNAVAILABLE = "We can't reach our servers right now. Please try again in a moment.";

const SIGNED_OUT_PAGES = ["/login", "/pricing", "/get-code", "/forget-password", "/subscription/payment/6"];
const SIGNED_IN_PAGES = ["/", "/billing", "/connected-devices", "/pricing", "/subscription/payment/6"];

/** A mail server the test can switch to refusing every session. */
async function startSmtp() {
  let refusing = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      if (!refusing) return callback();
      return callback(Object.assign(new Error("Service not available"), { responseCode: 421 }));
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => callback());
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.server.address() as { port: number }).port,
    refuse: (value: boolean) => {
      refusing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

class Deploy {
  api?: ChildProcess;
  portal?: ChildProcess;
  readonly database: string;
  readonly portalUrl: string;

  constructor(
    readonly ports: { api: number; portal: number },
    readonly smtpPort: number,
  ) {
    this.database = `data/e2e-faults-${ports.api}/portal.sqlite`;
    this.portalUrl = `http://127.0.0.1:${ports.portal}`;
  }

  async startApi(extraEnv: Record<string, string> = {}): Promise<void> {
    this.api = await startProcess(
      "build/api.js",
      {
        ...extraEnv,
        API_PORT: String(this.ports.api),
        DATABASE_URL: this.database,
        PUBLIC_URL: this.portalUrl,
        // Mail goes to this spec's SMTP server (so it can fail); the other integrations stay sandboxes.
        SMTP_URL: `smtp://127.0.0.1:${this.smtpPort}`,
        LOGIN_MAX_FAILURES_PER_IP: "10000",
        CODE_MAX_PER_IP_PER_HOUR: "10000",
      },
      `http://127.0.0.1:${this.ports.api}/api/plans`,
    );
  }

  async startPortal(): Promise<void> {
    this.portal = await startProcess(
      "build/server.js",
      {
        PORT: String(this.ports.portal),
        API_URL: `http://127.0.0.1:${this.ports.api}`,
        API_TIMEOUT_MS: String(API_TIMEOUT_MS),
        PUBLIC_URL: this.portalUrl,
        SESSION_SECRET: "e2e-faults-session-secret-0123456789abcdef012345",
      },
      `${this.portalUrl}/healthz`,
    );
  }

  signal(which: "api" | "portal", signal: NodeJS.Signals): Promise<void> {
    const child = this[which];
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    if (signal === "SIGSTOP" || signal === "SIGCONT") {
      child.kill(signal);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  }
}

async function startProcess(script: string, env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script], {
    // A production deploy with a live integration (the SMTP server here) must bring its own two-factor key.
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", SANDBOX: "true", TWO_FACTOR_ENCRYPTION_KEY: "ab".repeat(32), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited: ${stderr}`);
    const ok = await fetch(readyUrl).then((r) => r.ok, () => false);
    if (ok) return child;
    if (Date.now() > deadline) throw new Error(`${script} did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let visits = 0;

async function visit(page: Page, url: string, testInfo: TestInfo) {
  // A query of its own for every visit: /pricing is cacheable, and this is about the server's answer.
  const fresh = `${url}${url.includes("?") ? "&" : "?"}visit=${++visits}`;
  const started = Date.now();
  const response = await page.goto(fresh, { waitUntil: "commit" });
  // How long the portal took to answer, from the browser's sending the request to the answer's first
  // byte: not the browser's own work around it (a new tab's renderer on a busy machine takes a second).
  const answeredAfter = response?.request().timing().responseStart ?? -1;
  const elapsed = answeredAfter >= 0 ? Math.round(answeredAfter) : Date.now() - started;
  await page.waitForLoadState("domcontentloaded");
  if (hasJavaScript(testInfo) && response?.status() === 200) await page.locator("html[data-hydrated]").waitFor();
  return { status: response?.status(), elapsed };
}

async function expectUnavailable(page: Page, url: string, testInfo: TestInfo, maxMs: number) {
  const { status, elapsed } = await visit(page, url, testInfo);
  expect(status, url).toBe(503);
  expect(elapsed, `${url} answered after ${elapsed} ms`).toBeLessThan(maxMs);
  await expect(page.getByRole("heading", { name: "Service unavailable" })).toBeVisible();
  await expect(page.getByText(UNAVAILABLE)).toBeVisible();
  await expect(page.getByRole("link", { name: "Try again" })).toBeVisible();
}

async function expectWorking(page: Page, url: string, testInfo: TestInfo) {
  const { status } = await visit(page, url, testInfo);
  expect(status, url).toBe(200);
  await expect(page.getByRole("heading", { name: "Service unavailable" })).toHaveCount(0);
}

let deploy: Deploy;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let signedIn: BrowserContext;
let signedOut: BrowserContext;

test.beforeAll(async ({ browser }, testInfo) => {
  test.setTimeout(120_000);
  const ports = PORTS[testInfo.project.name];
  test.skip(!ports, "runs in the no-js and js projects, each on its own ports");
  smtp = await startSmtp();
  deploy = new Deploy(ports!, smtp.port);
  rmSync(`data/e2e-faults-${ports!.api}`, { recursive: true, force: true });
  await deploy.startApi();
  await deploy.startPortal();
  const contexts = async (b: Browser) => b.newContext({ javaScriptEnabled: hasJavaScript(testInfo), baseURL: deploy.portalUrl });
  signedIn = await contexts(browser);
  signedOut = await contexts(browser);
  const page = await signedIn.newPage();
  // The contexts' baseURL is this deploy's portal, so the shared helpers' relative paths go there.
  await signIn(page, testInfo, await createUser({ database: deploy.database, emailPrefix: "faults", password: "faults-password-123" }));
  await expectHome(page);
  await page.close();
});

test.afterAll(async () => {
  await signedIn?.close();
  await signedOut?.close();
  await deploy?.signal("api", "SIGCONT");
  await deploy?.signal("api", "SIGKILL");
  await deploy?.signal("portal", "SIGTERM");
  await smtp?.close();
});

test("the API down: every page, signed out and signed in, is the 503 page; back without restarting the portal", { tag: "@once" }, async ({}, testInfo) => {
  test.setTimeout(120_000);
  const outPage = await signedOut.newPage();
  const inPage = await signedIn.newPage();
  await deploy.signal("api", "SIGKILL");
  await healthProbeExpired();
  // A refused connection answers at once; the bound is the hanging case's, so a loaded machine does not flake.
  for (const path of SIGNED_OUT_PAGES) await expectUnavailable(outPage, path, testInfo, API_TIMEOUT_MS + SLACK_MS);
  for (const path of SIGNED_IN_PAGES) await expectUnavailable(inPage, path, testInfo, API_TIMEOUT_MS + SLACK_MS);

  await deploy.startApi();
  for (const path of SIGNED_OUT_PAGES) await expectWorking(outPage, path, testInfo);
  for (const path of SIGNED_IN_PAGES) await expectWorking(inPage, path, testInfo);
});

test("the API hanging (stopped, not answering): every page is the 503 page within the client timeout, then works again", { tag: "@once" }, async ({}, testInfo) => {
  test.setTimeout(180_000);
  const outPage = await signedOut.newPage();
  const inPage = await signedIn.newPage();
  await deploy.signal("api", "SIGSTOP");
  await healthProbeExpired();
  try {
    // Each page waits out the client timeout: they are asked at once, each in its own tab, rather than
    // one after another (ten timeouts in a row).
    const hanging = async (context: BrowserContext, path: string) => {
      const tab = await context.newPage();
      await expectUnavailable(tab, path, testInfo, API_TIMEOUT_MS + SLACK_MS);
      await tab.close();
    };
    await Promise.all([
      ...SIGNED_OUT_PAGES.map((path) => hanging(signedOut, path)),
      ...SIGNED_IN_PAGES.map((path) => hanging(signedIn, path)),
    ]);
  } finally {
    await deploy.signal("api", "SIGCONT");
  }
  await healthProbeExpired();
  for (const path of SIGNED_OUT_PAGES) await expectWorking(outPage, path, testInfo);
  for (const path of SIGNED_IN_PAGES) await expectWorking(inPage, path, testInfo);
});

test("a form posted while the API is down says so next to the form, and the same post works once it is back", async ({}, testInfo) => {
  test.setTimeout(120_000);
  const page = await signedOut.newPage();
  const user = await createUser({ database: deploy.database, emailPrefix: "faults", password: "faults-password-123" });
  await visit(page, "/login", testInfo);
  await deploy.signal("api", "SIGKILL");
  await submitSignIn(page, user);
  // In the form's alert (the toast is its echo). Without JavaScript, once the portal's health probe
  // (at most a second old) has seen the API gone, the answer is the 503 page that says it instead.
  const inForm = page.getByRole("alert").filter({ hasText: UNAVAILABLE });
  await expect(hasJavaScript(testInfo) ? inForm : inForm.or(page.getByRole("main").getByText(UNAVAILABLE)).first()).toBeVisible();

  await deploy.startApi();
  await signIn(page, testInfo, user);
  await expectHome(page);
  await signedOut.clearCookies();
});

test("the mail server refusing: a code request shows the API's message, and works once the server takes mail", async ({}, testInfo) => {
  const page = await signedOut.newPage();
  await visit(page, "/get-code", testInfo);
  smtp.refuse(true);
  try {
    await page.getByLabel("Email").fill(uniqueEmail("mail-down"));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    // In the form's alert, where it stays (the toast is its visual echo).
    await expect(page.getByRole("alert").filter({ hasText: "Failed to get login code!" })).toBeVisible();
    await expect(page.getByLabel("Email")).toBeVisible();
  } finally {
    smtp.refuse(false);
  }
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page.getByLabel("Verification code").or(page.getByLabel("Digit 1"))).toBeVisible();
});

test("the card gateway failing: the checkout shows 'Failed to create Stripe payment', and the same button works once it answers", async ({}, testInfo) => {
  test.skip(
    hasJavaScript(testInfo),
    "with JavaScript the card panel tokenizes through /dev/stripe on the portal's origin, which only the embedded deploy serves; the API's 502 is tested in tests/api/faults-payments.test.ts",
  );
  test.setTimeout(120_000);
  // The API again, with the Stripe sandbox refusing to open a Checkout Session (every try of the SDK).
  await deploy.signal("api", "SIGTERM");
  await deploy.startApi({
    STRIPE_SANDBOX_FAULTS: JSON.stringify({ faults: [{ method: "POST", path: "/v1/checkout/sessions", when: "before", kind: "error", times: 3 }] }),
  });
  const page = await signedIn.newPage();
  await visit(page, "/subscription/payment/1", testInfo);
  await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await expect(page.getByText("Failed to create Stripe payment").first()).toBeVisible();

  await deploy.signal("api", "SIGTERM");
  await deploy.startApi();
  await visit(page, "/subscription/payment/1", testInfo);
  await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  // The hosted page is the sandbox's, at PUBLIC_URL: this split deploy does not serve it, the URL is enough here.
  await expect(page).toHaveURL(/\/dev\/stripe\/checkout\/cs_/);
});
