import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { expect, test, type TestInfo } from "@playwright/test";
import { DEMO, expectHome, signIn } from "../support/e2e";
import { exitOf, waitForHealth } from "../support/processes";

// Sandbox mode is a deliberate setting (docs/decisions/019). The main e2e server runs with
// SANDBOX=true and says so on every page; this file also starts the built server the way a real
// deploy does (NODE_ENV=production, no SANDBOX) and proves that no stand-in answers there.

const BANNER = "Sandbox: no real payments or emails";

/** What a real deploy must bring: mail and a card gateway (nothing is called at start). */
const LIVE_ESSENTIALS = {
  SMTP_URL: "smtp://127.0.0.1:9",
  STRIPE_SECRET_KEY: "sk_test_production_mode_spec",
  STRIPE_PUBLISHABLE_KEY: "pk_test_production_mode_spec",
  STRIPE_WEBHOOK_SECRET: "whsec_production_mode_spec",
  TWO_FACTOR_ENCRYPTION_KEY: "cd".repeat(32),
  SELLER_NAME: "VPN Test GmbH",
  SELLER_ADDRESS: "Teststraße 1\\n10115 Berlin\\nGermany",
  SELLER_VAT_ID: "DE123456789",
  SESSION_SECRET: "production-mode-spec-secret-0123456789abcdef",
};

function portOf(testInfo: TestInfo) {
  return Number(process.env.E2E_PORT ?? 3100) + 60 + (testInfo.workerIndex % 10);
}

type Started = { child: ChildProcess; output: () => string; dataDir: string };

