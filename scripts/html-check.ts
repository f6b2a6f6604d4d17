// `npm run test:html`: the W3C Nu Html Checker (vnu.jar, from the `vnu-jar` package, on the machine's Java 17+)
// over every page of the portal in every state a user meets it: visitor, signed in as a Free and as a Premium
// account, a buyer after a card payment, with errors shown (forms posted with bad input), with JavaScript off
// (the HTML the server answers) and on (the DOM once React has hydrated it and the network is quiet).
//
// It drives the built server (sandbox mode, a fresh SQLite database in a temp dir, like load and fuzz) with
// Chromium (/usr/bin/chromium), a few browser contexts at once, each flow with JavaScript off and on; accounts are
// made the way the e2e specs make them (tests/e2e/support.ts). Each page's HTML is written under
// data/html-check/ (kept after the run, so a reported line can be read), then vnu.jar runs ONCE over all of them
// (one JVM start: it is the slow part) and the run fails listing every error, and every warning that is not
// one of the accepted classes below, with its page, state, line and message. It builds nothing: run
// `npm run build` first. HTML_CHECK_PORT (default 3450) is the server's port; JAVA (default `java`) the runtime;
// HTML_CHECK_TIMES=1 prints each flow's time.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, expect, type Page } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { VISITOR_PAGES } from "../tests/e2e/pages";
import { LOOPBACK_LIMITS, portalSignIn, startQualityServer } from "./quality-server";

const PORT = Number(process.env.HTML_CHECK_PORT ?? 3450);
const OUT_DIR = "data/html-check";
const CHROME_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/**
 * Browser contexts at work at once (HTML_CHECK_BROWSERS). A flow mostly waits (page loads, the server's
 * answers): four keep 2 cores busy; the whole run takes about 90 s of CPU. Three on CI, whose 2 cores
 * also run the server, so that no page waits out the portal's API timeout.
 */
const BROWSERS = Number(process.env.HTML_CHECK_BROWSERS ?? (process.env.CI ? 3 : 4));
/** HTML_CHECK_ONLY=text: only the flows whose role and name contain it (while working on a page). */
const ONLY = process.env.HTML_CHECK_ONLY;
const VNU_JAR = String(createRequire(import.meta.url)("vnu-jar"));

/**
 * Warnings read and left, each class with why; every other warning fails the run like an error. None at
 * present: the only class found ('Section lacks heading', on the /login and /billing tab panels) was fixed
 * (the panels are divs: the active tab names them). Info messages are not asked for (--skip-info-messages):
 * they are 'Trailing slash on void elements', React writing `<meta ... />`, which is valid HTML.
 */
const ACCEPTED_WARNINGS: Array<{ message: RegExp; why: string }> = [];

type Mode = "no-js" | "js";
type Snapshot = { mode: Mode; label: string; url: string; file: string };

const snapshots: Snapshot[] = [];
let counter = 0;

function save(mode: Mode, label: string, url: string, html: string) {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 80);
  const file = path.join(OUT_DIR, mode, `${String(++counter).padStart(3, "0")}-${slug}.html`);
  fs.writeFileSync(file, html);
  snapshots.push({ mode, label, url, file: path.resolve(file) });
}

/** One browser page in one mode, and what it takes to record its HTML as the user has it now. */
class Visit {
  private lastDocument: Promise<{ url: string; html: string }> | null = null;
  private inFlight = 0;

  constructor(
    readonly page: Page,
    readonly mode: Mode,
    private readonly role: string,
  ) {
    page.on("response", (response) => {
      const request = response.request();
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      if (response.status() >= 300 && response.status() < 400) return;
      this.lastDocument = response.text().then((html) => ({ url: response.url(), html }));
    });
    page.on("request", () => this.inFlight++);
    page.on("requestfinished", () => this.inFlight--);
    page.on("requestfailed", () => this.inFlight--);
  }

  get js() {
    return this.mode === "js";
  }

  async open(pathname: string) {
    await this.page.goto(pathname);
    await this.hydrated();
  }

  /** With JavaScript, waits until React has hydrated the page (a portal page: the sandbox's own pages have no React). */
  private async hydrated() {
    if (!this.js) return;
    if (await this.page.evaluate(() => "__remixContext" in window)) await this.page.locator("html[data-hydrated]").waitFor();
  }

  /** Records the page as the user has it: the server's HTML without JavaScript, the hydrated DOM with it. */
  async snap(label: string) {
    const name = `${this.role}: ${label}`;
    if (!this.js) {
      if (!this.lastDocument) throw new Error(`No document was loaded before ${name}`);
      const { url, html } = await this.lastDocument;
      save(this.mode, name, url, html);
      return;
    }
    await this.hydrated();
    await this.quiet();
    save(this.mode, name, this.page.url(), await this.page.content());
  }

  /** Records an answer the browser did not load as a document (a plain POST sent from the test). */
  record(label: string, url: string, html: string) {
    save(this.mode, `${this.role}: ${label}`, url, html);
  }

  /** Opens `pathname` and records it. */
  async visit(pathname: string, label = pathname) {
    await this.open(pathname);
    await this.snap(label);
  }

  /** Waits until no request of the page has been running for 200 ms (lazy code, fetchers). */
  private async quiet() {
    const deadline = Date.now() + 10_000;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if (this.inFlight > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= 200) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

type Support = typeof import("../tests/e2e/support");
/** `only`: the mode the flow exists in (the wallets are JavaScript-only), else both. */
type Flow = { role: string; name: string; only?: Mode; run: (visit: Visit, context: BrowserContext) => Promise<void> };

const GOOD_CARD = "4242 4242 4242 4242";
/** The sandbox's other card that pays: each mode buys with its own (the refund guarantee is once per card). */
const OTHER_GOOD_CARD = "4000 0566 5566 5556";
const DECLINED_CARD = "4000 0000 0000 0002";
const NO_INVOICE = "/subscription/bitpay-pay-due-invoice/00000000-0000-4000-8000-000000000000";

function flows(base: string, support: Support): Flow[] {
  const { createUser, createPasswordlessUser, enterCode, latestCode, uniqueEmail, withDatabase } = support;
  const continueButton = (page: Page) => page.getByRole("button", { name: "Continue", exact: true });

  /** Signs `user` in through the portal's form (over HTTP, fast) and gives the context its session cookie. */
  const signInContext = async (context: BrowserContext, user: { email: string; password: string }) => {
    const cookies = (await portalSignIn(base, user.email, user.password)).split("; ");
    await context.addCookies(
      cookies.map((cookie) => {
        const at = cookie.indexOf("=");
        return { name: cookie.slice(0, at), value: cookie.slice(at + 1), url: base };
      }),
    );
  };

  const visitorPages = [
    ...VISITOR_PAGES,
    "/login-sso?token=not-a-real-token",
    // The sandbox's own pages (api/http/routes/dev.ts): a user of sandbox mode meets them.
    "/dev/mailbox",
    "/dev/clock",
  ];
  const signedInPages = [
    "/",
    "/billing",
    "/billing?tab=payment-method",
    "/connected-devices",
    "/connected-devices?confirm=all",
    "/account/delete",
    "/account/two-factor",
    "/pricing",
    "/pricing?tab=monthly",
    "/pricing?tab=yearly",
    "/subscription/payment/6",
    "/subscription/payment/7",
    "/terms",
    "/privacy",
    "/demo",
    NO_INVOICE,
    "/no-such-page",
  ];

  /** Pays on the open checkout with `card` (through the sandbox's hosted page without JavaScript). */
  const payByCard = async (visit: Visit, card: string, label: string) => {
    const { page } = visit;
    if (!visit.js) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
    await expect(page.getByLabel("Card number")).toBeVisible();
    await visit.snap(`${label}: the card entry`);
    await page.getByLabel("Card number").fill(card);
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 49");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
  };

  return [
    // Every page, a few to a flow, so that the flows share out evenly between the browsers.
    ...chunks(visitorPages, 6).map((pages, index) => ({
      role: "visitor",
      name: `every page (${index + 1})`,
      run: async (visit: Visit) => {
        for (const pathname of pages) await visit.visit(pathname);
      },
    })),
    {
      role: "visitor",
      name: "the 400 page",
      run: async (visit, context) => {
        // A form the checkout's action does not know answers 400 with the root error page.
        if (visit.js) {
          await visit.open("/payment/6");
          await visit.page.evaluate(() => {
            const form = document.createElement("form");
            form.method = "post";
            form.innerHTML = '<input type="hidden" name="intent" value="no-such-form">';
            document.body.append(form);
            form.submit();
          });
          await expect(visit.page.getByRole("heading", { name: "We couldn't handle that request" })).toBeVisible();
          await visit.snap("the 400 page");
        } else {
          const response = await context.request.post(`${base}/payment/6`, { form: { intent: "no-such-form" }, headers: { Origin: base } });
          expect(response.status()).toBe(400);
          visit.record("the 400 page", response.url(), await response.text());
        }
      },
    },
    {
      role: "visitor",
      name: "sign-in errors",
      run: async (visit) => {
        const { page } = visit;
        await visit.open("/login");
        await page.getByLabel("Email").fill("not-an-email");
        await continueButton(page).click();
        await expect(page.getByText("Please enter a valid email address")).toBeVisible();
        await visit.snap("/login with invalid fields");
        await page.getByLabel("Email").fill("nobody@example.com");
        await page.getByLabel("Password").fill("wrong-password-123");
        await continueButton(page).click();
        await expect(page.getByRole("alert").filter({ hasText: "These credentials do not match our records." })).toBeVisible();
        await visit.snap("/login refused");
      },
    },
    {
      role: "visitor",
      name: "sign-up",
      run: async (visit, context) => {
        const { page } = visit;
        const email = uniqueEmail("html-signup");
        await visit.open("/login?tab=signup");
        await continueButton(page).click();
        await expect(page.getByText("You must agree to terms and conditions")).toBeVisible();
        await visit.snap("sign-up: the email step with errors");
        await page.getByLabel("Email", { exact: true }).fill(email);
        await page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" }).check();
        await continueButton(page).click();
        await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
        await visit.snap("sign-up: the code step");
        await enterCode(page, "123");
        await continueButton(page).click();
        await expect(page.getByText("Please enter the 6-digit verification code")).toBeVisible();
        await visit.snap("sign-up: the code step with an error");
        await enterCode(page, await latestCode(context.request, email));
        await continueButton(page).click();
        await expect(page.getByLabel("Confirm Password")).toBeVisible();
        await visit.snap("sign-up: the password step");
        await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
        await page.getByLabel("Confirm Password").fill("another-password");
        await page.getByRole("button", { name: "Finish" }).click();
        await expect(page.getByText("Passwords do not match")).toBeVisible();
        await visit.snap("sign-up: the password step with an error");
        await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
        await page.getByLabel("Confirm Password").fill("a-strong-password");
        await page.getByRole("button", { name: "Finish" }).click();
        await expect(page.getByRole("heading", { name: "Welcome to the product!" })).toBeVisible();
        await visit.snap("sign-up: the new account's home");
      },
    },
    {
      role: "visitor",
      name: "code sign-in and password reset",
      run: async (visit, context) => {
        const { page } = visit;
        const user = await createUser();
        await visit.open("/get-code");
        await page.getByLabel("Email").fill(user.email);
        await continueButton(page).click();
        await expect(page.getByText(/Enter the code we.ve sent to/)).toBeVisible();
        await visit.snap("/get-code: the code step");
        await enterCode(page, "000000");
        await continueButton(page).click();
        await expect(page.getByRole("alert").filter({ hasText: /\S/ }).first()).toBeVisible();
        await visit.snap("/get-code: the code step with an error");

        await visit.open("/forget-password");
        await page.getByLabel("Email").fill(user.email);
        await continueButton(page).click();
        await expect(page.getByText(/Enter the code we.ve sent to/)).toBeVisible();
        await visit.snap("/forget-password: the code step");
        await enterCode(page, await latestCode(context.request, user.email, /reset/i));
        await continueButton(page).click();
        await expect(page.getByLabel("Confirm Password")).toBeVisible();
        await visit.snap("/forget-password: the password step");
        await page.getByLabel("Password", { exact: true }).fill("short");
        await page.getByLabel("Confirm Password").fill("short");
        await continueButton(page).click();
        await expect(page.getByText("Password must be at least 8 characters")).toBeVisible();
        await visit.snap("/forget-password: the password step with an error");

        const { token } = await createPasswordlessUser();
        await visit.visit(`/generate-password/${token}`, "/generate-password/{token}");
      },
    },
    {
      role: "visitor",
      name: "the checkout's coupon and Verify Your Email",
      run: async (visit, context) => {
        const { page } = visit;
        await visit.open("/subscription/payment/6");
        const summary = page.getByRole("complementary", { name: "Order summary" });
        await summary.getByText("Got a coupon?").click();
        await summary.getByLabel("Coupon code").fill("NOPE");
        await summary.getByRole("button", { name: "Apply" }).click();
        await expect(summary.getByText("This coupon code is not valid.")).toBeVisible();
        await visit.snap("checkout: an unknown coupon");
        if (!(await summary.getByLabel("Coupon code").isVisible())) await summary.getByText("Got a coupon?").click();
        await summary.getByLabel("Coupon code").fill("welcome10");
        await summary.getByRole("button", { name: "Apply" }).click();
        await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
        await visit.snap("checkout: WELCOME10 applied");

        const email = uniqueEmail("html-checkout");
        await visit.open("/payment/6");
        await page.getByLabel("Email").fill("not-an-email");
        await continueButton(page).click();
        await expect(page.getByText("Please enter a valid email address")).toBeVisible();
        await visit.snap("checkout: an invalid email");
        await page.getByLabel("Email").fill(email);
        await continueButton(page).click();
        await expect(page.getByRole("dialog", { name: "Verify Your Email" })).toBeVisible();
        await visit.snap("checkout: Verify Your Email, the code");
        await enterCode(page, await latestCode(context.request, email));
        await page.getByRole("button", { name: "Next" }).click();
        await expect(page.getByLabel("Confirm Password")).toBeVisible();
        await visit.snap("checkout: Verify Your Email, the password");
      },
    },
    {
      role: "visitor",
      name: "desktop-app sign-in",
      run: async (visit) => {
        const { page } = visit;
        await page.goto("/desktop-app/google/login?device_os=Linux&device_brand=Dell&device_model=XPS&device_os_version=6.8");
        await page.waitForURL(/\/dev\/oidc\/google\//);
        await visit.snap("the identity sandbox's sign-in page (/dev/oidc)");
        await page.getByLabel("Email").fill(uniqueEmail("html-desktop"));
        await page.getByLabel("Name").fill("Desk Top");
        await page.getByRole("button", { name: "Continue" }).click();
        await expect(page.getByRole("link", { name: "Open the app" })).toBeVisible();
        await visit.snap("/desktop-app/handoff");
      },
    },
    ...(["free", "premium"] as const).flatMap((role) =>
      chunks(signedInPages, 6).map((pages, index) => ({
        role,
        name: `every page (${index + 1})`,
        run: async (visit: Visit, context: BrowserContext) => {
          // Premium: a subscription running for a year, as the e2e specs make it.
          await signInContext(context, await createUser(role === "premium" ? { subscriptionDays: { startDaysAgo: 10, days: 365 } } : {}));
          for (const pathname of pages) await visit.visit(pathname);
        },
      })),
    ),
    {
      role: "visitor",
      name: "single sign-on by token",
      run: async (visit, context) => {
        const user = await createUser();
        const login = await context.request.post("/api/user/login", { data: user });
        const bearer = ((await login.json()) as { data: { token: string } }).data.token;
        const minted = await context.request.post("/api/auth/sso-token", { headers: { Authorization: `Bearer ${bearer}` } });
        const token = ((await minted.json()) as { data: { access_token: string } }).data.access_token;
        await visit.open(`/login-sso?token=${encodeURIComponent(token)}&redirect=%2Fbilling`);
        await expect(visit.page.getByRole("button", { name: `Continue as ${user.email}` })).toBeVisible();
        await visit.snap("/login-sso: Continue as");
      },
    },
    {
      role: "free",
      name: "the wallets at checkout",
      only: "js",
      run: async (visit, context) => {
        const { page } = visit;
        const panel = (name: string) =>
          page.locator("details.accordion-item").filter({ has: page.locator("summary", { hasText: new RegExp(`^${name}$`) }) });
        await visit.open("/subscription/payment/1");
        await panel("Google Pay").locator("summary").click();
        await expect(panel("Google Pay").getByText("Enter and verify your email above to pay with Google Pay.")).toBeVisible();
        await visit.snap("checkout: the wallet panels open, before the email is verified");
        await signInContext(context, await createUser());
        await visit.open("/subscription/payment/1");
        // One panel open at a time (an exclusive accordion).
        for (const name of ["Apple Pay", "Google Pay"]) {
          await panel(name).locator("summary").click();
          await expect(panel(name).getByRole("button", { name: `Pay with ${name}` })).toBeVisible();
          await visit.snap(`checkout: the ${name} panel open`);
        }
        await panel("Google Pay").getByRole("button", { name: "Pay with Google Pay" }).click();
        const sheet = page.getByRole("dialog", { name: "Google Pay (sandbox)" });
        await expect(sheet).toBeVisible();
        await visit.snap("checkout: the stand-in wallet sheet");
        await sheet.getByRole("button", { name: "Decline" }).click();
        await expect(page.locator(".toast").filter({ hasText: "Your bank declined this Google Pay charge." })).toBeVisible();
        await visit.snap("checkout: a wallet charge declined");
        await visit.open("/subscription/payment/1?wallet=unavailable");
        for (const name of ["Apple Pay", "Google Pay"]) await panel(name).locator("summary").click();
        await expect(page.getByText("Google Pay is not available in this browser or device.")).toBeVisible();
        await visit.snap("checkout: no wallet on the device");
      },
    },
    {
      role: "free",
      name: "two-factor authentication",
      run: async (visit, context) => {
        const { page } = visit;
        const user = await createUser();
        await signInContext(context, user);
        await visit.open("/account/two-factor");
        const setupKey = await page.getByLabel("Setup key").inputValue();
        const totp = new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(setupKey) });
        await page.getByRole("button", { name: "Turn on" }).click();
        await expect(page.getByText("Please enter the 6-digit authentication code")).toBeVisible();
        await visit.snap("/account/two-factor: set-up with errors");
        await page.getByLabel("Authentication code").fill(totp.generate());
        await page.getByLabel("Current password").fill(user.password);
        await page.getByRole("button", { name: "Turn on" }).click();
        await expect(page.getByRole("list", { name: "Recovery codes" })).toBeVisible();
        await visit.snap("/account/two-factor: the recovery codes");
        await visit.visit("/account/two-factor", "/account/two-factor: on");
        await page.getByLabel("Authentication code").fill("000000");
        await page.getByRole("button", { name: "Turn off" }).click();
        await expect(page.getByText("Invalid authentication code")).toBeVisible();
        await visit.snap("/account/two-factor: turning off with a wrong code");
        await page.getByRole("link", { name: "Use a recovery code" }).click();
        await page.getByLabel("Recovery code").fill("aaaaa-aaaaa");
        await page.getByRole("button", { name: "Turn off" }).click();
        await expect(page.getByText("Invalid recovery code")).toBeVisible();
        await visit.snap("/account/two-factor?recovery=1: turning off with a wrong recovery code");
        await visit.visit("/", "/ with two-factor on");
        await page.getByRole("button", { name: "Log Out" }).click();
        await expect(page).toHaveURL(/\/login$/);
        await page.getByLabel("Email").fill(user.email);
        await page.getByLabel("Password").fill(user.password);
        await continueButton(page).click();
        await expect(page).toHaveURL(/\/login\/two-factor$/);
        await visit.snap("/login/two-factor");
        await page.getByLabel("Authentication code").fill("000000");
        await page.getByRole("button", { name: "Verify", exact: true }).click();
        await expect(page.getByText("Invalid authentication code")).toBeVisible();
        await visit.snap("/login/two-factor with an error");
        await page.getByRole("link", { name: "Use a recovery code" }).click();
        await expect(page.getByLabel("Recovery code")).toBeVisible();
        await visit.snap("/login/two-factor?recovery=1");
        await page.getByLabel("Recovery code").fill("aaaaa-aaaaa");
        await page.getByRole("button", { name: "Verify" }).click();
        await expect(page.getByText("Invalid recovery code")).toBeVisible();
        await visit.snap("/login/two-factor?recovery=1 with an error");
      },
    },
    {
      role: "free",
      name: "change password, delete account, devices",
      run: async (visit, context) => {
        const { page } = visit;
        const user = await createUser();
        await signInContext(context, user);
        // A second device, so that the list has another one to terminate.
        await portalSignIn(base, user.email, user.password);
        await visit.open("/");
        await page.getByRole("button", { name: "Change Password" }).click();
        const dialog = page.getByRole("dialog", { name: "Change Password" });
        await expect(dialog).toBeVisible();
        await visit.snap("change password: the email");
        await dialog.getByRole("button", { name: "Next" }).click();
        await expect(dialog.getByText("Please Enter Confirm OTP")).toBeVisible();
        await visit.snap("change password: the code");
        await dialog.getByLabel("Verification code").fill(await latestCode(context.request, user.email, /reset/i));
        await dialog.getByRole("button", { name: "Next" }).click();
        await expect(dialog.getByLabel("Confirm Password")).toBeVisible();
        await visit.snap("change password: the new password");

        await visit.open("/connected-devices");
        const cards = page.getByRole("list", { name: "Connected devices" }).getByRole("listitem");
        await cards.filter({ hasNotText: "This device" }).getByRole("button", { name: /^Terminate/ }).click();
        await expect(page.getByRole("dialog")).toBeVisible();
        await visit.snap("/connected-devices: terminate a device?");

        await visit.open("/account/delete");
        const deleteButton = page.getByRole("button", { name: "Delete my account" });
        await deleteButton.click();
        await expect(page.getByText("Please enter your password.")).toBeVisible();
        await visit.snap("/account/delete with an empty password");
        await page.getByLabel("Password").fill("wrong-password");
        await deleteButton.click();
        await expect(page.getByText("The password is incorrect.")).toBeVisible();
        await visit.snap("/account/delete with a wrong password");
      },
    },
    {
      role: "buyer",
      name: "a card purchase, billing and saved cards",
      run: async (visit, context) => {
        const { page } = visit;
        const user = await createUser();
        await signInContext(context, user);
        await visit.open("/subscription/payment/1");
        await payByCard(visit, DECLINED_CARD, "a declined card");
        await expect(page.getByText("Your card was declined.").first()).toBeVisible();
        await visit.snap("a declined card");
        await visit.open("/subscription/payment/1");
        await payByCard(visit, visit.js ? OTHER_GOOD_CARD : GOOD_CARD, "a good card");
        await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
        await visit.snap("Payment Successful!");

        await visit.open("/billing");
        // The paid row (the declined attempt has one too, with JavaScript).
        const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Request refund" }) });
        await expect(row).toHaveCount(1);
        await visit.snap("/billing with a payment");
        await page.getByRole("region", { name: "Subscription" }).getByRole("button", { name: "Cancel auto-renewal" }).click();
        await expect(page.getByRole("dialog", { name: "Cancel auto-renewal?" })).toBeVisible();
        await visit.snap("/billing: Cancel auto-renewal?");
        await visit.open("/billing");
        await row.getByRole("link", { name: "Request refund" }).click();
        await expect(page.getByRole("dialog", { name: "Request a refund" })).toBeVisible();
        await visit.snap("/billing: Request a refund");
        for (const pathname of ["/", "/pricing", "/subscription/payment/6", "/billing?tab=payment-method"]) await visit.visit(pathname);
        await page.getByRole("link", { name: /^Edit/ }).first().click();
        await expect(page.getByRole("form", { name: /^Edit/ })).toBeVisible();
        await visit.snap("/billing?tab=payment-method: edit a card");
        await visit.open("/billing?tab=payment-method");
        // A second card (the default one cannot be deleted), added as a visitor does it.
        if (visit.js) {
          await page.getByLabel("Card number").fill(GOOD_CARD);
          await page.getByLabel("Expiry (MM / YY)").first().fill("12 / 48");
          await page.getByLabel("CVC").fill("123");
          await page.getByLabel("Cardholder name").last().fill("Second Holder");
          await page.getByLabel("Postal code").fill("10115");
          await visit.snap("/billing?tab=payment-method: a card being added");
          await page.getByRole("button", { name: "Add card", exact: true }).click();
        } else {
          await page.getByRole("button", { name: "Add card", exact: true }).click();
          await expect(page.getByRole("heading", { name: "Secure payment (sandbox)" })).toBeVisible();
          await visit.snap("/billing?tab=payment-method: add a card (the sandbox's hosted page)");
          await page.getByLabel("Card number").fill(GOOD_CARD);
          await page.getByLabel("Expiry (MM / YY)").fill("12 / 48");
          await page.getByLabel("CVC").fill("123");
          await page.getByLabel("Cardholder name").fill("Second Holder");
          await page.getByLabel("Postal code").fill("10115");
          await page.getByRole("button", { name: /^Save card/ }).click();
        }
        await expect(page.getByText("New Payment Method Added Successfully.")).toBeVisible();
        await visit.snap("/billing?tab=payment-method: a card added");
        await page.getByRole("listitem").filter({ hasText: "Second Holder" }).getByRole("link", { name: /^Delete/ }).click();
        await expect(page.getByRole("button", { name: "Yes, delete" })).toBeVisible();
        await visit.snap("/billing?tab=payment-method: delete a card?");
      },
    },
    {
      role: "buyer",
      name: "a crypto purchase",
      run: async (visit, context) => {
        const { page } = visit;
        const user = await createUser();
        await signInContext(context, user);
        await visit.open("/subscription/payment/1");
        await page.getByText("Crypto Currencies", { exact: true }).click();
        await page.getByRole("button", { name: "Pay with Crypto" }).click();
        await expect(page).toHaveURL(/\/dev\/bitpay\/invoice\//);
        await visit.snap("the crypto sandbox's invoice page (/dev/bitpay/invoice)");
        const invoice = await withDatabase((db) =>
          db
            .selectFrom("crypto_invoices")
            .innerJoin("users", "users.id", "crypto_invoices.user_id")
            .select("crypto_invoices.uuid")
            .where("users.email", "=", user.email)
            .executeTakeFirstOrThrow(),
        );
        const invoicePage = page.url();
        await visit.visit(`/subscription/bitpay-pay-due-invoice/${invoice.uuid}`, "the due invoice");
        await page.goto(invoicePage);
        await page.getByRole("button", { name: "Mark as paid" }).click();
        await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
        await visit.open("/billing");
        await page.getByRole("row").filter({ hasText: "1 Month" }).first().getByRole("link", { name: "Request refund" }).click();
        const dialog = page.getByRole("dialog", { name: "Request a refund" });
        await expect(dialog).toBeVisible();
        await visit.snap("/billing: Request a refund of a crypto payment");
        // (An empty or malformed address is stopped by the browser's own form validation: the field's
        // required and pattern attributes.)
        await dialog.getByLabel("Refund address").fill("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
        await dialog.getByRole("button", { name: "Refund my payment" }).click();
        await expect(page.getByText(/Your refund request has been received/)).toBeVisible();
        await visit.snap("/billing: Refund requested");
        await context.clearCookies();
        await visit.visit(`/subscription/bitpay-pay-due-invoice/${invoice.uuid}`, "the due invoice (visitor)");
      },
    },
  ];
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, index * size + size));
}

/** Every flow in both modes, BROWSERS at a time (the JavaScript-on flows, slower, first). */
async function runFlows(browser: Browser, base: string, support: Support, failures: string[]) {
  const tasks = (["js", "no-js"] as const).flatMap((mode) =>
    flows(base, support)
      .filter((flow) => !flow.only || flow.only === mode)
      .filter((flow) => !ONLY || `${flow.role} ${flow.name}`.includes(ONLY))
      .map((flow) => ({ mode, flow })),
  );
  for (const mode of ["js", "no-js"]) fs.mkdirSync(path.join(OUT_DIR, mode), { recursive: true });
  let next = 0;
  await Promise.all(
    Array.from({ length: BROWSERS }, async () => {
      while (next < tasks.length) {
        const { mode, flow } = tasks[next++]!;
        await runFlow(browser, base, mode, flow, failures);
      }
    }),
  );
}

/**
 * Runs a flow in a fresh context. A flow that breaks is run once more, from the start with new accounts,
 * and the run says so: a page that did not load under load (a 503 while two cores also run Chromium)
 * is not what this check judges, but a flow that breaks twice is a failure.
 */
async function runFlow(browser: Browser, base: string, mode: Mode, flow: Flow, failures: string[]) {
  const label = `${mode} ${flow.role} "${flow.name}"`;
  for (let attempt = 1; ; attempt++) {
    const context = await browser.newContext({ baseURL: base, javaScriptEnabled: mode === "js", viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const started = Date.now();
    try {
      await flow.run(new Visit(await context.newPage(), mode, flow.role), context);
      if (process.env.HTML_CHECK_TIMES) console.log(`  ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    } catch (error) {
      const message = (error as Error).message.split("\n").slice(0, 6).join("\n");
      if (attempt === 1) {
        console.log(`flow retried once: ${label}: ${message}`);
        continue;
      }
      failures.push(`${label}: ${message}`);
      return;
    } finally {
      await context.close();
    }
  }
}

type VnuMessage = { type: string; subType?: string; url?: string; lastLine?: number; firstColumn?: number; lastColumn?: number; message: string; extract?: string };

/** vnu.jar once over every file: its JSON messages. */
async function runVnu(files: string[]): Promise<VnuMessage[]> {
  const java = process.env.JAVA ?? "java";
  const args = ["-jar", VNU_JAR, "--format", "json", "--stdout", "--skip-info-messages", "--exit-zero-always", ...files];
  const child = spawn(java, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", (error) =>
      reject(new Error(`Could not run ${java} (${error.message}): install a Java 17+ runtime (apt-get install -y default-jre-headless)`)),
    );
    child.once("exit", resolve);
  });
  if (code !== 0) throw new Error(`vnu.jar exited with ${code}`);
  return (JSON.parse(out) as { messages: VnuMessage[] }).messages;
}

async function main() {
  const started = Date.now();
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  const server = await startQualityServer({ port: PORT, name: "html-check", env: LOOPBACK_LIMITS });
  // The e2e helpers make accounts in the server's database (tests/e2e/support.ts reads it from E2E_DATABASE_URL).
  process.env.E2E_DATABASE_URL = server.databaseFile;
  const support = (await import("../tests/e2e/support")) as Support;
  const failures: string[] = [];
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROME_PATH,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update"],
    });
    await runFlows(browser, server.base, support, failures);
  } finally {
    await browser?.close();
    await server.stop();
    server.cleanUp();
  }
  const collected = Date.now();
  console.log(`Collected ${snapshots.length} pages in ${((collected - started) / 1000).toFixed(0)} s; checking them with vnu.jar...`);

  const messages = await runVnu(snapshots.map((snapshot) => snapshot.file));
  const byFile = new Map(snapshots.map((snapshot) => [`file:${snapshot.file}`, snapshot]));
  const problems: string[] = [];
  const accepted = new Map<string, number>();
  for (const message of messages) {
    const snapshot = message.url ? byFile.get(message.url) : undefined;
    const where = snapshot ? `${snapshot.mode === "js" ? "JavaScript on" : "JavaScript off"}, ${snapshot.label} (${path.relative(process.cwd(), snapshot.file)}` : `(${message.url ?? "?"}`;
    const line = `${where}:${message.lastLine ?? "?"}:${message.firstColumn ?? message.lastColumn ?? "?"})`;
    const isWarning = message.type === "info" && message.subType === "warning";
    if (isWarning) {
      const rule = ACCEPTED_WARNINGS.find((candidate) => candidate.message.test(message.message));
      if (rule) {
        accepted.set(rule.why, (accepted.get(rule.why) ?? 0) + 1);
        continue;
      }
    }
    const kind = isWarning ? "warning" : message.type === "error" ? "error" : `${message.type}${message.subType ? ` ${message.subType}` : ""}`;
    problems.push(`${kind}: ${line}\n  ${message.message}${message.extract ? `\n  in: ${message.extract.replace(/\s+/g, " ").trim()}` : ""}`);
  }
  for (const problem of problems) console.log(`\n${problem}`);
  for (const [why, count] of accepted) console.log(`\n(${count} accepted warning(s): ${why})`);
  for (const failure of failures) console.log(`\nflow failed: ${failure}`);
  const modes = (["no-js", "js"] as const).map((mode) => `${snapshots.filter((s) => s.mode === mode).length} ${mode}`).join(", ");
  console.log(
    `\n${snapshots.length} pages (${modes}); ${problems.length} problem(s), ${failures.length} failed flow(s); ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s in all (vnu.jar ${((Date.now() - collected) / 1000).toFixed(0)} s). HTML kept in ${OUT_DIR}/.`,
  );
  if (server.serverErrors.length) console.log(`Server answered 5xx:\n${server.serverErrors.join("\n")}`);
  if (server.stderrErrors.length) console.log(`Server errors:\n${server.stderrErrors.join("\n")}`);
  process.exitCode = problems.length || failures.length || server.serverErrors.length || server.stderrErrors.length ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