/** The built server as a deploy starts it: only the variables given (and PATH), production mode. */
function startBuiltServer(port: number, env: Record<string, string>): Started {
  const dataDir = `data/e2e-production-${port}`;
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  let output = "";
  const child = spawn(process.execPath, ["build/server.js"], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      PORT: String(port),
      DATABASE_URL: `${dataDir}/portal.sqlite`,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { child, output: () => output, dataDir };
}


async function stop(started: Started) {
  if (started.child.exitCode === null) {
    await new Promise<void>((resolve) => {
      started.child.once("exit", () => resolve());
      started.child.kill("SIGTERM");
    });
  }
  fs.rmSync(started.dataDir, { recursive: true, force: true });
}


test.describe("sandbox mode says so", () => {
  test("every page carries the sandbox banner", async ({ page }, testInfo) => {
    for (const path of ["/login", "/pricing", "/get-code", "/forget-password", "/no-such-page"]) {
      await page.goto(path);
      await expect(page.getByRole("complementary", { name: "Sandbox mode" })).toHaveText(BANNER);
    }
    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    await expect(page.getByRole("complementary", { name: "Sandbox mode" })).toHaveText(BANNER);
  });
});

// Server processes of their own: once (tagged @once: the no-JavaScript project only).
test.describe("a production start without SANDBOX", { tag: "@once" }, () => {
  test.describe.configure({ timeout: 120_000 });

  test("refuses to start without mail and a card gateway, naming every missing variable", async ({}, testInfo) => {
    const started = startBuiltServer(portOf(testInfo), {});
    try {
      expect(await exitOf(started)).toBe(1);
      const output = started.output();
      expect(output).toContain("The server cannot start. Invalid environment:");
      for (const name of [
        "SMTP_URL",
        "STRIPE_SECRET_KEY",
        "STRIPE_PUBLISHABLE_KEY",
        "STRIPE_WEBHOOK_SECRET",
        "TWO_FACTOR_ENCRYPTION_KEY",
        "SESSION_SECRET",
        "SELLER_NAME",
        "SELLER_ADDRESS",
        "SELLER_VAT_ID",
      ]) {
        expect(output).toContain(`${name}: required outside sandbox mode`);
      }
    } finally {
      await stop(started);
    }
  });

  test("refuses a half-configured integration", async ({}, testInfo) => {
    const started = startBuiltServer(portOf(testInfo), { ...LIVE_ESSENTIALS, GOOGLE_CLIENT_ID: "live.apps.googleusercontent.com" });
    try {
      expect(await exitOf(started)).toBe(1);
      expect(started.output()).toContain("GOOGLE_CLIENT_SECRET: required when GOOGLE_CLIENT_ID is set");
    } finally {
      await stop(started);
    }
  });

  test("serves no stand-in: no /dev path, no sandbox sign-in, crypto and PayPal off, no demo account, no banner", async ({ page, request }, testInfo) => {
    const port = portOf(testInfo);
    const base = `http://127.0.0.1:${port}`;
    // REMIX_DEV_ORIGIN (remix dev's variable, which a deploy may carry) changes nothing: sandbox mode is SANDBOX alone.
    const started = startBuiltServer(port, { ...LIVE_ESSENTIALS, REMIX_DEV_ORIGIN: "http://localhost:3001" });
    try {
      await waitForHealth(`${base}/healthz`, started, "the server");
      expect(started.output()).toContain("Live mode. Integrations live: mail, cards; off: crypto, paypal, google, apple, vpn.");

      // The sandboxes' pages: mailbox (every code), test clock, OpenID provider, Stripe and BitPay pages.
      for (const path of [
        "/dev/mailbox",
        "/dev/mailbox.json",
        "/dev/clock",
        "/dev/oidc/google/.well-known/openid-configuration",
        "/dev/oidc/apple/.well-known/openid-configuration",
        "/dev/stripe/checkout/cs_test_1",
        "/dev/bitpay/invoice/1",
        "/dev/paypal/checkoutnow?token=1",
      ]) {
        expect((await request.get(base + path)).status(), path).toBe(404);
      }
      expect((await request.post(`${base}/dev/clock`, { form: { days: "400" } })).status()).toBe(404);

      // Google and Apple are off: no buttons, their routes 404, the API refuses their ID tokens.
      await page.goto(`${base}/login`);
      await expect(page.getByRole("button", { name: "Continue", exact: true })).toBeVisible();
      await expect(page.getByRole("button", { name: /Continue with (Google|Apple)/ })).toHaveCount(0);
      await expect(page.getByText(BANNER)).toHaveCount(0);
      for (const provider of ["google", "apple"]) {
        expect((await request.post(`${base}/auth/${provider}`, { headers: { Origin: base } })).status()).toBe(404);
        expect((await request.get(`${base}/desktop-app/${provider}/login`)).status()).toBe(404);
      }
      const thirdParty = await request.post(`${base}/api/user/thirdparty-login`, {
        data: { auth_method: "GOOGLE", email: DEMO.email, firebase_id_token: "eyJhbGciOiJSUzI1NiJ9.e30.sig" },
      });
      expect(thirdParty.status()).toBe(404);
      expect((await thirdParty.json()).message).toBe("Sign-in with Google is not available.");

      // Crypto is off: the API has no crypto routes and says so to the checkout.
      const config = await (await request.get(`${base}/api/payments/config`)).json();
      // (device: what the API made of this client's User-Agent, for the receipt and the wallets.)
      const { device, ...gateways } = config.data;
      expect(gateways).toEqual({ mode: "live", publishable_key: LIVE_ESSENTIALS.STRIPE_PUBLISHABLE_KEY, crypto: false, paypal: false, paypal_client_id: null });
      expect(Object.keys(device).sort()).toEqual(["app", "os"]);
      const invoice = await request.post(`${base}/api/payments/crypto/invoice`, {
        data: { planId: 5, amount: "59.88", currency: "USD", email: "someone@example.com" },
      });
      expect(invoice.status()).toBe(404);
      // PayPal is off too: no panel on the checkout, no PayPal routes.
      const paypal = await request.post(`${base}/api/payments/paypal/checkout`, {
        data: { planId: 1, return_path: "/subscription/payment/1", idempotency_key: "production-mode-paypal-key" },
      });
      expect(paypal.status()).toBe(404);
      expect((await request.post(`${base}/api/payments/paypal/webhook`, { data: {} })).status()).toBe(404);

      // Manual setup is off without VPN_NODE_TOKENS (issue 34): no sandbox node token, no servers' endpoints.
      for (const path of ["/api/vpn/servers", "/api/vpn/peers"]) {
        expect((await request.get(base + path, { headers: { Authorization: "Bearer sandbox-node-token" } })).status(), path).toBe(404);
      }

      // No demo account (and so no WELCOME10 either: sandbox mode only).
      const demo = await request.post(`${base}/api/user/login`, { data: { email: DEMO.email, password: DEMO.password } });
      expect(demo.status()).toBe(401);
      const coupon = await request.post(`${base}/api/coupons/apply`, { data: { code: "WELCOME10", planId: 5 } });
      expect(coupon.status()).toBe(422);
    } finally {
      await stop(started);
    }
  });
});
